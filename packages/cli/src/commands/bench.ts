/**
 * `switchyard bench MODEL --ep … [--compare cpu] [--batch 1,8,32] [--iterations N] [--warmup N] [--json]`:
 * creation broken into T_parse / T_providers / T_optimize / T_prepare, then per batch size p50/p90 of
 * the run and its mean split into T_exec + T_copy + T_other, the speedup over the compared EP list, and
 * where throughput stops growing.
 */
import { InferenceSession, type CreationTimings, type SessionOptions, type Tensor, type ValueMetadata } from '@switchyard/core';
import { CliError } from '../cli-error.js';
import { resolveEpSpecs } from '../ep-options.js';
import { feedsFor } from '../feeds.js';
import { formatBench } from '../format/bench.js';
import { Progress } from '../progress.js';
import { finishProfile, sessionOptionsFrom, type SessionArgs } from '../session-args.js';
import { percentile } from './run.js';

export interface BenchArgs extends SessionArgs {
  model: string;
  compare?: string[];
  batches?: number[];
  iterations: number;
  warmup: number;
  inputs: string[];
  json: boolean;
}

export interface LatencyStats {
  p50: number;
  p90: number;
  mean: number;
  /** Means of the run's phases; exec + copy + other = mean. */
  exec: number;
  copy: number;
  other: number;
  copies: number;
}

export interface BatchResult {
  batch: number;
  latencyMs: LatencyStats;
  /** Samples per second at the p50 latency. */
  throughput: number;
  compare?: { latencyMs: LatencyStats; throughput: number; speedup: number };
}

export interface BenchReport {
  model: string;
  eps: string[];
  compareEps?: string[];
  iterations: number;
  warmup: number;
  creationMs: CreationTimings;
  compareCreationMs?: CreationTimings;
  batches: BatchResult[];
  /** The batch beyond which throughput grows less than 10% per doubling (absent when it never slows so, or with one batch). */
  knee?: number;
}

/** Growth per doubling below this marks the knee. */
export const KNEE_GROWTH = 0.1;

/** The last batch before throughput growth per doubling drops under KNEE_GROWTH. */
export function findKnee(points: ReadonlyArray<{ batch: number; throughput: number }>): number | undefined {
  for (let i = 1; i < points.length; i++) {
    const doublings = Math.log2(points[i].batch / points[i - 1].batch);
    if (doublings <= 0) continue;
    const growth = Math.pow(points[i].throughput / points[i - 1].throughput, 1 / doublings) - 1;
    if (growth < KNEE_GROWTH) return points[i - 1].batch;
  }
  return undefined;
}

function checkBatchable(inputs: readonly ValueMetadata[], batches: readonly number[]): void {
  for (const m of inputs) {
    const lead = m.shape?.[0];
    if (typeof lead === 'number' && lead >= 0 && batches.some((b) => b !== lead)) {
      throw new CliError(`--batch: input '${m.name}' has a fixed leading dim ${lead}; a batch sweep needs a symbolic batch dim`);
    }
  }
}

async function measure(session: InferenceSession, feeds: Record<string, Tensor>, args: BenchArgs, progress: Progress, label: string): Promise<LatencyStats> {
  for (let i = 0; i < args.warmup; i++) {
    await session.run(feeds);
    progress.update(`${label}: warm-up ${i + 1}/${args.warmup}`);
  }
  const totals: number[] = [];
  const sum = { exec: 0, copy: 0, other: 0, copies: 0 };
  for (let i = 0; i < args.iterations; i++) {
    const { timings } = await session.runWithTimings(feeds);
    totals.push(timings.totalMs);
    sum.exec += timings.execMs;
    sum.copy += timings.copyMs;
    sum.other += timings.otherMs;
    sum.copies += timings.copies;
    progress.update(`${label}: run ${i + 1}/${args.iterations}`);
  }
  const n = totals.length;
  const mean = totals.reduce((a, b) => a + b, 0) / n;
  totals.sort((a, b) => a - b);
  return { p50: percentile(totals, 50), p90: percentile(totals, 90), mean, exec: sum.exec / n, copy: sum.copy / n, other: sum.other / n, copies: sum.copies / n };
}

export async function benchCommand(args: BenchArgs): Promise<void> {
  if (args.iterations < 1) throw new CliError('--iterations must be at least 1');
  const { options, names } = sessionOptionsFrom(args);
  const compare = args.compare?.length ? resolveEpSpecs(args.compare, undefined) : undefined;
  const progress = new Progress(true);
  const session = await InferenceSession.create(args.model, options);
  let other: InferenceSession | undefined;
  try {
    const batches = args.batches ?? [undefined];
    if (args.batches) checkBatchable(session.inputMetadata, args.batches);
    if (compare) {
      const compareOptions: SessionOptions = { ...options, executionProviders: compare.configs, optimizedModelFilePath: undefined, enableProfiling: false };
      other = await InferenceSession.create(args.model, compareOptions);
    }
    const results: BatchResult[] = [];
    for (const b of batches) {
      const feeds = feedsFor(session.inputMetadata, args.inputs, { batch: b });
      const batch = b ?? leadingDim(feeds);
      const latencyMs = await measure(session, feeds, args, progress, `batch ${batch} on ${names.join(',')}`);
      const result: BatchResult = { batch, latencyMs, throughput: (batch * 1000) / latencyMs.p50 };
      if (other) {
        const c = await measure(other, feeds, args, progress, `batch ${batch} on ${compare!.names.join(',')}`);
        result.compare = { latencyMs: c, throughput: (batch * 1000) / c.p50, speedup: c.p50 / latencyMs.p50 };
      }
      results.push(result);
    }
    progress.done();
    finishProfile(session, args.profile);
    const report: BenchReport = {
      model: args.model,
      eps: names,
      compareEps: compare?.names,
      iterations: args.iterations,
      warmup: args.warmup,
      creationMs: session.creationTimings,
      compareCreationMs: other?.creationTimings,
      batches: results,
      knee: args.batches && args.batches.length > 1 ? findKnee(results) : undefined,
    };
    process.stdout.write((args.json ? JSON.stringify(report, null, 2) : formatBench(report, session.placement)) + '\n');
    if (!args.json && args.profile) process.stdout.write(`Profile: ${args.profile}\n`);
  } finally {
    progress.done();
    await session.release();
    await other?.release();
  }
}

/** The batch a run without --batch has: the first feed's leading dim (1 for scalars). */
function leadingDim(feeds: Record<string, Tensor>): number {
  const first = Object.values(feeds)[0];
  return first?.dims[0] ?? 1;
}
