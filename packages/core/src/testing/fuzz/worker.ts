/**
 * The child side of a fuzz run: runs cases `from` to `to` (exclusive) of a seed in this process and
 * reports each on stdout, one line before it starts and one when it ends, written synchronously so a
 * native crash mid-case still leaves the parent knowing which case it was (see driver.ts).
 */
import { writeSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionProvider } from '../../ep/execution-provider.js';
import { fuzzCase } from './fuzz-case.js';
import { runFuzzCase, type CaseResult } from './run-case.js';

export interface WorkerRange {
  seed: number;
  from: number;
  to: number;
  maxTensorBytes: number;
  runTimeoutMs: number;
}

/** The range a worker was started for, from the environment the driver sets. */
export function workerRangeFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerRange {
  const num = (name: string) => {
    const v = Number(env[name]);
    if (!Number.isFinite(v)) throw new Error(`fuzz worker: ${name} is not set to a number`);
    return v;
  };
  return { seed: num('FUZZ_SEED'), from: num('FUZZ_FROM'), to: num('FUZZ_TO'), maxTensorBytes: num('FUZZ_MAX_TENSOR_BYTES'), runTimeoutMs: num('FUZZ_RUN_TIMEOUT_MS') };
}

function line(text: string): void {
  writeSync(1, `${text}\n`);
}

/** Encodes a result as one protocol line: `done <index> <verdict> <code> <ms> <kind> <json detail>`. */
export function resultLine(index: number, kind: string, r: CaseResult, ms: number): string {
  const detail = r.verdict === 'failure' ? JSON.stringify(r.detail?.slice(0, 4000) ?? '') : '""';
  return `done ${index} ${r.verdict} ${r.code ?? '-'} ${ms.toFixed(1)} ${kind} ${detail}`;
}

export async function runFuzzWorker(providers: () => ExecutionProvider[], range: WorkerRange = workerRangeFromEnv()): Promise<void> {
  const workDir = join(tmpdir(), `switchyard-fuzz-${process.pid}`);
  mkdirSync(workDir, { recursive: true });
  for (let index = range.from; index < range.to; index++) {
    line(`start ${index}`);
    const started = performance.now();
    let kind = 'unknown';
    let result: CaseResult;
    try {
      const c = fuzzCase(range.seed, index, join(workDir, 'case'));
      kind = c.kind;
      result = await runFuzzCase(c, { providers, maxTensorBytes: range.maxTensorBytes, runTimeoutMs: range.runTimeoutMs, workDir });
    } catch (err) {
      // The harness itself failed (a case it could not build): reported, never hidden.
      result = { verdict: 'failure', code: 'harness', detail: err instanceof Error ? err.stack : String(err) };
    }
    line(resultLine(index, kind, result, performance.now() - started));
  }
  line('finished');
}
