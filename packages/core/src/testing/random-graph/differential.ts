/**
 * Differential testing of optimization levels: one model run at 'disabled' (the reference: the graph
 * as written) and at each other level on the same execution providers; every output must agree.
 * Exact outputs (integers, float16, moved elements) must match bit for bit; other float outputs
 * within `tolerance` of the output's scale, since fusions legitimately round differently.
 */
import type { ExecutionProvider } from '../../ep/execution-provider.js';
import { encodeModel } from '../../onnx/index.js';
import type { GraphOptimizationLevel } from '../../optimize/types.js';
import type { RuntimeValue } from '../../registry/kernel-def.js';
import { InferenceSession } from '../../session/inference-session.js';
import type { SessionOptions } from '../../session/session-options.js';
import { float16BitsToFloat32 } from '../../tensor/float16.js';
import { Tensor } from '../../tensor/tensor.js';
import { compareTensors } from '../compare.js';
import type { RandomModel } from './random-model.js';

export interface DifferentialOptions {
  /** Fresh execution providers for each session. */
  providers: () => ExecutionProvider[];
  /** Levels compared with 'disabled' (default 'basic', 'extended', 'all'). */
  levels?: ReadonlyArray<Exclude<GraphOptimizationLevel, 'disabled'>>;
  /** Allowed difference of inexact float outputs, relative to 1 + the output's largest magnitude. */
  tolerance: number;
  /** Load from encoded bytes (the loader sorts the nodes) instead of `InferenceSession.fromModel`. */
  viaBytes?: boolean;
  sessionOptions?: Omit<SessionOptions, 'executionProviders' | 'graphOptimizationLevel'>;
}

export interface DifferentialResult {
  /** What disagreed or failed, one line each; empty when every level agreed. */
  problems: string[];
  /** Passes that changed something, over every level. */
  firedPasses: Set<string>;
  /** Nodes after optimization, per level (subgraphs included). */
  nodesAfter: Partial<Record<GraphOptimizationLevel, number>>;
  /** The largest difference seen in an inexact float output, relative to 1 + the output's largest magnitude. */
  worstRelativeDifference: number;
}

function floats(t: Tensor): ArrayLike<number> | undefined {
  if (t.type === 'float16') return Array.from(t.data as Uint16Array, float16BitsToFloat32);
  return t.type === 'float32' || t.type === 'float64' ? (t.data as Float32Array) : undefined;
}

function largestMagnitude(values: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < values.length; i++) if (Number.isFinite(values[i])) m = Math.max(m, Math.abs(values[i]));
  return m;
}

/** max |a − e| / (1 + max |e|) over the elements; 0 for non-float tensors or differing shapes. */
function relativeDifference(actual: Tensor, expected: Tensor): number {
  const a = floats(actual);
  const e = floats(expected);
  if (!a || !e || a.length !== e.length) return 0;
  let worst = 0;
  for (let i = 0; i < e.length; i++) if (Number.isFinite(e[i])) worst = Math.max(worst, Math.abs(a[i] - e[i]));
  return worst / (1 + largestMagnitude(e));
}

/**
 * The allowed difference of outputs computed through float16 arithmetic: a few float16 ulps (2^-10
 * relative) of the output's scale. An EP may compute float16 in float32 (dropping the rounding to
 * float16 between ops): each rounding it skips moves a value by at most half an ulp.
 */
export const FLOAT16_TOLERANCE = 8 * 2 ** -10;

/** Why `actual` does not match `expected`, or undefined when it does. */
export function compareOutput(actual: RuntimeValue | undefined, expected: RuntimeValue, exact: boolean, tolerance: number): string | undefined {
  if (!(expected instanceof Tensor) || !(actual instanceof Tensor)) return actual === expected ? undefined : 'not a tensor at both levels';
  if (exact) return compareTensors(actual, expected, { rtol: 0, atol: 0 });
  return compareTensors(actual, expected, { rtol: tolerance, atol: tolerance * (1 + largestMagnitude(floats(expected) ?? [])) });
}

/**
 * Runs `build()` (called once per session: sessions take their model over) at 'disabled' and at each
 * level, and compares the outputs.
 */
export async function compareOptimizationLevels(build: () => RandomModel, options: DifferentialOptions): Promise<DifferentialResult> {
  const levels = options.levels ?? ['basic', 'extended', 'all'];
  const result: DifferentialResult = { problems: [], firedPasses: new Set(), nodesAfter: {}, worstRelativeDifference: 0 };
  const bytes = options.viaBytes ? encodeModel(build().model) : undefined;
  const run = async (level: GraphOptimizationLevel) => {
    const random = build();
    const sessionOptions: SessionOptions = { ...options.sessionOptions, executionProviders: options.providers(), graphOptimizationLevel: level };
    const session = bytes ? await InferenceSession.create(bytes, sessionOptions) : await InferenceSession.fromModel(random.model, sessionOptions);
    try {
      const outputs = await session.run(random.feeds);
      const report = session.optimization.report;
      for (const p of report.passes) if (p.count > 0) result.firedPasses.add(p.name);
      result.nodesAfter[level] = report.nodesAfter;
      return { outputs, names: session.outputNames, exact: random.exactOutputs, float16: random.float16Outputs };
    } finally {
      await session.release();
    }
  };
  let reference: Awaited<ReturnType<typeof run>>;
  try {
    reference = await run('disabled');
  } catch (e) {
    result.problems.push(`'disabled' (the reference) failed: ${e instanceof Error ? e.message : String(e)}`);
    return result;
  }
  for (const level of levels) {
    let got: Awaited<ReturnType<typeof run>>;
    try {
      got = await run(level);
    } catch (e) {
      result.problems.push(`'${level}' failed: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    for (const name of reference.names) {
      const [actual, expected] = [got.outputs[name], reference.outputs[name]];
      const viaFloat16 = reference.float16.has(name);
      if (actual instanceof Tensor && expected instanceof Tensor && !reference.exact.has(name) && !viaFloat16) {
        result.worstRelativeDifference = Math.max(result.worstRelativeDifference, relativeDifference(actual, expected));
      }
      const tolerance = viaFloat16 ? Math.max(options.tolerance, FLOAT16_TOLERANCE) : options.tolerance;
      const problem = compareOutput(actual, expected, reference.exact.has(name), tolerance);
      if (problem) result.problems.push(`'${level}' output '${name}'${reference.exact.has(name) ? ' (exact)' : ''}: ${problem}`);
    }
  }
  return result;
}
