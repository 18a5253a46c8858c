/**
 * `switchyard serve` as a real process (the built CLI): it serves a repository on loopback, answers
 * the protocol, and on SIGTERM finishes and exits 0; bad arguments exit 2 with a clear message.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = join(repo, 'packages/cli/dist/bin.js');

function repository(): string {
  const root = mkdtempSync(join(tmpdir(), 'sy-cli-serve-'));
  mkdirSync(join(root, 'tiny', '1'), { recursive: true });
  symlinkSync(join(repo, 'examples/models/tiny-cnn.onnx'), join(root, 'tiny', '1', 'model.onnx'));
  return root;
}

describe.skipIf(!existsSync(bin))('switchyard serve (built)', () => {
  it('serves the repository on loopback and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [bin, 'serve', '--repository', repository(), '--port', '0', '--ep', 'cpu'], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
          if (m) resolve(m[1]);
        });
        void exited.then((code) => reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
      });
      expect((await fetch(`${url}/v2/health/ready`)).status).toBe(200);
      const meta = (await (await fetch(`${url}/v2/models/tiny`)).json()) as { versions: string[] };
      expect(meta.versions).toEqual(['1']);
      const reply = await fetch(`${url}/v2/models/tiny/infer`, {
        method: 'POST',
        body: JSON.stringify({ inputs: [{ name: 'input', shape: [1, 3, 32, 32], datatype: 'FP32', data: new Array(3072).fill(0.5) }] }),
      });
      const body = (await reply.json()) as { outputs: Array<{ data: number[] }> };
      expect(reply.status).toBe(200);
      expect(body.outputs[0].data.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5); // softmax output
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toMatch(/SIGTERM: finishing accepted requests/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('bad arguments exit 2 with a clear message', async () => {
    const run = promisify(execFile);
    const cases: Array<[string[], RegExp]> = [
      [['serve'], /serve needs --repository DIR/],
      [['serve', '--repository', '/nonexistent/models'], /model repository '\/nonexistent\/models' is not a folder/],
      [['serve', '--repository', repository(), '--port', 'eighty'], /--port takes a non-negative integer/],
      [['serve', '--repository', repository(), '--port', '70000'], /--port takes 0-65535/],
    ];
    for (const [args, pattern] of cases) {
      const result = await run(process.execPath, [bin, ...args], { cwd: repo, timeout: 60_000 }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code?: number; stderr?: string }) => ({ code: e.code, stderr: e.stderr ?? '' }),
      );
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(pattern);
      expect(result.stderr).not.toMatch(/unexpected error|    at /);
    }
  });
});
