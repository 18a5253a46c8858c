/**
 * Timing two engines in one process without one disturbing the other.
 *
 * onnxruntime's intra-op worker threads spin for tens of milliseconds after each run; on a 2-core
 * machine that spinning steals a core from whatever runs next. Alternating single runs would
 * charge ORT's spin to Switchyard, so we time interleaved BLOCKS (k runs of A, k runs of B, with
 * the order flipped every round), each after an untimed settle: a sleep that lets the spinning
 * stop, then a few untimed runs to bring the engine's caches back.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * @typedef {{ name: string, run: (feeds: unknown) => Promise<unknown>, feeds: unknown }} Contestant
 * @typedef {{ rounds: number, blockRuns: number, settleMs: number, settleRuns: number }} Schedule
 */

/**
 * Untimed runs: at least `n`, and more until `minMs` have passed (at most `maxRuns`); returns each
 * one's ms (the first is the cold run). A JIT-compiled runtime reaches its steady state only after
 * V8 has optimised its hot functions, which takes hundreds to thousands of calls of a small model (a
 * 30-node model measured 0.79 ms a run over its first 10 runs, 0.18 ms over runs 60-100, 0.11 ms after
 * 400; the demo's 8-node tiny-cnn ~90 us a run up to run 1,000, when V8 optimises the executor's loop
 * and each kernel's run, called once a run, and ~30-35 us from run ~1,750), so a fixed handful of
 * warm-up runs would time the interpreter, not the engine; both engines get the same rule. Throws
 * when the cold run took over `tooSlowMs`: timing an engine that needs minutes a run would hold the
 * bench for hours.
 */
export async function warmUp(c, n, tooSlowMs = Number.POSITIVE_INFINITY, minMs = 0, maxRuns = 5000) {
  const times = [];
  const start = performance.now();
  for (let i = 0; i < n || (performance.now() - start < minMs && i < maxRuns); i++) {
    const t = performance.now();
    await c.run(c.feeds);
    times.push(performance.now() - t);
    if (i === 0 && times[0] > tooSlowMs) {
      throw new Error(`too slow to time: the first run took ${(times[0] / 1000).toFixed(0)} s (limit ${(tooSlowMs / 1000).toFixed(0)} s)`);
    }
  }
  return times;
}

/**
 * The benches' warm-up rule, the same for every engine: at least 6 runs and 2 s (3 runs and 0.5 s with
 * `quick`), at most `warmUp`'s 5,000 runs.
 */
export function steadyWarmUp(c, quick, tooSlowMs = Number.POSITIVE_INFINITY) {
  return quick ? warmUp(c, 3, tooSlowMs, 500) : warmUp(c, 6, tooSlowMs, 2000);
}

/**
 * Picks the block length from the warm-up: about `targetBlockMs` of the slower engine per block,
 * clamped, and the same for both so they get the same number of samples.
 */
export function planSchedule(slowestRunMs, quick) {
  const targetBlockMs = quick ? 300 : 1500;
  const maxRuns = quick ? 10 : 25;
  const blockRuns = Math.max(2, Math.min(maxRuns, Math.ceil(targetBlockMs / Math.max(slowestRunMs, 1e-3))));
  return { rounds: quick ? 3 : 8, blockRuns, settleMs: 100, settleRuns: 2 };
}

/**
 * Times the contestants in interleaved blocks. Event-loop delay is sampled only while a block is
 * timed, so it shows how long each engine holds the loop.
 * @param {Contestant[]} contestants
 * @param {Schedule} schedule
 */
export async function timeInterleaved(contestants, schedule) {
  const samples = new Map(contestants.map((c) => [c.name, []]));
  const loopDelays = new Map(contestants.map((c) => [c.name, []]));
  for (let round = 0; round < schedule.rounds; round++) {
    const order = round % 2 === 0 ? contestants : [...contestants].reverse();
    for (const c of order) {
      await sleep(schedule.settleMs);
      for (let i = 0; i < schedule.settleRuns; i++) await c.run(c.feeds);
      // A fresh monitor per block: one re-enabled after disable() counts the whole pause since
      // its last tick as a single late tick (hundreds of ms that no run caused).
      const histogram = monitorEventLoopDelay({ resolution: 1 });
      histogram.enable();
      for (let i = 0; i < schedule.blockRuns; i++) {
        const t = performance.now();
        await c.run(c.feeds);
        samples.get(c.name).push(performance.now() - t);
      }
      histogram.disable();
      loopDelays.get(c.name).push(histogram);
    }
  }
  const result = {};
  for (const c of contestants) result[c.name] = { ...summarize(samples.get(c.name)), eventLoopDelay: mergeLoopDelay(loopDelays.get(c.name)) };
  return result;
}

/**
 * Max and p99 over several event-loop-delay histograms (recorded in ns). Node cannot add an
 * event-loop histogram to another, so each block's distribution is expanded back into its ticks
 * from its percentile table, and the pooled ticks give the p99.
 */
function mergeLoopDelay(histograms) {
  const ticks = [];
  let max = 0;
  for (const h of histograms) {
    max = Math.max(max, h.count ? h.max : 0);
    const table = [...h.percentiles].sort((a, b) => a[0] - b[0]);
    for (let k = 0; k < h.count; k++) {
      const q = ((k + 0.5) / h.count) * 100;
      ticks.push((table.find(([p]) => p >= q) ?? table[table.length - 1])[1]);
    }
  }
  ticks.sort((a, b) => a - b);
  const p99 = ticks.length ? ticks[Math.min(ticks.length - 1, Math.ceil(0.99 * ticks.length) - 1)] : 0;
  // An empty histogram (no tick completed: every run shorter than the 1 ms resolution) reads 0.
  return { maxMs: max / 1e6, p99Ms: p99 / 1e6, ticks: ticks.length };
}

/** The `q` quantile (0..1, nearest rank) of `ms`; undefined when empty. */
export function percentile(ms, q) {
  if (ms.length === 0) return undefined;
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** p50/p90/min/mean of run times in ms. */
export function summarize(ms) {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    runs: sorted.length,
    p50Ms: percentile(sorted, 0.5),
    p90Ms: percentile(sorted, 0.9),
    minMs: sorted[0],
    meanMs: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}
