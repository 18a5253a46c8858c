/**
 * One model case on the CPU EP in a child process (run-case-child.ts) with a time bound, for models
 * the EP may take hopelessly long on or crash on: the child is killed at the bound, or dies alone,
 * and the caller learns which, rather than the test run hanging on a TypeScript kernel or dying
 * with a native fault.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tensor, type DataType, type GraphOptimizationLevel } from '@switchyard/core';
import type { ChildRequest } from './run-case-child.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./run-case-child.ts', import.meta.url));

export type BoundedOutcome =
  | { kind: 'ok'; ms: number; outputs: Record<string, Tensor> }
  | { kind: 'error'; ms: number; message: string }
  | { kind: 'crash'; ms: number; signal: string }
  | { kind: 'timeout'; ms: number };

const ARRAYS = { float32: Float32Array, int64: BigInt64Array } as const;

/** The outcome in words, for messages and the results table. */
export function describeOutcome(outcome: BoundedOutcome): string {
  const s = (outcome.ms / 1000).toFixed(1);
  if (outcome.kind === 'timeout') return `no result within ${s} s`;
  if (outcome.kind === 'crash') return `the process died of ${outcome.signal} after ${s} s`;
  if (outcome.kind === 'error') return outcome.message;
  return `ran in ${s} s`;
}

export function runCaseBounded(model: string, level: GraphOptimizationLevel, inputs: Record<string, string>, timeoutMs: number): Promise<BoundedOutcome> {
  const outDir = mkdtempSync(join(tmpdir(), 'switchyard-real-model-'));
  const requestFile = join(outDir, 'request.json');
  writeFileSync(requestFile, JSON.stringify({ model, level, inputs, outDir } satisfies ChildRequest));
  const started = performance.now();
  return new Promise<BoundedOutcome>((resolve) => {
    // tsx resolves @switchyard/* through the root tsconfig's paths: the child runs the sources, as vitest does.
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, requestFile], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      try {
        if (timedOut) resolve({ kind: 'timeout', ms });
        else if (signal) resolve({ kind: 'crash', ms, signal });
        else if (code !== 0) resolve({ kind: 'error', ms, message: lastError(stderr) ?? `exit ${code ?? signal}` });
        else resolve({ kind: 'ok', ms, outputs: readOutputs(outDir) });
      } finally {
        rmSync(outDir, { recursive: true, force: true });
      }
    });
  });
}

function readOutputs(outDir: string): Record<string, Tensor> {
  const meta = JSON.parse(readFileSync(join(outDir, 'outputs.json'), 'utf8')) as Record<string, { type: DataType; dims: number[]; file: string }>;
  const outputs: Record<string, Tensor> = {};
  for (const [name, { type, dims, file }] of Object.entries(meta)) {
    const Ctor = ARRAYS[type as keyof typeof ARRAYS];
    if (!Ctor) throw new Error(`child output ${name}: type ${type} not handled here`);
    outputs[name] = new Tensor(type, new Ctor(new Uint8Array(readFileSync(join(outDir, file))).buffer), dims);
  }
  return outputs;
}

/** The error line of a Node stack trace on stderr ("SwitchyardError: …"), else the last line. */
function lastError(stderr: string): string | undefined {
  const lines = stderr.trim().split('\n');
  return lines.find((l) => /^\w*Error\b/.test(l.trim())) ?? lines.pop();
}
