/**
 * `@switchyard/native-toolkit/testing`: what the addons' tests share (the hostile-arguments generator and
 * its child-process driver). Not for applications.
 */
export { argumentCalls, foreignReceivers, variantsOf, type ArgumentCallOptions, type Expect, type HostileCall, type Variant } from './hostile-values.js';
export { judgeOutcome, runHostileCalls, runHostileWorker, type CodeRule, type HostileReport } from './hostile-run.js';
