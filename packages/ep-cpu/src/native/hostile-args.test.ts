/**
 * Every export of the addon (binding.ts) called with hostile arguments — missing, mistyped, too short or
 * too long, negative or huge dims, disposed objects, another class's object as `this` — must throw or reject
 * a coded error, never crash. The calls (hostile-args.calls.ts, from the valid ones in hostile-args.cases.ts)
 * run in a child process (hostile-args.worker.ts), so a crash is this test failing with the call that was
 * running and the child's stderr (an AddressSanitizer report under scripts/sanitize.sh), not vitest dying.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runHostileWorker } from '@switchyard/native-toolkit/testing';
import { loadNative } from './load-native.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const worker = fileURLToPath(new URL('./hostile-args.worker.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

describe.skipIf(!native.ok)('hostile arguments to every addon export', () => {
  it('throw coded errors and never crash the process', async () => {
    const { count, failures, byCode } = await runHostileWorker(worker, repoRoot);
    expect(failures).toEqual([]);
    expect(count).toBeGreaterThan(2000);
    console.log(`hostile-args: ${count} calls; thrown codes ${JSON.stringify(byCode)}`);
  }, 300_000);
});
