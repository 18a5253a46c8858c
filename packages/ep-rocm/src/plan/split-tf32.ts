/**
 * Large float32 products as "3xTF32" (the EP's fp32MatmulPrecision 'high'). A float32 x splits into
 * hi = tf32(x) and lo = tf32(x - hi), both exact in TF32, with x - hi - lo below about 2^-22 |x|. Then
 * A·B ≈ hi(A)·lo(B) + lo(A)·hi(B) + hi(A)·hi(B), with an error near fp32's own (~1e-6 relative per
 * product, where plain TF32 gives ~1e-4), and the three products are ONE GEMM over three times the
 * inner dimension, [hi(A) | lo(A) | hi(A)] · [lo(B); hi(B); hi(B)], which TF32 tensor cores run
 * without rounding a single input.
 *
 * On an H200 that GEMM takes 0.4x the time of plain fp32 for BERT-base's batch-32 Linear layers
 * ([4096 x 768] · [768 x 3072]: 167 vs 411 µs), and about the same for batch-1 ones, where the
 * split's extra kernel makes it a loss. So only products of at least MIN_SPLIT_MACS multiply-adds,
 * with both output sides at least 32, split.
 *
 * Here: a MatMul / MatMulBias step, or a Gemm that is a Linear layer, whose B is a float32 constant
 * [K, N] becomes MatMulSplitTf32 with B3 = [lo; hi; hi] computed once on the host (B itself is no
 * longer uploaded unless another step reads it). native-hip splits A into the step's workspace on
 * every run (kernels/split_tf32.hip).
 */
import { ONNX_DATA_TYPE } from '@switchyard/core';
import type { BufferRegion } from './nhwc-layout.js';
import type { PlanBuffer, PlanDescription, PlanStepDescription } from './plan-description.js';

/** Smallest product (M·N·K multiply-adds) that splits: 2^30, below which the split kernel costs what the tensor cores save. */
export const MIN_SPLIT_MACS = 2 ** 30;

export interface SplitParts {
  steps: PlanStepDescription[];
  buffers: PlanBuffer[];
  constants: PlanDescription['constants'];
  region: Map<number, BufferRegion>;
}

/** Splits a weight into [lo | hi | hi] (splitWeights, or native-hip's planSplitTf32). */
export type WeightSplitter = (weights: Float32Array) => Float32Array;

/** TF32 rounding of float32 bits: to nearest, ties to even, at 10 explicit mantissa bits; inf and NaN unchanged. */
function roundTf32Bits(u: number): number {
  return (u & 0x7f800000) === 0x7f800000 ? u : ((u + 0x0fff + ((u >>> 13) & 1)) & 0xffffe000) >>> 0;
}

const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);

/** x rounded to TF32, as native-hip's kernels/split_tf32.hip rounds it. */
export function roundTf32(x: number): number {
  scratch[0] = x;
  scratchBits[0] = roundTf32Bits(scratchBits[0]);
  return scratch[0];
}

/**
 * B3 = [lo(B); hi(B); hi(B)] of a row-major B (three flat copies): the constant side of a split
 * product. native-hip's planSplitTf32 does the same on a few threads, ~10x faster; this is the
 * fallback for builds without it (and the reference its test compares with).
 */
export function splitWeights(b: Float32Array): Float32Array {
  const size = b.length;
  const out = new Float32Array(3 * size);
  const bits = new Uint32Array(b.buffer, b.byteOffset, size);
  const outBits = new Uint32Array(out.buffer);
  for (let i = 0; i < size; i++) {
    const hi = roundTf32Bits(bits[i]);
    outBits[size + i] = hi;
    outBits[2 * size + i] = hi;
    out[i] = b[i] - out[size + i]; // exact: hi shares x's exponent range, so the difference fits a float32
    outBits[i] = roundTf32Bits(outBits[i]);
  }
  return out;
}

/** Bytes of workspace a MatMulSplitTf32 step needs: A3, rows(A) x 3K floats. */
export function splitWorkspaceBytes(step: PlanStepDescription, buffers: readonly PlanBuffer[]): number {
  if (step.op !== 'MatMulSplitTf32') return 0;
  const [k3] = buffers[step.inputs[1]].dims;
  const rows = buffers[step.inputs[0]].dims.reduce((a, b) => a * b, 1) / (k3 / 3);
  return rows * k3 * 4;
}

/** A Gemm step that is a Linear layer: no transposes, alpha 1, and C absent or a row bias with beta 1 (attrs [transA, transB, alpha, beta]). */
function plainGemm(s: PlanStepDescription, buffers: readonly PlanBuffer[]): boolean {
  if (s.op !== 'Gemm' || s.attrs[0] !== 0 || s.attrs[1] !== 0 || s.attrs[2] !== 1) return false;
  const c = s.inputs[2] ?? -1;
  if (c < 0) return true;
  const n = buffers[s.outputs[0]].dims[1];
  const cd = buffers[c].dims;
  return s.attrs[3] === 1 && cd.reduce((x, y) => x * y, 1) === n && cd[cd.length - 1] === n;
}

export function splitLargeMatMuls(parts: SplitParts, split: WeightSplitter = splitWeights): SplitParts | undefined {
  const { buffers, region } = parts;
  const data = new Map(parts.constants.map((c) => [c.buffer, c.data]));
  const readers = new Map<number, number>();
  for (const s of parts.steps) for (const id of s.inputs) if (id >= 0) readers.set(id, (readers.get(id) ?? 0) + 1);
  const buffersOut = [...buffers];
  const regionOut = new Map(region);
  const constants = [...parts.constants];
  const dropped = new Set<number>();
  let changed = false;
  const steps = parts.steps.map((s) => {
    if ((s.op !== 'MatMul' && s.op !== 'MatMulBias' && !plainGemm(s, buffers)) || s.inputs.length < 2) return s;
    const [a, b] = s.inputs;
    const w = data.get(b);
    const bd = buffers[b].dims;
    if (region.get(b) !== 'constant' || !(w instanceof Float32Array) || bd.length !== 2 || buffers[b].dtype !== ONNX_DATA_TYPE.float32) return s;
    const [k, n] = bd;
    const ad = buffers[a].dims;
    if (ad.length === 0 || ad[ad.length - 1] !== k || buffers[a].dtype !== ONNX_DATA_TYPE.float32) return s;
    const m = ad.reduce((x, y) => x * y, 1) / k;
    if (m < 32 || n < 32 || m * n * k < MIN_SPLIT_MACS) return s;
    buffersOut.push({ offset: -1, bytes: 3 * k * n * 4, dtype: ONNX_DATA_TYPE.float32, dims: [3 * k, n], name: `${buffers[b].name}:tf32x3` });
    const b3 = buffersOut.length - 1;
    regionOut.set(b3, 'constant');
    constants.push({ buffer: b3, data: split(w) });
    if (readers.get(b) === 1) dropped.add(b);
    changed = true;
    const bias = s.inputs.length > 2 && s.inputs[2] >= 0 ? [s.inputs[2]] : [];
    return { ...s, op: 'MatMulSplitTf32', attrs: [], inputs: [a, b3, ...bias] };
  });
  if (!changed) return undefined;
  // A weight only the split step read is neither uploaded nor laid out any more.
  for (const id of dropped) regionOut.set(id, 'temp');
  return { steps, buffers: buffersOut, constants: constants.filter((c) => !dropped.has(c.buffer)), region: regionOut };
}
