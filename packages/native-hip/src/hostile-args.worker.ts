/**
 * Child process of hostile-args.test.ts: makes every hostile call on the HIP test addon (every export of
 * switchyard_hip.node plus kernelsJs; load-test-addon.ts says where it is found) through the toolkit's driver, which prints per call what
 * the parent needs to name the call during which the process died.
 */
import { runHostileCalls } from '@switchyard/native-toolkit/testing';
import type { DeviceBuffer } from './binding.js';
import { hostileCalls } from './hostile-args.calls.js';
import type { HipContext } from './hostile-args.cases.js';
import { loadNativeHipTest } from './load-test-addon.js';

/**
 * The codes the addon may give: core ErrorCodes, the seams' own (binding-runtime.ts), and the GPU
 * runtime's status names (`hipErrorNoDevice`, `cudaErrorInvalidValue`, …).
 */
const CODES = new Set(['INVALID_ARGUMENT', 'UNSUPPORTED', 'OUT_OF_MEMORY', 'RELEASED', 'RUNTIME', 'BLAS_UNAVAILABLE', 'DNN_UNAVAILABLE', 'DNN_UNSUPPORTED', 'DNN_ERROR', 'GPU_ERROR']);
const GPU_STATUS = /^(hip|cuda)Error[A-Za-z]+$/;

const native = loadNativeHipTest();
if (!native.ok) {
  process.stdout.write(`SKIP ${native.reason}\n`);
} else {
  const binding = native.binding as HipContext['binding'];
  const hasDevice = binding.deviceCount().count > 0;
  const ctx: HipContext = {
    binding,
    hasDevice,
    buffer: (bytes: number): DeviceBuffer => new binding.DeviceBuffer(0, hasDevice ? bytes : 0),
    recordedEvents: () => {
      if (!hasDevice) return [new binding.testing.FakeArena({}), {}];
      const start = new binding.Event(0);
      const end = new binding.Event(0);
      start.record();
      end.record();
      end.synchronize();
      return [start, end];
    },
  };
  process.stdout.write(`CONTEXT ${JSON.stringify({ hasDevice, blas: binding.blasInfo(), dnn: binding.dnnInfo() })}\n`);
  const { calls, missing } = hostileCalls(ctx);
  await runHostileCalls(calls, missing, { codes: CODES, pattern: GPU_STATUS });
}
