/**
 * Every export of the addon (binding.ts) called with hostile arguments — missing, mistyped, too short or
 * too long, negative or huge dims, disposed objects, another class's object as `this` — must throw or reject
 * a coded error, never crash. The calls (hostile-args.calls.ts, from the valid ones in hostile-args.cases.ts)
 * run in a child process, so a crash is this test failing with the call that was running and the child's
 * stderr (an AddressSanitizer report under scripts/sanitize.sh), not vitest dying.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadNative } from './load-native.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const worker = fileURLToPath(new URL('./hostile-args.worker.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

interface ChildResult {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

function runWorker(): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', worker], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ stdout, stderr, code, signal }));
  });
}

describe.skipIf(!native.ok)('hostile arguments to every addon export', () => {
  it('throw coded errors and never crash the process', async () => {
    const { stdout, stderr, code, signal } = await runWorker();
    const lines = stdout.split('\n').filter((l) => l.length > 0);
    const results = lines.filter((l) => l.startsWith('R ')).map((l) => JSON.parse(l.slice(2)) as { id: string; failure?: string; code?: string });
    const last = lines.at(-1) ?? '';
    if (!last.startsWith('DONE ')) {
      const running = [...lines].reverse().find((l) => l.startsWith('S '));
      throw new Error(`the child died (exit ${code}, signal ${signal}) during: ${running?.slice(2) ?? '(before the first call)'}\n${stderr.slice(-6000)}`);
    }
    const failures = results.filter((r) => r.failure !== undefined).map((r) => `${r.id}: ${r.failure}`);
    expect(failures).toEqual([]);
    const count = Number(last.slice(5));
    expect(count).toBeGreaterThan(2000);
    const byCode = new Map<string, number>();
    for (const r of results) if (r.code) byCode.set(r.code, (byCode.get(r.code) ?? 0) + 1);
    console.log(`hostile-args: ${count} calls; thrown codes ${JSON.stringify(Object.fromEntries(byCode))}`);
  }, 300_000);
});
