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
    // Corners as (y1, x1, y2, x2) with min/max applied, and areas.
    const corners = new Float64Array(B * S * 4);
    const areas = new Float64Array(B * S);
    for (let i = 0; i < B * S; i++) {
      const [a, b, c, d] = [boxes[i * 4], boxes[i * 4 + 1], boxes[i * 4 + 2], boxes[i * 4 + 3]];
      let y1: number, x1: number, y2: number, x2: number;
      if (center) [x1, y1, x2, y2] = [a - c / 2, b - d / 2, a + c / 2, b + d / 2];
      else [y1, x1, y2, x2] = [Math.min(a, c), Math.min(b, d), Math.max(a, c), Math.max(b, d)];
      corners.set([y1, x1, y2, x2], i * 4);
      areas[i] = (y2 - y1) * (x2 - x1);
    }
    const iou = (p: number, q: number) => {
      const ih = Math.min(corners[p * 4 + 2], corners[q * 4 + 2]) - Math.max(corners[p * 4], corners[q * 4]);
      const iw = Math.min(corners[p * 4 + 3], corners[q * 4 + 3]) - Math.max(corners[p * 4 + 1], corners[q * 4 + 1]);
      if (ih <= 0 || iw <= 0 || areas[p] <= 0 || areas[q] <= 0) return 0;
      const inter = ih * iw;
      return inter / (areas[p] + areas[q] - inter);
    };
    const selected: number[] = [];
    const limit = Math.max(0, maxPerClass);
    for (let b = 0; b < B && limit > 0; b++) {
      for (let c = 0; c < Cl; c++) {
        const base = (b * Cl + c) * S;
        const order: number[] = [];
        for (let s = 0; s < S; s++) if (scores[base + s] > scoreThreshold) order.push(s);
        order.sort((p, q) => scores[base + q] - scores[base + p] || p - q);
        const kept: number[] = [];
        for (const s of order) {
          if (kept.length >= limit) break;
          if (kept.every((k) => iou(b * S + k, b * S + s) <= iouThreshold)) kept.push(s);
        }
        for (const s of kept) selected.push(b, c, s);
      }
    }
    const out = ctx.output(0, 'int64', [selected.length / 3, 3]);
    const data = out.data as BigInt64Array;
    for (let i = 0; i < selected.length; i++) data[i] = BigInt(selected[i]);
    return [out];
  }),
});
