/**
 * RoiAlign: average (or max) of bilinear samples on a regular grid inside each bin of each region.
 * Opset 10 behaves as coordinate_transformation_mode 'output_half_pixel' (no half-pixel shift, regions
 * at least 1×1); opset 16 defaults to 'half_pixel'. Max mode follows onnxruntime: the max over samples
 * of the largest weighted corner.
 */
import { SwitchyardError, defineKernel, simpleKernel } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput } from '../nn/float-io.js';

type Plane = ArrayLike<number>;
type Out = { [i: number]: number };

/** Average over each bin's samples; a sample adds its four weighted corners first, as onnxruntime. */
function poolAvg(x: Plane, plane: number, out: Out, outBase: number, bins: number, perBin: number, corners: Int32Array, weights: Float64Array, count: number): void {
  for (let bin = 0, s = 0; bin < bins; bin++) {
    let acc = 0;
    for (const end = s + perBin; s < end; s += 4) {
      if (corners[s] < 0) {
        acc += 0;
        continue;
      }
      acc += weights[s] * x[plane + corners[s]] + weights[s + 1] * x[plane + corners[s + 1]] + weights[s + 2] * x[plane + corners[s + 2]] + weights[s + 3] * x[plane + corners[s + 3]];
    }
    out[outBase + bin] = acc / count;
  }
}

/** Max over each bin's samples of the largest weighted corner (onnxruntime's max mode). */
function poolMax(x: Plane, plane: number, out: Out, outBase: number, bins: number, perBin: number, corners: Int32Array, weights: Float64Array): void {
  for (let bin = 0, s = 0; bin < bins; bin++) {
    let acc = -Infinity;
    for (const end = s + perBin; s < end; s += 4) {
      if (corners[s] < 0) {
        acc = Math.max(acc, 0);
        continue;
      }
      const v = Math.max(weights[s] * x[plane + corners[s]], weights[s + 1] * x[plane + corners[s + 1]], weights[s + 2] * x[plane + corners[s + 2]], weights[s + 3] * x[plane + corners[s + 3]]);
      acc = Math.max(acc, v);
    }
    out[outBase + bin] = acc;
  }
}

export const roiAlignKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'RoiAlign',
  sinceVersion: 10,
  typeConstraints: { T1: FLOAT_KERNEL_TYPES, T2: ['int64'] },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    const rois = ctx.input(1);
    const batchIdx = ctx.input(2);
    const a = init.attrs;
    const mode = a.string('mode', 'avg');
    if (mode !== 'avg' && mode !== 'max') throw new SwitchyardError('INVALID_ARGUMENT', `RoiAlign: mode '${mode}' is not avg or max`);
    const ctm = init.opset >= 16 ? a.string('coordinate_transformation_mode', 'half_pixel') : 'output_half_pixel';
    if (ctm !== 'half_pixel' && ctm !== 'output_half_pixel') throw new SwitchyardError('INVALID_ARGUMENT', `RoiAlign: coordinate_transformation_mode '${ctm}' is unknown`);
    const outH = a.int('output_height', 1);
    const outW = a.int('output_width', 1);
    const ratio = a.int('sampling_ratio', 0);
    const spatialScale = a.float('spatial_scale', 1);
    if (!(outH >= 1 && outW >= 1 && ratio >= 0)) throw new SwitchyardError('INVALID_ARGUMENT', 'RoiAlign: output sizes must be ≥ 1 and sampling_ratio ≥ 0');
    if (X.dims.length !== 4) throw new SwitchyardError('INVALID_SHAPE', `RoiAlign: X must be [N, C, H, W], got [${X.dims.join(', ')}]`);
    const [N, C, H, W] = X.dims;
    if (rois.dims.length !== 2 || rois.dims[1] !== 4) throw new SwitchyardError('INVALID_SHAPE', `RoiAlign: rois must be [num_rois, 4], got [${rois.dims.join(', ')}]`);
    const R = rois.dims[0];
    if (batchIdx.size !== R) throw new SwitchyardError('INVALID_SHAPE', `RoiAlign: batch_indices must have ${R} entries`);
    const x = floatData(X);
    const r = floatData(rois);
    const bi = batchIdx.data as BigInt64Array;
    const y = floatOutput(ctx, 0, X.type, [R, C, outH, outW]);
    const out = y.data;
    const offset = ctm === 'half_pixel' ? 0.5 : 0;
    let corners = new Int32Array(0);
    let weights = new Float64Array(0);
    for (let n = 0; n < R; n++) {
      const b = Number(bi[n]);
      if (!(b >= 0 && b < N)) throw new SwitchyardError('INVALID_ARGUMENT', `RoiAlign: batch index ${b} is outside [0, ${N})`);
      const x0 = r[n * 4] * spatialScale - offset;
      const y0 = r[n * 4 + 1] * spatialScale - offset;
      let rw = r[n * 4 + 2] * spatialScale - offset - x0;
      let rh = r[n * 4 + 3] * spatialScale - offset - y0;
      if (ctm === 'output_half_pixel') {
        rw = Math.max(rw, 1);
        rh = Math.max(rh, 1);
      }
      const binH = rh / outH;
      const binW = rw / outW;
      const gridH = ratio > 0 ? ratio : Math.ceil(rh / outH);
      const gridW = ratio > 0 ? ratio : Math.ceil(rw / outW);
      const count = Math.max(gridH * gridW, 1);
      // A reversed region gives a negative grid: no samples (its count stays as before, for avg's divide).
      const samplesH = Math.max(gridH, 0);
      const samplesW = Math.max(gridW, 0);
      // Sample positions depend on the region only, so their corners and weights are tabled once and
      // reused for every channel; the arithmetic per sample is the one the kernel always did.
      const samples = outH * outW * samplesH * samplesW;
      if (corners.length < samples * 4) {
        corners = new Int32Array(samples * 4);
        weights = new Float64Array(samples * 4);
      }
      let s = 0;
      for (let ph = 0; ph < outH; ph++) {
        for (let pw = 0; pw < outW; pw++) {
          for (let iy = 0; iy < samplesH; iy++) {
            const yy = y0 + ph * binH + ((iy + 0.5) * binH) / gridH;
            for (let ix = 0; ix < samplesW; ix++, s += 4) {
              const xx = x0 + pw * binW + ((ix + 0.5) * binW) / gridW;
              if (yy < -1 || yy > H || xx < -1 || xx > W) {
                corners[s] = -1; // outside the image: the sample is exactly 0
                continue;
              }
              let sy = yy <= 0 ? 0 : yy;
              let sx = xx <= 0 ? 0 : xx;
              let yl = Math.floor(sy);
              let xl = Math.floor(sx);
              let yh = yl + 1;
              let xh = xl + 1;
              if (yl >= H - 1) sy = yh = yl = H - 1;
              if (xl >= W - 1) sx = xh = xl = W - 1;
              const ly = sy - yl;
              const lx = sx - xl;
              const hy = 1 - ly;
              const hx = 1 - lx;
              corners[s] = yl * W + xl;
              corners[s + 1] = yl * W + xh;
              corners[s + 2] = yh * W + xl;
              corners[s + 3] = yh * W + xh;
              weights[s] = hy * hx;
              weights[s + 1] = hy * lx;
              weights[s + 2] = ly * hx;
              weights[s + 3] = ly * lx;
            }
          }
        }
      }
      const perBin = samplesH * samplesW * 4;
      for (let c = 0; c < C; c++) {
        const plane = (b * C + c) * H * W;
        const outBase = (n * C + c) * outH * outW;
        if (mode === 'avg') poolAvg(x, plane, out, outBase, outH * outW, perBin, corners, weights, count);
        else poolMax(x, plane, out, outBase, outH * outW, perBin, corners, weights);
      }
    }
    return [y.commit()];
  }),
});
