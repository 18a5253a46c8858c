/**
 * Scaled dot-product attention on head-major float data, one query row at a time, so memory stays
 * O(keys) per row instead of O(queries · keys) per head. Shared by ONNX Attention (which supplies
 * an additive bias row: mask, causal frontier, window, padding) and FlexAttention's score path.
 *
 * Scores, softmax and the weighted sum are accumulated in float64 whatever the tensors' type:
 * at least as precise as any `softmax_precision` the op may ask for.
 */
import type { FloatArray } from './float-io.js';

/** What the qk_matmul_output of ONNX Attention holds, by `qk_matmul_output_mode`. */
export const QkCapture = {
  /** Q·Kᵀ · scale. */
  Raw: 0,
  /** After softcap. */
  Softcapped: 1,
  /** After softcap and the additive bias. */
  Biased: 2,
  /** The softmax probabilities (zero rows where every key is masked). */
  Probabilities: 3,
} as const;
export type QkCapture = (typeof QkCapture)[keyof typeof QkCapture];

export interface AttentionProblem {
  batch: number;
  qHeads: number;
  kvHeads: number;
  qLen: number;
  /** Keys per head (past + new). */
  kvLen: number;
  headSize: number;
  vHeadSize: number;
  /** [batch, qHeads, qLen, headSize]. */
  q: FloatArray;
  /** [batch, kvHeads, kvLen, headSize]. */
  k: FloatArray;
  /** [batch, kvHeads, kvLen, vHeadSize]. */
  v: FloatArray;
  scale: number;
  /** > 0: scores become softcap · tanh(scores / softcap) before the bias. */
  softcap: number;
  /**
   * Writes the additive bias of query row (b, h, i) into `row` (kvLen entries: 0, a mask value, or
   * -Infinity) and returns whether any entry is finite; absent: no bias.
   */
  biasRow?: (b: number, h: number, i: number, row: Float64Array) => boolean;
  /** Y, in [batch, qHeads, qLen, vHeadSize] order, or [batch, qLen, qHeads, vHeadSize] when `yTokenMajor`. */
  y: FloatArray;
  yTokenMajor: boolean;
  /** Receives the scores selected by `qkMode`, [batch, qHeads, qLen, kvLen]. */
  qk?: FloatArray;
  qkMode: QkCapture;
}

/** Runs the attention of every query row; GQA maps query head h to KV head ⌊h / (qHeads / kvHeads)⌋. */
export function scaledDotProductAttention(p: AttentionProblem): void {
  const { batch, qHeads, kvHeads, qLen, kvLen, headSize: d, vHeadSize: dv, q, k, v, y } = p;
  const group = qHeads / kvHeads;
  const scores = new Float64Array(kvLen);
  const bias = new Float64Array(kvLen);
  const acc = new Float64Array(dv);
  for (let b = 0; b < batch; b++) {
    for (let h = 0; h < qHeads; h++) {
      const kvHead = b * kvHeads + Math.floor(h / group);
      const kBase = kvHead * kvLen * d;
      const vBase = kvHead * kvLen * dv;
      for (let i = 0; i < qLen; i++) {
        const qBase = ((b * qHeads + h) * qLen + i) * d;
        for (let j = 0; j < kvLen; j++) {
          let dot = 0;
          const kRow = kBase + j * d;
          for (let t = 0; t < d; t++) dot += q[qBase + t] * k[kRow + t];
          scores[j] = dot * p.scale;
        }
        attentionRow(p, b, h, i, scores, bias);
        acc.fill(0);
        for (let j = 0; j < kvLen; j++) {
          const w = scores[j];
          if (w === 0) continue;
          const vRow = vBase + j * dv;
          for (let t = 0; t < dv; t++) acc[t] += w * v[vRow + t];
        }
        const yBase = p.yTokenMajor ? ((b * qLen + i) * qHeads + h) * dv : ((b * qHeads + h) * qLen + i) * dv;
        for (let t = 0; t < dv; t++) y[yBase + t] = acc[t];
      }
    }
  }
}

/**
 * Turns the scaled scores of query row (b, h, i) into its probabilities in place: softcap, bias,
 * softmax, recording qk_matmul_output on the way. `bias` is scratch of kvLen entries.
 */
export function attentionRow(
  p: Pick<AttentionProblem, 'qHeads' | 'qLen' | 'kvLen' | 'softcap' | 'biasRow' | 'qk' | 'qkMode'>,
  b: number,
  h: number,
  i: number,
  scores: Float64Array,
  bias: Float64Array,
): void {
  const { kvLen, qk } = p;
  const qkBase = ((b * p.qHeads + h) * p.qLen + i) * kvLen;
  if (qk && p.qkMode === QkCapture.Raw) for (let j = 0; j < kvLen; j++) qk[qkBase + j] = scores[j];
  if (p.softcap > 0) for (let j = 0; j < kvLen; j++) scores[j] = p.softcap * Math.tanh(scores[j] / p.softcap);
  if (qk && p.qkMode === QkCapture.Softcapped) for (let j = 0; j < kvLen; j++) qk[qkBase + j] = scores[j];
  // A row whose bias masks every key attends nothing: its probabilities (and Y row) are zero.
  const attends = p.biasRow ? p.biasRow(b, h, i, bias) : true;
  if (p.biasRow) for (let j = 0; j < kvLen; j++) scores[j] += bias[j];
  if (qk && p.qkMode === QkCapture.Biased) for (let j = 0; j < kvLen; j++) qk[qkBase + j] = scores[j];
  softmaxInPlace(scores, attends);
  if (qk && p.qkMode === QkCapture.Probabilities) for (let j = 0; j < kvLen; j++) qk[qkBase + j] = scores[j];
}

/** Softmax of a row; all zeros when `attends` is false or every score is -Infinity. */
export function softmaxInPlace(row: Float64Array, attends = true): void {
  let max = -Infinity;
  for (let j = 0; j < row.length; j++) if (row[j] > max) max = row[j];
  if (!attends || max === -Infinity) {
    row.fill(0);
    return;
  }
  let sum = 0;
  for (let j = 0; j < row.length; j++) {
    const e = Math.exp(row[j] - max);
    row[j] = e;
    sum += e;
  }
  for (let j = 0; j < row.length; j++) row[j] /= sum;
}

/** [batch, seq, heads·size] → [batch, heads, seq, size] (the 3-D packed layout to head-major). */
export function headMajor(x: FloatArray, batch: number, seq: number, heads: number, size: number): FloatArray {
  const out = x instanceof Float64Array ? new Float64Array(x.length) : new Float32Array(x.length);
  for (let b = 0; b < batch; b++) {
    for (let s = 0; s < seq; s++) {
      for (let h = 0; h < heads; h++) {
        const from = ((b * seq + s) * heads + h) * size;
        const to = ((b * heads + h) * seq + s) * size;
        out.set(x.subarray(from, from + size), to);
      }
    }
  }
  return out;
}

/** Concatenates [batch, heads, pastLen, size] and [batch, heads, newLen, size] along the sequence into `out`. */
export function concatSequence(past: FloatArray, cur: FloatArray, batchHeads: number, pastLen: number, newLen: number, size: number, out: FloatArray): void {
  const total = pastLen + newLen;
  for (let bh = 0; bh < batchHeads; bh++) {
    out.set(past.subarray(bh * pastLen * size, (bh + 1) * pastLen * size), bh * total * size);
    out.set(cur.subarray(bh * newLen * size, (bh + 1) * newLen * size), (bh * total + pastLen) * size);
  }
}
