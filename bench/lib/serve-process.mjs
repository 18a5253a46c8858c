/**
 * Helpers for benchmarks that run `switchyard serve` in processes of their own (bench/serve.mjs on the
 * CPU, scripts/gpu-host/serve-pool.mjs on the GPU host): a one-model repository, and a server process
 * started and waited for until it prints the URL it listens on.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

/** A temporary Triton-layout repository: `<root>/<name>/1/model.onnx` (a link to `modelFile`) and its config.json. */
export function oneModelRepository(name, modelFile, config) {
  const root = mkdtempSync(join(os.tmpdir(), 'sy-bench-serve-'));
  mkdirSync(join(root, name, '1'), { recursive: true });
  symlinkSync(modelFile, join(root, name, '1', 'model.onnx'));
  writeFileSync(join(root, name, 'config.json'), JSON.stringify(config));
  return root;
}

/** Spawns `node args…` and resolves with the child and the URL once it prints `listening on http://…`; rejects if it exits first. */
export async function spawnServer(label, args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`${label} server exited (${code}): ${stderr}`)));
  });
  return { child, url };
}
