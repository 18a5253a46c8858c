/** The loader and session fuzzer: cases from (seed, index), a per-case runner and judge, and a process driver. */
export { fuzzCase, CONFORMANCE_ROOT, type FuzzCase, type FeedPlan } from './fuzz-case.js';
export { runFuzzCase, judgeError, type CaseResult, type FuzzRunOptions, type Verdict } from './run-case.js';
export { runFuzzWorker, workerRangeFromEnv, type WorkerRange } from './worker.js';
export { runFuzz, formatFuzzSummary, type FuzzDriverOptions, type FuzzFailure, type FuzzSummary } from './driver.js';
export { parseMessage, serializeMessage, type ProtoMessage, type ProtoField } from './proto-tree.js';
