/**
 * Child process of hostile-args.test.ts: makes every hostile call on the addon (SWITCHYARD_CPU_ADDON, else
 * the local build) through the toolkit's driver (@switchyard/native-toolkit/testing), which prints per call
 * what the parent needs to name the call during which the process died.
 */
import { runHostileCalls } from '@switchyard/native-toolkit/testing';
import { hostileCalls } from './hostile-args.calls.js';
import { loadNative } from './load-native.js';

/** The codes the addon may give (binding.ts), all of them core ErrorCodes. */
const CODES = new Set(['INVALID_ARGUMENT', 'UNSUPPORTED', 'OUT_OF_MEMORY', 'RELEASED', 'RUNTIME']);

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
if (!native.ok) {
  process.stdout.write(`SKIP ${native.reason}\n`);
} else {
  const { calls, missing } = hostileCalls(native.binding);
  await runHostileCalls(calls, missing, { codes: CODES });
}
