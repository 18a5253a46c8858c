/**
 * float16 test models and comparisons, for the float16-in-float32 tests only (not exported).
 *
 * Tolerances. At 'disabled' and 'basic' every float16 op rounds its output to float16 (relative
 * step 2^-11 at worst, 2^-10 between neighbours); from 'extended' on, regions compute in float32 and
 * round once where float16 is read again. Two such results differ by a few float16 steps per op on
 * the path, relative to the values the ops combined, not to the (possibly cancelled) result; so an
 * element is compared as |a − e| ≤ k · 2^-10 · (|e| + rms(e)), the output's rms standing in for the
 * scale of its terms. k is chosen per comparison (and says how far apart the two sides may be).
 */
import { expect } from 'vitest';
import { InferenceSession, Tensor, float16ToFloat32Array, float32ToFloat16Array, type GraphOptimizationLevel, type Model } from '@switchyard/core';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { values } from './test-models.test-util.js';

export const LEVELS: readonly GraphOptimizationLevel[] = ['disabled', 'basic', 'extended', 'all'];

/** float16 of deterministic values in [lo, hi). */
export function half(dims: number[], seed: number, lo = -1, hi = 1): Tensor<'float16'> {
  const v = values(dims.reduce((a, b) => a * b, 1), seed, lo, hi);
  const bits = new Uint16Array(v.length);
  float32ToFloat16Array(v, bits);
  return new Tensor('float16', bits, dims);
}

/** Conv weights as float16, He-style bounds (sqrt(3 / fan-in)) so activations keep their scale. */
export function halfConvWeights(dims: number[], seed: number): Tensor<'float16'> {
  const bound = Math.sqrt(3 / dims.slice(1).reduce((a, b) => a * b, 1));
  return half(dims, seed, -bound, bound);
}

/** A float tensor's elements as float32 (float16 widened, float64 narrowed). */
export function asFloat32(t: Tensor): Float32Array {
  if (t.type === 'float16') {
    const out = new Float32Array(t.size);
    float16ToFloat32Array(t.data as Uint16Array, out);
    return out;
  }
  if (t.type === 'float32') return t.data as Float32Array;
  if (t.type === 'float64') return Float32Array.from(t.data as Float64Array);
  throw new Error(`not a float tensor: ${t.type}`);
}

/** max over elements of |a − e| / (2^-10 · (|e| + rms(e))): how many float16 steps apart a and e are. */
export function float16Steps(actual: Tensor, expected: Tensor): number {
  expect(actual.dims).toEqual(expected.dims);
  const a = asFloat32(actual);
  const e = asFloat32(expected);
  let sq = 0;
  for (const v of e) sq += v * v;
  const rms = Math.sqrt(sq / Math.max(e.length, 1));
  let worst = 0;
  for (let i = 0; i < e.length; i++) {
    const d = Math.abs(a[i] - e[i]) / (2 ** -10 * (Math.abs(e[i]) + rms));
    if (!(d <= Number.MAX_VALUE)) return Infinity; // NaN on either side
    worst = Math.max(worst, d);
  }
  return worst;
}

export interface LevelRun {
  level: GraphOptimizationLevel;
  outputs: Record<string, Tensor>;
  /** `domain::opType` (default domain bare) of every placed node, in order. */
  ops: string[];
  /** `opType:implementation` of every placed node. */
  placed: string[];
  /** The CPU passes that changed something. */
  fired: string[];
  /** Element types of every placed node's present inputs, by node, in order. */
  inputTypes: string[][];
}

/** Runs a fresh session per level on the CPU EP (with the addon when it loads, unless told not to). */
export async function runAtLevel(
  model: () => Model | Uint8Array,
  feeds: Record<string, Tensor>,
  level: GraphOptimizationLevel,
  options: { useNative?: boolean; providers?: Array<string | object> } = {},
): Promise<LevelRun> {
  const cpu = new CpuExecutionProvider({ useNative: options.useNative, smallOpsInTs: false });
  const m = model();
  const sessionOptions = { executionProviders: [...(options.providers ?? []), cpu] as never, graphOptimizationLevel: level };
  const session = m instanceof Uint8Array ? await InferenceSession.create(m, sessionOptions) : await InferenceSession.fromModel(m, sessionOptions);
  try {
    const outputs = (await session.run(feeds)) as Record<string, Tensor>;
    const graph = session.model.graph;
    const types = new Map(graph.nodes.map((n) => [n.name, n.inputs.filter((i) => i).map((i) => graph.elemTypeOf(i) ?? '?')]));
    return {
      level,
      outputs,
      ops: session.placement.nodes.map((n) => (n.domain ? `${n.domain}::${n.opType}` : n.opType)),
      placed: session.placement.nodes.map((n) => `${n.opType}:${n.implementation}`),
      fired: session.optimization.report.passes.filter((p) => p.name.startsWith('cpu:') && p.count > 0).map((p) => p.name),
      inputTypes: session.placement.nodes.map((n) => types.get(n.name) ?? []),
    };
  } finally {
    await session.release();
  }
}

/** The largest float16-step distance over every output of two runs. */
export function stepsApart(a: LevelRun, b: LevelRun): number {
  return Math.max(...Object.keys(b.outputs).map((name) => float16Steps(a.outputs[name], b.outputs[name])));
}
