/**
 * The parent side of a fuzz run: splits the cases over worker processes, watches each worker's case
 * lines, its time per case and its resident memory, and turns every way a worker can die — a native
 * crash (signal or exit), a case past its time bound, memory past the limit — into a failure naming
 * the seed and case index. The worker is then restarted after that case, so one bad case costs one case.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fuzzCase } from './fuzz-case.js';

export interface FuzzDriverOptions {
  /** The worker command (e.g. `[process.execPath, '--import', 'tsx', 'worker.ts']`); it must call runFuzzWorker. */
  worker: readonly string[];
  seed: number;
  /** Cases to run, numbered `first` to `first + cases - 1`. */
  cases: number;
  first?: number;
  /** Worker processes in parallel (default 2). */
  workers?: number;
  /** A case (session creation and run) that takes longer is a hang (default 20 s). */
  caseTimeoutMs?: number;
  /** runOptions.timeoutMs inside each case (default 3 s). */
  runTimeoutMs?: number;
  /** SessionOptions.maxTensorBytes of each case (default 64 MiB). */
  maxTensorBytes?: number;
  /** A worker whose resident memory passes this is killed, and its case fails (default 2 GiB). */
  memoryLimitBytes?: number;
  /** Called with every finished case (progress reports). */
  onCase?: (index: number, verdict: string) => void;
  cwd?: string;
}

export interface FuzzFailure {
  index: number;
  kind: string;
  /** untyped, unchecked, internal, bad-output, wrong, harness; or crash, hang, memory. */
  code: string;
  what: string;
  detail: string;
}

export interface FuzzSummary {
  seed: number;
  cases: number;
  ok: number;
  /** Cases that ended in a typed error, by code. */
  errors: Record<string, number>;
  /** Cases by kind (what the generator made). */
  kinds: Record<string, number>;
  failures: FuzzFailure[];
  /** Workers started (one per range, plus one per crash, hang or memory kill). */
  workerStarts: number;
  /** The worker's largest resident memory seen (bytes). */
  peakRssBytes: number;
  ms: number;
  /** The slowest cases, for tuning the bound: [index, ms]. */
  slowest: Array<[number, number]>;
}

function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function describeCase(seed: number, index: number): { kind: string; what: string } {
  try {
    const c = fuzzCase(seed, index, join(tmpdir(), 'switchyard-fuzz-describe'));
    return { kind: c.kind, what: c.what };
  } catch (err) {
    return { kind: 'unknown', what: `(could not rebuild the case: ${(err as Error).message})` };
  }
}

export async function runFuzz(options: FuzzDriverOptions): Promise<FuzzSummary> {
  const started = performance.now();
  const first = options.first ?? 0;
  const workers = Math.max(1, Math.min(options.workers ?? 2, options.cases));
  const caseTimeoutMs = options.caseTimeoutMs ?? 20_000;
  const memoryLimit = options.memoryLimitBytes ?? 2 * 1024 ** 3;
  const summary: FuzzSummary = { seed: options.seed, cases: 0, ok: 0, errors: {}, kinds: {}, failures: [], workerStarts: 0, peakRssBytes: 0, ms: 0, slowest: [] };

  const fail = (index: number, code: string, detail: string, kind?: string) => {
    const d = describeCase(options.seed, index);
    summary.failures.push({ index, kind: kind ?? d.kind, code, what: d.what, detail });
  };

  /** Runs [from, to) in workers, restarting after each case that kills one. */
  async function runRange(from: number, to: number): Promise<void> {
    let next = from;
    while (next < to) {
      next = await runWorker(next, to);
    }
  }

  /** One worker process from `from`; resolves with the index to continue at. */
  function runWorker(from: number, to: number): Promise<number> {
    summary.workerStarts++;
    const [cmd, ...args] = options.worker;
    const child: ChildProcess = spawn(cmd, args, {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        FUZZ_SEED: String(options.seed),
        FUZZ_FROM: String(from),
        FUZZ_TO: String(to),
        FUZZ_MAX_TENSOR_BYTES: String(options.maxTensorBytes ?? 64 * 1024 ** 2),
        FUZZ_RUN_TIMEOUT_MS: String(options.runTimeoutMs ?? 3_000),
      },
    });
    let current: number | undefined;
    let caseStarted = 0;
    let killedFor: 'hang' | 'memory' | undefined;
    let pending = '';
    let stderr = '';
    let finished = false;
    let resume = from;
    const startupBound = performance.now() + 120_000;

    const onLine = (text: string) => {
      if (text === 'finished') {
        finished = true;
        return;
      }
      const start = /^start (\d+)$/.exec(text);
      if (start) {
        current = Number(start[1]);
        caseStarted = performance.now();
        return;
      }
      const done = /^done (\d+) (\w+) (\S+) ([\d.]+) (\S+) (.*)$/.exec(text);
      if (!done) return;
      const [, idx, verdict, code, ms, kind, detail] = done;
      const index = Number(idx);
      summary.cases++;
      summary.kinds[kind] = (summary.kinds[kind] ?? 0) + 1;
      if (verdict === 'ok') summary.ok++;
      else if (verdict === 'error') summary.errors[code] = (summary.errors[code] ?? 0) + 1;
      else fail(index, code, JSON.parse(detail) as string, kind);
      summary.slowest.push([index, Number(ms)]);
      if (summary.slowest.length > 20) summary.slowest = summary.slowest.sort((a, b) => b[1] - a[1]).slice(0, 10);
      current = undefined;
      resume = index + 1;
      options.onCase?.(index, verdict);
    };

    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        onLine(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });

    const watch = setInterval(() => {
      const rss = child.pid ? rssOf(child.pid) : 0;
      summary.peakRssBytes = Math.max(summary.peakRssBytes, rss);
      const now = performance.now();
      if (rss > memoryLimit) killedFor = 'memory';
      else if (current !== undefined && now - caseStarted > caseTimeoutMs) killedFor = 'hang';
      else if (current === undefined && resume === from && now > startupBound) killedFor = 'hang';
      if (killedFor) {
        clearInterval(watch);
        child.kill('SIGKILL');
      }
    }, 100);

    return new Promise((resolve) => {
      child.on('close', (code, signal) => {
        clearInterval(watch);
        if (pending) onLine(pending);
        if (finished && code === 0) return resolve(to);
        // The worker died: the case it had started is the culprit (or, before any, its start-up).
        const culprit = current ?? resume;
        if (killedFor === 'memory') fail(culprit, 'memory', `resident memory passed ${memoryLimit} bytes`);
        else if (killedFor === 'hang') fail(culprit, 'hang', `no result within ${caseTimeoutMs} ms`);
        else fail(culprit, 'crash', `worker exited with ${signal ? `signal ${signal}` : `code ${code}`}\n${stderr}`);
        if (current === undefined && resume === from) {
          // It never got to a case: every restart would fail the same way.
          summary.failures[summary.failures.length - 1].detail = `the worker did not start: ${summary.failures[summary.failures.length - 1].detail}`;
          return resolve(to);
        }
        summary.cases++;
        resolve(culprit + 1);
      });
    });
  }

  const per = Math.ceil(options.cases / workers);
  const ranges: Array<Promise<void>> = [];
  for (let w = 0; w < workers; w++) {
    const from = first + w * per;
    const to = Math.min(first + options.cases, from + per);
    if (from < to) ranges.push(runRange(from, to));
  }
  await Promise.all(ranges);
  summary.failures.sort((a, b) => a.index - b.index);
  summary.slowest = summary.slowest.sort((a, b) => b[1] - a[1]).slice(0, 10);
  summary.ms = performance.now() - started;
  return summary;
}

/** A one-paragraph account of a run, with the command line that replays each failure. */
export function formatFuzzSummary(s: FuzzSummary, replay: (seed: number, index: number) => string): string {
  const lines = [
    `fuzz seed ${s.seed}: ${s.cases} cases in ${(s.ms / 1000).toFixed(1)} s — ${s.ok} ran, ${Object.values(s.errors).reduce((a, b) => a + b, 0)} typed errors, ${s.failures.length} failures; peak worker RSS ${(s.peakRssBytes / 1024 ** 2).toFixed(0)} MiB`,
    `  typed errors: ${Object.entries(s.errors)
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ${n}`)
      .join(', ')}`,
    `  kinds: ${Object.entries(s.kinds)
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ${n}`)
      .join(', ')}`,
  ];
  for (const f of s.failures) lines.push(`  FAIL case ${f.index} (${f.kind}) ${f.code}: ${f.what}\n    ${f.detail.split('\n').slice(0, 6).join('\n    ')}\n    replay: ${replay(s.seed, f.index)}`);
  return lines.join('\n');
}
