/**
 * NonMaxSuppression: per batch and class, greedily keeps the highest-scoring boxes (score above
 * score_threshold) and drops later boxes whose IoU with a kept one exceeds iou_threshold, up to
 * max_output_boxes_per_class. Ties keep the lower box index first. Output: [selected, 3] of
 * (batch, class, box) int64.
 */
import { SwitchyardError, defineKernel, simpleKernel, type KernelRunContext, type Tensor } from '@switchyard/core';
import { floatData } from '../nn/float-io.js';

function scalar(ctx: KernelRunContext, i: number, fallback: number): number {
  const t: Tensor | undefined = ctx.optionalInput(i);
  if (!t || t.size === 0) return fallback;
  return t.type === 'int64' ? Number((t.data as BigInt64Array)[0]) : floatData(t, 'NonMaxSuppression threshold')[0];
}

/**
 * Walks boxes in score order and keeps one when its IoU with every box kept so far is at most the
 * threshold, until `kept` is full; returns how many were kept. Boxes are indices within one batch entry
 * (`boxBase` is that entry's first box).
 */
function keepGreedy(order: Int32Array, boxBase: number, corners: Float64Array, areas: Float64Array, iouThreshold: number, kept: Int32Array): number {
  let nKept = 0;
  for (let i = 0; i < order.length && nKept < kept.length; i++) {
    const s = order[i];
    const p = (boxBase + s) * 4;
    const areaP = areas[boxBase + s];
    let keep = true;
    for (let k = 0; k < nKept; k++) {
      const q = (boxBase + kept[k]) * 4;
      const ih = Math.min(corners[q + 2], corners[p + 2]) - Math.max(corners[q], corners[p]);
      const iw = Math.min(corners[q + 3], corners[p + 3]) - Math.max(corners[q + 1], corners[p + 1]);
      const areaQ = areas[boxBase + kept[k]];
      if (ih <= 0 || iw <= 0 || areaQ <= 0 || areaP <= 0) continue;
      const inter = ih * iw;
      // Written as !(≤) so a NaN IoU suppresses, as it always has.
      if (!(inter / (areaQ + areaP - inter) <= iouThreshold)) {
        keep = false;
        break;
      }
    }
    if (keep) kept[nKept++] = s;
  }
  return nKept;
}

export const nonMaxSuppressionKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'NonMaxSuppression',
  sinceVersion: 10,
  create: simpleKernel((ctx, init) => {
    const boxesT = ctx.input(0);
    const scoresT = ctx.input(1);
    const maxPerClass = scalar(ctx, 2, 0);
    const iouThreshold = scalar(ctx, 3, 0);
    const scoreThreshold = scalar(ctx, 4, -Infinity);
    const center = init.attrs.int('center_point_box', 0) !== 0;
    if (boxesT.dims.length !== 3 || boxesT.dims[2] !== 4) throw new SwitchyardError('INVALID_SHAPE', `NonMaxSuppression: boxes must be [batch, boxes, 4], got [${boxesT.dims.join(', ')}]`);
    const [B, S] = boxesT.dims;
    if (scoresT.dims.length !== 3 || scoresT.dims[0] !== B || scoresT.dims[2] !== S) {
      throw new SwitchyardError('INVALID_SHAPE', `NonMaxSuppression: scores must be [${B}, classes, ${S}], got [${scoresT.dims.join(', ')}]`);
    }
    if (!(iouThreshold >= 0 && iouThreshold <= 1)) throw new SwitchyardError('INVALID_ARGUMENT', `NonMaxSuppression: iou_threshold ${iouThreshold} must be in [0, 1]`);
    const Cl = scoresT.dims[1];
    const boxes = floatData(boxesT);
    const scores = floatData(scoresT);
    // Corners as (y1, x1, y2, x2) with min/max applied, and areas, once for every box of every batch.
    const corners = new Float64Array(B * S * 4);
    const areas = new Float64Array(B * S);
    for (let i = 0, q = 0; i < B * S; i++, q += 4) {
      const a = boxes[q];
      const b = boxes[q + 1];
      const c = boxes[q + 2];
      const d = boxes[q + 3];
      if (center) {
        corners[q] = b - d / 2;
        corners[q + 1] = a - c / 2;
        corners[q + 2] = b + d / 2;
        corners[q + 3] = a + c / 2;
      } else {
        corners[q] = Math.min(a, c);
        corners[q + 1] = Math.min(b, d);
        corners[q + 2] = Math.max(a, c);
        corners[q + 3] = Math.max(b, d);
      }
      areas[i] = (corners[q + 2] - corners[q]) * (corners[q + 3] - corners[q + 1]);
    }
    const limit = Math.max(0, maxPerClass);
    const candidates = new Int32Array(S);
    const kept = new Int32Array(Math.min(S, limit));
    let selected = new Int32Array(0);
    let nSelected = 0;
    for (let b = 0; b < B && limit > 0; b++) {
      for (let c = 0; c < Cl; c++) {
        const base = (b * Cl + c) * S;
        let n = 0;
        for (let s = 0; s < S; s++) if (scores[base + s] > scoreThreshold) candidates[n++] = s;
        const order = candidates.subarray(0, n);
        order.sort((p, q) => scores[base + q] - scores[base + p] || p - q);
        const nKept = keepGreedy(order, b * S, corners, areas, iouThreshold, kept);
        if (selected.length < (nSelected + nKept) * 3) {
          const grown = new Int32Array(Math.max(selected.length * 2, (nSelected + nKept) * 3));
          grown.set(selected);
          selected = grown;
        }
        for (let k = 0; k < nKept; k++, nSelected++) {
          selected[nSelected * 3] = b;
          selected[nSelected * 3 + 1] = c;
          selected[nSelected * 3 + 2] = kept[k];
        }
      }
    }
    const out = ctx.output(0, 'int64', [nSelected, 3]);
    const data = out.data as BigInt64Array;
    for (let i = 0; i < nSelected * 3; i++) data[i] = BigInt(selected[i]);
    return [out];
  }),
});
