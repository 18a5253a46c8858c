/**
 * RoiAlign against a plain per-output reference (bilinear samples per bin, computed for every channel
 * afresh): avg and max, both coordinate transformation modes, fixed and adaptive sampling ratios, regions
 * partly or wholly outside the image, zero regions. Same arithmetic per sample, so results are bit-identical.
 */
import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { roiAlignKernel } from './RoiAlign.js';

interface Params { mode: 'avg' | 'max'; halfPixel: boolean; outH: number; outW: number; ratio: number; scale: number }

function bilinear(x: Float32Array, plane: number, H: number, W: number, yy: number, xx: number, mode: 'avg' | 'max'): number {
  if (yy < -1 || yy > H || xx < -1 || xx > W) return 0;
  let sy = Math.max(yy, 0);
  let sx = Math.max(xx, 0);
  let yl = Math.floor(sy);
  let xl = Math.floor(sx);
  let yh = yl + 1;
  let xh = xl + 1;
  if (yl >= H - 1) sy = yh = yl = H - 1;
  if (xl >= W - 1) sx = xh = xl = W - 1;
  const ly = sy - yl;
  const lx = sx - xl;
  const corners = [(1 - ly) * (1 - lx) * x[plane + yl * W + xl], (1 - ly) * lx * x[plane + yl * W + xh], ly * (1 - lx) * x[plane + yh * W + xl], ly * lx * x[plane + yh * W + xh]];
  return mode === 'avg' ? corners[0] + corners[1] + corners[2] + corners[3] : Math.max(...corners);
}

function reference(x: Float32Array, [, C, H, W]: number[], rois: Float32Array, batch: number[], p: Params): Float32Array {
  const y = new Float32Array(batch.length * C * p.outH * p.outW);
  const shift = p.halfPixel ? 0.5 : 0;
  batch.forEach((b, n) => {
    const [x0, y0, x1, y1] = Array.from(rois.subarray(n * 4, n * 4 + 4), (v) => v * p.scale - shift);
    const rw = p.halfPixel ? x1 - x0 : Math.max(x1 - x0, 1);
    const rh = p.halfPixel ? y1 - y0 : Math.max(y1 - y0, 1);
    const gh = p.ratio || Math.ceil(rh / p.outH);
    const gw = p.ratio || Math.ceil(rw / p.outW);
    for (let c = 0; c < C; c++) {
      for (let ph = 0; ph < p.outH; ph++) {
        for (let pw = 0; pw < p.outW; pw++) {
          let acc = p.mode === 'avg' ? 0 : -Infinity;
          for (let iy = 0; iy < gh; iy++) {
            for (let ix = 0; ix < gw; ix++) {
              const v = bilinear(x, (b * C + c) * H * W, H, W, y0 + ph * (rh / p.outH) + ((iy + 0.5) * (rh / p.outH)) / gh, x0 + pw * (rw / p.outW) + ((ix + 0.5) * (rw / p.outW)) / gw, p.mode);
              acc = p.mode === 'avg' ? acc + v : Math.max(acc, v);
            }
          }
          y[((n * C + c) * p.outH + ph) * p.outW + pw] = p.mode === 'avg' ? acc / Math.max(gh * gw, 1) : acc;
        }
      }
    }
  });
  return y;
}

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('RoiAlign matches a per-output reference', () => {
  const xDims = [2, 3, 9, 11];
  const rand = random(3);
  const x = Float32Array.from({ length: 2 * 3 * 9 * 11 }, () => rand() * 4 - 2);
  // Inside, straddling the border, wholly outside, degenerate (zero size) and reversed regions.
  const rois = Float32Array.from([1, 1, 6, 5, -3, -2, 4, 12, 14, 10, 20, 15, 3, 3, 3, 3, 7.5, 6.2, 2.1, 1.3, 0, 0, 10, 8]);
  const batch = [0, 1, 1, 0, 1, 0];
  for (const mode of ['avg', 'max'] as const) {
    for (const halfPixel of [true, false]) {
      for (const [outH, outW, ratio, scale] of [[2, 3, 2, 1], [3, 3, 0, 1], [1, 4, 0, 0.5], [4, 2, 1, 2]]) {
        it(`${mode}, ${halfPixel ? 'half_pixel' : 'output_half_pixel'}, out ${outH}x${outW}, ratio ${ratio}, scale ${scale}`, async () => {
          const [y] = await runKernel(roiAlignKernel, [new Tensor('float32', x, xDims), new Tensor('float32', rois, [6, 4]), new Tensor('int64', BigInt64Array.from(batch, BigInt), [6])], {
            opset: 16,
            attributes: { mode, coordinate_transformation_mode: halfPixel ? 'half_pixel' : 'output_half_pixel', output_height: outH, output_width: outW, sampling_ratio: ratio, spatial_scale: { float: scale } },
          });
          expect((y as Tensor).dims).toEqual([6, 3, outH, outW]);
          const want = reference(x, xDims, rois, batch, { mode, halfPixel, outH, outW, ratio, scale });
          expect(Array.from((y as Tensor).data as Float32Array)).toEqual(Array.from(want));
        });
      }
    }
  }

  it('zero regions give an empty output', async () => {
    const [y] = await runKernel(roiAlignKernel, [new Tensor('float32', x, xDims), new Tensor('float32', new Float32Array(0), [0, 4]), new Tensor('int64', new BigInt64Array(0), [0])], { opset: 16 });
    expect((y as Tensor).dims).toEqual([0, 3, 1, 1]);
  });
});
