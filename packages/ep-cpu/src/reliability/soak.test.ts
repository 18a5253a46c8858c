/**
 * Soak: sessions created and released over and over, and one session run thousands of times, on the
 * CPU EP with its oneDNN addon; resident memory (after a full GC) is sampled throughout. After a
 * warm-up, a least-squares line through the samples must not climb more than the noise allows: a leak
 * of a few hundred bytes per run or tens of KB per session shows up as a steady slope.
 *
 * Default (CI): 100 create/release cycles and 1,000 runs. SWITCHYARD_SOAK=1: 1,000 cycles and 10,000 runs.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { InferenceSession, encodeModel, type Tensor } from '@switchyard/core';
import { randomModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';

const FULL = process.env.SWITCHYARD_SOAK === '1';
const CYCLES = FULL ? 1000 : 100;
const RUNS = FULL ? 10_000 : 1000;
const SAMPLES = 30;
const MiB = 1024 ** 2;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function rss(): number {
  gc();
  gc();
  return process.memoryUsage().rss;
}

/** Slope (bytes per iteration) of the least-squares line through (iteration, rss) samples. */
function slope(samples: Array<[number, number]>): number {
  const n = samples.length;
  const mx = samples.reduce((s, [x]) => s + x, 0) / n;
  const my = samples.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of samples) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return num / den;
}

/** Samples RSS over `count` iterations of `step`, the first fifth being warm-up; returns the growth the trend projects over the rest. */
async function trend(count: number, step: (i: number) => Promise<void>): Promise<{ start: number; end: number; bytesPerIteration: number; projected: number }> {
  const warmup = Math.floor(count / 5);
  const every = Math.max(1, Math.floor((count - warmup) / SAMPLES));
  const samples: Array<[number, number]> = [];
  for (let i = 0; i < count; i++) {
    await step(i);
    if (i >= warmup && (i - warmup) % every === 0) samples.push([i, rss()]);
  }
  const s = slope(samples);
  return { start: samples[0][1], end: samples[samples.length - 1][1], bytesPerIteration: s, projected: s * (count - warmup) };
}

// A random graph with convolutions, matmuls and normalisations: native primitives made per session.
const MODEL_SEED = 8;
const modelBytes = encodeModel(randomModel(MODEL_SEED, { nodes: 16 }).model);
const feeds = randomModel(MODEL_SEED, { nodes: 16 }).feeds;

describe('soak (CPU EP)', () => {
  it(`${CYCLES} create/release cycles do not grow resident memory`, async () => {
    const cpu = new CpuExecutionProvider();
    const t = await trend(CYCLES, async () => {
      const s = await InferenceSession.create(modelBytes, { executionProviders: [cpu] });
      await s.run(feeds);
      await s.release();
    });
    console.log(`soak create/release: RSS ${(t.start / MiB).toFixed(1)} → ${(t.end / MiB).toFixed(1)} MiB, slope ${(t.bytesPerIteration / 1024).toFixed(2)} KiB/cycle`);
    // Noise (allocator caches, JIT) stays within a few MiB; a 20 KiB-per-session leak would exceed it.
    expect(t.projected).toBeLessThan(Math.max(8 * MiB, 0.05 * t.start));
  }, 600_000);

  it(`${RUNS} runs of one session do not grow resident memory`, async () => {
    const s = await InferenceSession.create(modelBytes, { executionProviders: [new CpuExecutionProvider()] });
    let last: Tensor | undefined;
    const t = await trend(RUNS, async () => {
      last = Object.values(await s.run(feeds))[0] as Tensor;
    });
    expect(last?.size).toBeGreaterThan(0);
    console.log(`soak runs: RSS ${(t.start / MiB).toFixed(1)} → ${(t.end / MiB).toFixed(1)} MiB, slope ${t.bytesPerIteration.toFixed(1)} B/run`);
    expect(t.projected).toBeLessThan(Math.max(8 * MiB, 0.05 * t.start));
    await s.release();
  }, 600_000);
});
