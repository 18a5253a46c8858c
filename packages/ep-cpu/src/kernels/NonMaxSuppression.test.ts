/**
 * NonMaxSuppression against a brute-force reference from the spec (sort by score, compare each box with
 * every box kept so far): both box encodings, several batches and classes, tied, negative and ±0 scores,
 * float32 (radix-sorted) and float64 (comparator-sorted) inputs, thresholds that keep all or nothing,
 * limits of 0, 1 and more than there are boxes, zero boxes.
 */
import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { nonMaxSuppressionKernel } from './NonMaxSuppression.js';

function corners(b: Float32Array, i: number, center: boolean): number[] {
  const [a, c, e, f] = b.subarray(i * 4, i * 4 + 4);
  if (center) return [c - f / 2, a - e / 2, c + f / 2, a + e / 2];
  return [Math.min(a, e), Math.min(c, f), Math.max(a, e), Math.max(c, f)];
}

function iou(p: number[], q: number[]): number {
  const ap = (p[2] - p[0]) * (p[3] - p[1]);
  const aq = (q[2] - q[0]) * (q[3] - q[1]);
  const ih = Math.min(p[2], q[2]) - Math.max(p[0], q[0]);
  const iw = Math.min(p[3], q[3]) - Math.max(p[1], q[1]);
  if (ih <= 0 || iw <= 0 || ap <= 0 || aq <= 0) return 0;
  return (ih * iw) / (ap + aq - ih * iw);
}

function reference(boxes: Float32Array, scores: Float32Array, B: number, C: number, S: number, limit: number, iouT: number, scoreT: number, center: boolean): number[] {
  const out: number[] = [];
  for (let b = 0; b < B; b++) {
    for (let c = 0; c < C; c++) {
      const sc = (s: number) => scores[(b * C + c) * S + s];
      const order = [...Array(S).keys()].filter((s) => sc(s) > scoreT).sort((p, q) => sc(q) - sc(p) || p - q);
      const kept: number[] = [];
      for (const s of order) {
        if (kept.length >= limit) break;
        if (kept.every((k) => iou(corners(boxes, b * S + k, center), corners(boxes, b * S + s, center)) <= iouT)) kept.push(s);
      }
      for (const s of kept) out.push(b, c, s);
    }
  }
  return out;
}

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('NonMaxSuppression matches a brute-force reference', () => {
  for (const center of [false, true]) {
    for (const [B, C, S] of [[1, 1, 1], [2, 3, 40], [1, 2, 300], [3, 1, 0]]) {
      it(`center_point_box=${Number(center)}, ${B} batches × ${C} classes × ${S} boxes`, async () => {
        const rand = random(B * 100 + C * 10 + S);
        const boxes = Float32Array.from({ length: B * S * 4 }, () => Math.round(rand() * 40) / 2);
        // Scores on a coarse grid so ties occur; they must keep the lower index first.
        // Negative scores and a −0 (equal to +0: the lower index first) exercise the sort's keys.
        const scores = Float32Array.from({ length: B * C * S }, () => Math.round(rand() * 20) / 20 - 0.3);
        if (scores.length > 3) [scores[1], scores[3]] = [0, -0];
        for (const [limit, iouT, scoreT, f64] of [[5, 0.5, 0.2, 0], [1000, 0.3, -1, 0], [1000, 0.3, -1, 1], [1, 0.7, 0, 0], [0, 0.5, 0, 0], [10, 0.5, 2, 0], [3, 0, 0.5, 1], [50, 1, 0.1, 0]]) {
          const type = f64 ? 'float64' : 'float32';
          const [y] = await runKernel(nonMaxSuppressionKernel, [
            new Tensor(type, f64 ? Float64Array.from(boxes) : boxes, [B, S, 4]),
            new Tensor(type, f64 ? Float64Array.from(scores) : scores, [B, C, S]),
            new Tensor('int64', [BigInt(limit)], [1]),
            new Tensor('float32', [iouT], [1]),
            new Tensor('float32', [scoreT], [1]),
          ], { attributes: { center_point_box: Number(center) } });
          const want = reference(boxes, scores, B, C, S, limit, Math.fround(iouT), Math.fround(scoreT), center);
          expect((y as Tensor).dims).toEqual([want.length / 3, 3]);
          expect(Array.from((y as Tensor).data as BigInt64Array, Number)).toEqual(want);
        }
      });
    }
  }
});
