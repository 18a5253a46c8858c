/**
 * Every export of the HIP addon (loaded as the test addon, switchyard_hip_test.node: the same exports plus
 * kernelsJs) called with hostile arguments — missing, mistyped, too short or too long,
 * huge numbers, look-alike and freed DeviceBuffers, another class's object as `this` — must throw a coded
 * error, never crash; without a GPU the calls that need one must fail with a coded error too (the runtime's
 * status name). The calls (hostile-args.calls.ts, from the valid ones in hostile-args.cases.ts) run in a
 * child process (hostile-args.worker.ts), so a crash is this test failing with the call that was running
 * and the child's stderr (an AddressSanitizer report under scripts/sanitize.sh), not vitest dying.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runHostileWorker } from '@switchyard/native-toolkit/testing';
import { loadNativeHipTest } from './load-test-addon.js';

const native = loadNativeHipTest();
const worker = fileURLToPath(new URL('./hostile-args.worker.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

describe.skipIf(!native.ok)('hostile arguments to every export of the HIP addon', () => {
  it('throw coded errors and never crash the process', async () => {
    const { count, failures, byCode } = await runHostileWorker(worker, repoRoot);
    expect(failures).toEqual([]);
    expect(count).toBeGreaterThan(1500);
    console.log(`hostile-args (native-hip): ${count} calls; thrown codes ${JSON.stringify(byCode)}`);
  }, 300_000);
});
