/**
 * The additive bias of ONNX Attention, one query row at a time: the attn_mask (bool: 0 / -∞; numeric:
 * its value; past its last dim: -∞), the causal frontier, the sliding window (opset 25) and the
 * padding after nonpad_kv_seqlen, summed. The causal and window rules are offset-aware (bottom-right):
 * query i sits at position i + offset, offset being the past length, or nonpad_kv_seqlen[b] − qLen for
 * an external cache.
 */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import { toNumbers } from '../math/numeric.js';
import { floatData } from './float-io.js';

export interface AttentionBiasSpec {
  batch: number;
  qHeads: number;
  qLen: number;
  kvLen: number;
  mask?: Tensor;
  causal: boolean;
  /** -1: unbounded. */
  leftWindow: number;
  rightWindow: number;
  pastLen: number;
  /** Valid keys per batch row (external cache), or undefined. */
  nonpad?: ArrayLike<number>;
}

/** The mask's values as additive biases, and its broadcast strides over [batch, qHeads, qLen, ·]. */
interface PreparedMask {
  values: Float64Array;
  strides: [number, number, number];
  width: number;
}

function prepareMask(label: string, mask: Tensor, spec: AttentionBiasSpec): PreparedMask {
  const dims = mask.dims;
  const shapeError = () =>
    new SwitchyardError(
      'INVALID_SHAPE',
      `${label}: attn_mask [${dims.join(', ')}] does not broadcast to [${spec.batch}, ${spec.qHeads}, ${spec.qLen}, ≤${spec.kvLen}]`,
    );
  if (dims.length < 1 || dims.length > 4) throw shapeError();
  const width = dims[dims.length - 1];
  if (width > spec.kvLen) throw shapeError();
  const lead = [spec.batch, spec.qHeads, spec.qLen];
  const padded = [...new Array<number>(4 - dims.length).fill(1), ...dims];
  const strides: [number, number, number] = [0, 0, 0];
  let stride = width;
  for (let a = 2; a >= 0; a--) {
    const d = padded[a];
    if (d !== 1 && d !== lead[a]) throw shapeError();
    strides[a] = d === 1 ? 0 : stride;
    stride *= d;
  }
  let values: Float64Array;
  if (mask.type === 'bool') {
    const bits = mask.data as Uint8Array;
    values = new Float64Array(bits.length);
    for (let i = 0; i < bits.length; i++) values[i] = bits[i] ? 0 : -Infinity;
  } else if (mask.type === 'float32' || mask.type === 'float64' || mask.type === 'float16' || mask.type === 'bfloat16') {
    values = Float64Array.from(floatData(mask));
  } else {
    values = Float64Array.from(toNumbers(mask));
  }
  return { values, strides, width };
}

/**
 * Validates the bias inputs and returns the row writer for `scaledDotProductAttention` (which
 * reports whether the row attends any key), or undefined when nothing biases the scores.
 */
export function attentionBias(label: string, spec: AttentionBiasSpec): ((b: number, h: number, i: number, row: Float64Array) => boolean) | undefined {
  const windowed = spec.leftWindow >= 0 || spec.rightWindow >= 0;
  if (!spec.mask && !spec.causal && !windowed && !spec.nonpad) return undefined;
  const mask = spec.mask ? prepareMask(label, spec.mask, spec) : undefined;
  const { kvLen, qLen, causal, leftWindow, rightWindow, pastLen, nonpad } = spec;
  return (b, h, i, row) => {
    if (mask) {
      const base = b * mask.strides[0] + h * mask.strides[1] + i * mask.strides[2];
      for (let j = 0; j < mask.width; j++) row[j] = mask.values[base + j];
      row.fill(-Infinity, mask.width, kvLen);
    } else {
      row.fill(0);
    }
    const offset = nonpad && pastLen === 0 ? nonpad[b] - qLen : pastLen;
    const position = i + offset;
    // Keys outside [lo, hi] are masked.
    let lo = 0;
    let hi = kvLen - 1;
    if (causal) hi = Math.min(hi, position);
    if (leftWindow >= 0) lo = Math.max(lo, position - leftWindow);
    if (rightWindow >= 0) hi = Math.min(hi, position + rightWindow);
    if (nonpad) hi = Math.min(hi, nonpad[b] - 1);
    if (lo > hi) {
      row.fill(-Infinity);
      return false;
    }
    row.fill(-Infinity, 0, lo);
    row.fill(-Infinity, hi + 1, kvLen);
    for (let j = lo; j <= hi; j++) if (row[j] !== -Infinity) return true;
    return false;
  };
}
