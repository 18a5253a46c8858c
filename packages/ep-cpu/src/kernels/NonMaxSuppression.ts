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
 * (`boxBase` is that entry's first box). The kept boxes' corners and areas are copied side by side into
 * `keptBoxes` so the inner loop reads them in sequence.
 */
function keepGreedy(order: Int32Array, boxBase: number, corners: Float64Array, areas: Float64Array, iouThreshold: number, kept: Int32Array, keptBoxes: Float64Array): number {
  let nKept = 0;
  for (let i = 0; i < order.length && nKept < kept.length; i++) {
    const s = order[i];
    const p = (boxBase + s) * 4;
    const y1 = corners[p];
    const x1 = corners[p + 1];
    const y2 = corners[p + 2];
    const x2 = corners[p + 3];
    const areaP = areas[boxBase + s];
    let keep = true;
    for (let q = 0, end = nKept * 5; q < end; q += 5) {
      const ih = Math.min(keptBoxes[q + 2], y2) - Math.max(keptBoxes[q], y1);
      const iw = Math.min(keptBoxes[q + 3], x2) - Math.max(keptBoxes[q + 1], x1);
      const areaQ = keptBoxes[q + 4];
      if (ih <= 0 || iw <= 0 || areaQ <= 0 || areaP <= 0) continue;
      const inter = ih * iw;
      // Written as !(≤) so a NaN IoU suppresses, as it always has.
      if (!(inter / (areaQ + areaP - inter) <= iouThreshold)) {
        keep = false;
        break;
      }
    }
    if (keep) {
      const q = nKept * 5;
      keptBoxes[q] = y1;
      keptBoxes[q + 1] = x1;
      keptBoxes[q + 2] = y2;
      keptBoxes[q + 3] = x2;
      keptBoxes[q + 4] = areaP;
      kept[nKept++] = s;
    }
  }
  return nKept;
}

/**
 * Sorts float32 scores' box indices by descending score, ties by ascending index: a stable LSD radix
 * sort of order-preserving keys over indices given in ascending order (−0 keyed as +0, since the two
 * compare equal). `order` is sorted in place; `scratch` and `keys` are at least as long.
 */
function sortByScoreDescending(order: Int32Array, scores: Float32Array, base: number, scratch: Int32Array, keys: Uint32Array, keysScratch: Uint32Array): void {
  const n = order.length;
  const bits = new Uint32Array(scores.buffer, scores.byteOffset, scores.length);
  for (let i = 0; i < n; i++) {
    let u = bits[base + order[i]];
    if (u === 0x80000000) u = 0;
    // Ascending key: flip all bits of negatives, the sign bit of positives; descending: complement that.
    keys[i] = ~(u & 0x80000000 ? ~u : u | 0x80000000) >>> 0;
  }
  const counts = new Uint32Array(256);
  let src = order;
  let dst = scratch.subarray(0, n);
  let srcKeys = keys.subarray(0, n);
  let dstKeys = keysScratch.subarray(0, n);
  for (let shift = 0; shift < 32; shift += 8) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[(srcKeys[i] >>> shift) & 255]++;
    for (let b = 0, sum = 0; b < 256; b++) {
      const c = counts[b];
      counts[b] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const at = counts[(srcKeys[i] >>> shift) & 255]++;
      dst[at] = src[i];
      dstKeys[at] = srcKeys[i];
    }
    [src, dst] = [dst, src];
    [srcKeys, dstKeys] = [dstKeys, srcKeys];
  }
  // Four passes: the result is back in `order`.
}

/**
 * The greedy pass over every list at once (the addon's nmsSelect has this shape): list l = b · classes + c
 * holds orders[starts[l] .. starts[l + 1]); its kept boxes go to kept[l · cap …], their count to keptCounts[l].
 */
export type NmsSelect = (
  corners: Float64Array, areas: Float64Array, orders: Int32Array, starts: Int32Array, boxesPerBatch: number, classes: number, cap: number,
  iouThreshold: number, kept: Int32Array, keptCounts: Int32Array,
) => void;

/** The op on ctx's inputs; `select` replaces the TS greedy pass (the native def passes the addon's). */
export function runNonMaxSuppression(ctx: KernelRunContext, center: boolean, select?: NmsSelect): Tensor[] {
const boxesT = ctx.input(0);
  const scoresT = ctx.input(1);
  const maxPerClass = scalar(ctx, 2, 0);
  const iouThreshold = scalar(ctx, 3, 0);
  const scoreThreshold = scalar(ctx, 4, -Infinity);
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
  // Every (batch, class) list's candidates in score order, side by side, then the greedy pass over all.
  const cap = Math.min(S, Math.max(0, maxPerClass));
  const lists = cap > 0 ? B * Cl : 0;
  const orders = new Int32Array(lists * S);
  const starts = new Int32Array(lists + 1);
  const radix = scores instanceof Float32Array ? { scratch: new Int32Array(S), keys: new Uint32Array(S), keysScratch: new Uint32Array(S) } : undefined;
  for (let l = 0, at = 0; l < lists; l++) {
    const base = l * S;
    let n = 0;
    for (let s = 0; s < S; s++) if (scores[base + s] > scoreThreshold) orders[at + n++] = s;
    const order = orders.subarray(at, at + n);
    if (radix) sortByScoreDescending(order, scores as Float32Array, base, radix.scratch, radix.keys, radix.keysScratch);
    else order.sort((p, q) => scores[base + q] - scores[base + p] || p - q);
    at += n;
    starts[l + 1] = at;
  }
  const kept = new Int32Array(lists * cap);
  const keptCounts = new Int32Array(lists);
  if (select && lists > 0) select(corners, areas, orders, starts, S, Cl, cap, iouThreshold, kept, keptCounts);
  else {
    const keptBoxes = new Float64Array(cap * 5);
    for (let l = 0; l < lists; l++) {
      const base = Math.floor(l / Cl) * S;
      keptCounts[l] = keepGreedy(orders.subarray(starts[l], starts[l + 1]), base, corners, areas, iouThreshold, kept.subarray(l * cap, (l + 1) * cap), keptBoxes);
    }
  }
  let nSelected = 0;
  for (let l = 0; l < lists; l++) nSelected += keptCounts[l];
  const out = ctx.output(0, 'int64', [nSelected, 3]);
  const data = out.data as BigInt64Array;
  for (let l = 0, i = 0; l < lists; l++) {
    const b = BigInt(Math.floor(l / Cl));
    const c = BigInt(l % Cl);
    for (let k = 0; k < keptCounts[l]; k++, i += 3) {
      data[i] = b;
      data[i + 1] = c;
      data[i + 2] = BigInt(kept[l * cap + k]);
    }
  }
  return [out];
}

export const nonMaxSuppressionKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'NonMaxSuppression',
  sinceVersion: 10,
  create: simpleKernel((ctx, init) => runNonMaxSuppression(ctx, init.attrs.int('center_point_box', 0) !== 0)),
});
