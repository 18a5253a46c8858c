/** Hand-built models and a disabled-vs-all comparison, for the fusion tests only (not exported). */
import { expect } from 'vitest';
import { InferenceSession, Tensor, type Model } from '@switchyard/core';
import { CpuExecutionProvider } from '../cpu-provider.js';

/** Deterministic values in [lo, hi). */
export function values(n: number, seed: number, lo = -1, hi = 1): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = lo + (s / 2 ** 32) * (hi - lo);
  }
  return out;
}

export function tensor(dims: number[], seed: number, lo = -1, hi = 1): Tensor<'float32'> {
  return new Tensor('float32', values(dims.reduce((a, b) => a * b, 1), seed, lo, hi), dims);
}

/**
 * Conv weights [M, C/group, ...kernel] with He-style uniform init (bound sqrt(3 / fan-in)), so
 * activations keep their scale through a chain of convolutions.
 */
export function convWeights(dims: number[], seed: number): Tensor<'float32'> {
  const fanIn = dims.slice(1).reduce((a, b) => a * b, 1);
  const bound = Math.sqrt(3 / fanIn);
  return tensor(dims, seed, -bound, bound);
}

export function scalar(v: number, dims: number[] = []): Tensor<'float32'> {
  return new Tensor('float32', Float32Array.of(v), dims);
}

export interface LevelComparison {
  /** The optimized session's nodes as `domain::opType` (default domain bare), in order. */
  ops: string[];
  /** Implementation per node of the optimized session (`ts`, `onednn`). */
  implementations: string[];
  /** Each node's `activation` attribute in the optimized graph ('' when it has none), in order. */
  activations: string[];
  /** Names of the passes that changed something. */
  fired: string[];
  maxAbsDiff: number;
}

/**
 * Runs a fresh copy of the model at 'disabled' and at 'all' on the CPU EP (native per `useNative`)
 * and checks every output agrees within `tol` (relative to 1 + |expected|).
 */
export async function compareLevels(
  build: () => Model,
  feeds: Record<string, Tensor>,
  options: { tol?: number; useNative?: boolean; intraOpNumThreads?: number } = {},
): Promise<LevelComparison> {
  const tol = options.tol ?? 1e-5;
  const provider = () => new CpuExecutionProvider({ useNative: options.useNative, smallOpsInTs: false });
  const reference = await InferenceSession.fromModel(build(), { executionProviders: [provider()], graphOptimizationLevel: 'disabled' });
  const optimized = await InferenceSession.fromModel(build(), {
    executionProviders: [provider()],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: options.intraOpNumThreads,
  });
  try {
    const expected = await reference.run(feeds);
    const actual = await optimized.run(feeds);
    let maxAbsDiff = 0;
    for (const name of reference.outputNames) {
      const e = expected[name] as Tensor;
      const a = actual[name] as Tensor;
      expect(a.dims, `output ${name} dims`).toEqual(e.dims);
      const ed = e.data as Float32Array;
      const ad = a.data as Float32Array;
      for (let i = 0; i < ed.length; i++) {
        const diff = Math.abs(ad[i] - ed[i]);
        maxAbsDiff = Math.max(maxAbsDiff, diff);
        if (!(diff <= tol * (1 + Math.abs(ed[i])))) throw new Error(`output ${name}[${i}]: ${ad[i]} at 'all', ${ed[i]} at 'disabled'`);
      }
    }
    return {
      ops: optimized.placement.nodes.map((n) => (n.domain ? `${n.domain}::${n.opType}` : n.opType)),
      implementations: optimized.placement.nodes.map((n) => n.implementation),
      activations: optimized.model.graph.nodes.map((n) => {
        const a = n.attributes.get('activation');
        return a?.type === 'string' ? a.value : '';
      }),
      fired: optimized.optimization.report.passes.filter((p) => p.name.startsWith('cpu:') && p.count > 0).map((p) => p.name),
      maxAbsDiff,
    };
  } finally {
    await reference.release();
    await optimized.release();
  }
}
