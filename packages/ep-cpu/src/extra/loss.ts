/**
 * The negative-log-likelihood core shared by NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss:
 * gathers -logProb[n, target, d] per sample, weights it, and reduces.
 */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import type { FloatArray } from '../nn/float-io.js';
import { indexAt, product, requireIndexTensor } from '../tensor-ops/indices.js';

export type LossReduction = 'none' | 'sum' | 'mean';

/** Reads and checks the `reduction` attribute's value. */
export function parseReduction(value: string, op: string): LossReduction {
  if (value === 'none' || value === 'sum' || value === 'mean') return value;
  throw new SwitchyardError('INVALID_MODEL', `${op}: reduction must be 'none', 'sum' or 'mean', got '${value}'`);
}

export interface NllInput {
  op: string;
  /** Log-probabilities laid out [N, C, d1, …, dk]. */
  logProb: FloatArray;
  dims: readonly number[];
  target: Tensor;
  weight?: FloatArray;
  /** Target value whose samples contribute nothing (neither loss nor weight). */
  ignoreIndex?: number;
  reduction: LossReduction;
}

export interface NllResult {
  values: Float64Array;
  dims: number[];
}

/** Checks that the target is [N, d1, …, dk] for an input [N, C, d1, …, dk], and the weight [C]. */
function checkShapes(op: string, dims: readonly number[], target: Tensor, weightLength: number | undefined): void {
  if (dims.length < 2) throw new SwitchyardError('INVALID_SHAPE', `${op}: input must have rank ≥ 2 ([N, C, …]), got [${dims.join(', ')}]`);
  requireIndexTensor(target, `${op} target`);
  const want = [dims[0], ...dims.slice(2)];
  if (target.dims.length !== want.length || target.dims.some((d, i) => d !== want[i])) {
    throw new SwitchyardError('INVALID_SHAPE', `${op}: target shape [${target.dims.join(', ')}] must be [${want.join(', ')}] for input [${dims.join(', ')}]`);
  }
  if (weightLength !== undefined && weightLength !== dims[1]) {
    throw new SwitchyardError('INVALID_SHAPE', `${op}: weight must have C = ${dims[1]} elements, got ${weightLength}`);
  }
}

/**
 * Per-sample loss = -logProb[n, c, d] · weight[c] (weight 1 without one), 0 for ignored samples.
 * Mean divides the summed loss by the summed weights of the counted samples, which without weights
 * is the count of samples not ignored (PyTorch's and the ONNX reference's definition); an all-ignored
 * batch gives 0/0 = NaN, as in both.
 */
export function negativeLogLikelihood(inp: NllInput): NllResult {
  const { op, logProb, dims, target, weight, ignoreIndex, reduction } = inp;
  checkShapes(op, dims, target, weight?.length);
  const N = dims[0];
  const C = dims[1];
  const D = product(dims, 2);
  const labels = target.data as ArrayLike<number | bigint>;
  const losses = new Float64Array(N * D);
  let lossSum = 0;
  let weightSum = 0;
  for (let n = 0; n < N; n++) {
    for (let d = 0; d < D; d++) {
      const i = n * D + d;
      const c = indexAt(labels, i);
      if (c === ignoreIndex) continue;
      if (!(c >= 0 && c < C)) {
        throw new SwitchyardError('RUNTIME', `${op}: target value ${c} at element ${i} is outside [0, ${C})${ignoreIndex === undefined ? '' : ` and is not ignore_index ${ignoreIndex}`}`);
      }
      const w = weight ? weight[c] : 1;
      const l = -logProb[(n * C + c) * D + d] * w;
      losses[i] = l;
      lossSum += l;
      weightSum += w;
    }
  }
  if (reduction === 'none') return { values: losses, dims: [...target.dims] };
  return { values: Float64Array.of(reduction === 'sum' ? lossSum : lossSum / weightSum), dims: [] };
}

/** log(softmax(x)) along axis 1 of [N, C, d1, …], computed stably (x − max − log Σ exp(x − max)). */
export function logSoftmaxAxis1(x: FloatArray, dims: readonly number[], out: FloatArray): void {
  const N = dims[0];
  const C = dims[1];
  const D = product(dims, 2);
  for (let n = 0; n < N; n++) {
    for (let d = 0; d < D; d++) {
      const base = n * C * D + d;
      let max = -Infinity;
      for (let c = 0; c < C; c++) max = Math.max(max, x[base + c * D]);
      let sum = 0;
      for (let c = 0; c < C; c++) sum += Math.exp(x[base + c * D] - max);
      const logSum = Math.log(sum) + max;
      for (let c = 0; c < C; c++) out[base + c * D] = x[base + c * D] - logSum;
    }
  }
}
