/**
 * GridSample against a plain per-output, per-channel reference written from the spec (PyTorch's
 * grid_sample rules): every mode × padding × align_corners, several shapes, grids reaching well outside
 * [−1, 1]. The reference sums taps in the same order, so float32 results must be bit-identical.
 */
import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { cubicWeights, padCoordinate, roundHalfToEven, unnormalize, type GridPadding } from '../extra/grid-coords.js';
import { gridSampleKernel } from './GridSample.js';

type Mode = 'linear' | 'nearest' | 'cubic';

/** The taps of one spatial dim: [index, weight] pairs, outside taps included (the caller drops them). */
function refTaps(mode: Mode, p: number, size: number, padding: GridPadding, align: boolean): Array<[number, number]> {
  if (mode === 'cubic') {
    const f = Math.floor(p);
    const w = new Float64Array(4);
    cubicWeights(p - f, w);
    return [0, 1, 2, 3].map((k) => [padCoordinate(f - 1 + k, size, padding, align), w[k]]);
  }
  const s = padCoordinate(p, size, padding, align);
  if (mode === 'nearest') return [[roundHalfToEven(s), 1]];
  const f = Math.floor(s);
  return [[f, 1 - (s - f)], [f + 1, s - f]];
}

/** 2-D or 3-D reference: out[n, c, o…] = Σ over in-range tap combinations of Π weights · x. */
function reference(x: Float32Array, xDims: number[], g: Float32Array, gDims: number[], mode: Mode, padding: GridPadding, align: boolean): Float32Array {
  const [N, C, ...spatial] = xDims;
  const r = spatial.length;
  const points = gDims.slice(1, r + 1).reduce((a, b) => a * b, 1);
  const plane = spatial.reduce((a, b) => a * b, 1);
  const y = new Float32Array(N * C * points);
  for (let n = 0; n < N; n++) {
    for (let c = 0; c < C; c++) {
      for (let o = 0; o < points; o++) {
        const perDim = spatial.map((size, d) => refTaps(mode, unnormalize(g[(n * points + o) * r + r - 1 - d], size, align), size, padding, align));
        let v = 0;
        const visit = (d: number, off: number, w: number): void => {
          if (d === r) {
            v += w * x[(n * C + c) * plane + off];
            return;
          }
          for (const [i, wi] of perDim[d]) if (i >= 0 && i < spatial[d]) visit(d + 1, off * spatial[d] + i, w * wi);
        };
        visit(0, 0, 1);
        y[(n * C + c) * points + o] = v;
      }
    }
  }
  return y;
}

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const SHAPES: Array<{ x: number[]; out: number[] }> = [
  { x: [1, 1, 1, 1], out: [3, 2] },
  { x: [2, 3, 5, 7], out: [4, 6] },
  { x: [1, 4, 8, 3], out: [1, 9] },
  { x: [1, 2, 6, 6], out: [0, 4] },
];

describe('GridSample matches a per-element reference', () => {
  for (const mode of ['linear', 'nearest', 'cubic'] as const) {
    for (const padding of ['zeros', 'border', 'reflection'] as const) {
      for (const align of [false, true]) {
        it(`${mode}, ${padding}, align_corners=${Number(align)}`, async () => {
          const rand = random(7);
          for (const { x: xDims, out } of SHAPES) {
            const x = Float32Array.from({ length: xDims.reduce((a, b) => a * b, 1) }, () => rand() * 4 - 2);
            const gDims = [xDims[0], ...out, 2];
            // Up to ±2.5: well past the image on every side, so every padding rule is exercised.
            const g = Float32Array.from({ length: gDims.reduce((a, b) => a * b, 1) }, () => rand() * 5 - 2.5);
            const [y] = await runKernel(gridSampleKernel, [new Tensor('float32', x, xDims), new Tensor('float32', g, gDims)], {
              opset: 20,
              attributes: { mode, padding_mode: padding, align_corners: Number(align) },
            });
            expect((y as Tensor).dims).toEqual([xDims[0], xDims[1], ...out]);
            expect(Array.from((y as Tensor).data as Float32Array)).toEqual(Array.from(reference(x, xDims, g, gDims, mode, padding, align)));
          }
        });
      }
    }
  }

  it('volumetric (3-D) sampling at opset 20', async () => {
    const rand = random(11);
    const xDims = [1, 2, 3, 4, 5];
    const gDims = [1, 2, 3, 2, 3];
    const x = Float32Array.from({ length: 120 }, () => rand() * 2 - 1);
    const g = Float32Array.from({ length: 36 }, () => rand() * 3 - 1.5);
    for (const mode of ['linear', 'nearest', 'cubic'] as const) {
      const [y] = await runKernel(gridSampleKernel, [new Tensor('float32', x, xDims), new Tensor('float32', g, gDims)], { opset: 20, attributes: { mode, padding_mode: 'border' } });
      expect(Array.from((y as Tensor).data as Float32Array)).toEqual(Array.from(reference(x, xDims, g, gDims, mode, 'border', false)));
    }
  });
});
