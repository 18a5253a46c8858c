/**
 * DeformConv (opset 19): a grouped convolution whose every kernel tap is moved by a learned offset
 * (and optionally scaled by a mask). X [N, C, D1 … Dr], W [M, C/group, k1 … kr], offset
 * [N, offset_group·∏k·r, O1 … Or], optional B [M] and mask [N, offset_group·∏k, O1 … Or]; output
 * [N, M, O1 … Or]. A moved tap reads X by multilinear interpolation, zero outside the image.
 *
 * For each batch item and input channel, the sampled values of every (tap, output position) are
 * gathered into one scratch row set, then folded into the outputs of that channel's group.
 */
import { SwitchyardError, elementCount } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput } from '../nn/float-io.js';
import { tensorKernel } from '../tensor-ops/define.js';

const OP = 'DeformConv';

function listAttr(value: number[] | undefined, n: number, fill: number, name: string): number[] {
  if (value === undefined) return new Array<number>(n).fill(fill);
  if (value.length !== n) throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: ${name} has ${value.length} values, expected ${n}`);
  return value;
}

function shapeText(dims: readonly number[]): string {
  return `[${dims.join(', ')}]`;
}

/** Sampling taps of one offset group: per (kernel tap, output position), 2^r input offsets (−1: outside) and weights. */
interface Taps {
  offsets: Int32Array;
  weights: Float64Array;
}

export const deformConvKernel = tensorKernel({
  opType: OP,
  sinceVersion: 19,
  typeConstraints: { T: FLOAT_KERNEL_TYPES },
  create({ attrs }) {
    const group = attrs.int('group', 1);
    const offsetGroup = attrs.int('offset_group', 1);
    if (group < 1 || offsetGroup < 1) throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: group and offset_group must be ≥ 1`);
    const opt = (name: string) => (attrs.has(name) ? attrs.ints(name) : undefined);
    const dilAttr = opt('dilations');
    const padAttr = opt('pads');
    const strideAttr = opt('strides');
    const kernelAttr = opt('kernel_shape');
    return {
      run(ctx) {
        const x = ctx.input(0);
        const w = ctx.input(1);
        const offset = ctx.input(2);
        const bias = ctx.optionalInput(3);
        const mask = ctx.optionalInput(4);
        const r = x.dims.length - 2;
        if (r < 1) throw new SwitchyardError('INVALID_SHAPE', `${OP}: X must be [N, C, D1, …], got ${shapeText(x.dims)}`);
        const [N, C] = x.dims;
        const image = x.dims.slice(2);
        if (w.dims.length !== r + 2) throw new SwitchyardError('INVALID_SHAPE', `${OP}: W must have rank ${r + 2}, got ${shapeText(w.dims)}`);
        const M = w.dims[0];
        const cPerGroup = w.dims[1];
        const kernel = listAttr(kernelAttr, r, 0, 'kernel_shape');
        if (kernelAttr === undefined) kernel.splice(0, r, ...w.dims.slice(2));
        if (kernel.some((k, i) => k !== w.dims[2 + i])) throw new SwitchyardError('INVALID_SHAPE', `${OP}: kernel_shape ${shapeText(kernel)} does not match W ${shapeText(w.dims)}`);
        if (cPerGroup * group !== C || M % group !== 0) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: X has ${C} channels and W ${shapeText(w.dims)}; with group ${group} they must be C = W[1]·group and W[0] divisible by group`);
        }
        if (C % offsetGroup !== 0) throw new SwitchyardError('INVALID_SHAPE', `${OP}: ${C} channels do not divide into offset_group ${offsetGroup}`);
        const dil = listAttr(dilAttr, r, 1, 'dilations');
        const pads = listAttr(padAttr, 2 * r, 0, 'pads');
        const strides = listAttr(strideAttr, r, 1, 'strides');
        if ([...dil, ...strides].some((v) => v < 1) || pads.some((v) => v < 0)) {
          throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: dilations and strides must be ≥ 1 and pads ≥ 0`);
        }
        const outSpatial = image.map((d, i) => Math.floor((d + pads[i] + pads[i + r] - dil[i] * (kernel[i] - 1) - 1) / strides[i]) + 1);
        if (outSpatial.some((o) => o < 1)) throw new SwitchyardError('INVALID_SHAPE', `${OP}: the kernel does not fit the padded input`);
        const K = kernel.reduce((a, b) => a * b, 1);
        const O = outSpatial.reduce((a, b) => a * b, 1);
        const offsetDims = [N, offsetGroup * K * r, ...outSpatial];
        if (offset.dims.length !== offsetDims.length || offset.dims.some((d, i) => d !== offsetDims[i])) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: offset must be ${shapeText(offsetDims)}, got ${shapeText(offset.dims)}`);
        }
        const maskDims = [N, offsetGroup * K, ...outSpatial];
        if (mask && (mask.dims.length !== maskDims.length || mask.dims.some((d, i) => d !== maskDims[i]))) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: mask must be ${shapeText(maskDims)}, got ${shapeText(mask.dims)}`);
        }
        if (bias && (bias.dims.length !== 1 || bias.dims[0] !== M)) throw new SwitchyardError('INVALID_SHAPE', `${OP}: B must be [${M}], got ${shapeText(bias.dims)}`);

        const xs = floatData(x, `${OP} X`);
        const ws = floatData(w, `${OP} W`);
        const offs = floatData(offset, `${OP} offset`);
        const ms = mask ? floatData(mask, `${OP} mask`) : undefined;
        const bs = bias ? floatData(bias, `${OP} B`) : undefined;
        const out = floatOutput(ctx, 0, x.type, [N, M, ...outSpatial]);
        const y = out.data;
        const plane = image.reduce((a, b) => a * b, 1);
        const corners = 2 ** r;
        elementCount([K * corners, O], `${OP} sampling taps`); // refuse absurd sizes before allocating scratch
        const taps: Taps = { offsets: new Int32Array(K * O * corners), weights: new Float64Array(K * O * corners) };
        const col = new Float64Array(K * O);
        const cPerOffsetGroup = C / offsetGroup;
        const mPerGroup = M / group;
        for (let n = 0; n < N; n++) {
          if (bs) for (let m = 0; m < M; m++) y.fill(bs[m], (n * M + m) * O, (n * M + m + 1) * O);
          for (let g = 0; g < offsetGroup; g++) {
            buildTaps(taps, n, g);
            for (let c = g * cPerOffsetGroup; c < (g + 1) * cPerOffsetGroup; c++) {
              const base = (n * C + c) * plane;
              for (let t = 0; t < K * O; t++) {
                let v = 0;
                for (let j = t * corners; j < (t + 1) * corners; j++) {
                  const at = taps.offsets[j];
                  if (at >= 0) v += taps.weights[j] * xs[base + at]; // skipped outside: 0·Inf would be NaN
                }
                col[t] = v;
              }
              // Fold channel c into the outputs of its convolution group.
              const cg = Math.floor(c / cPerGroup);
              const ci = c - cg * cPerGroup;
              for (let m = cg * mPerGroup; m < (cg + 1) * mPerGroup; m++) {
                const wBase = (m * cPerGroup + ci) * K;
                const yBase = (n * M + m) * O;
                for (let k = 0; k < K; k++) {
                  const wk = ws[wBase + k];
                  if (wk === 0) continue;
                  for (let o = 0; o < O; o++) y[yBase + o] += wk * col[k * O + o];
                }
              }
            }
          }
        }
        return [out.commit()];

        /** Fills `taps` for batch item n and offset group g (weights include the mask). */
        function buildTaps(into: Taps, n: number, g: number): void {
          const kIdx = new Int32Array(r);
          const oIdx = new Int32Array(r);
          const lo = new Float64Array(r);
          const frac = new Float64Array(r);
          for (let k = 0; k < K; k++) {
            for (let d = r - 1, q = k; d >= 0; d--) {
              kIdx[d] = q % kernel[d];
              q = Math.floor(q / kernel[d]);
            }
            for (let o = 0; o < O; o++) {
              for (let d = r - 1, q = o; d >= 0; d--) {
                oIdx[d] = q % outSpatial[d];
                q = Math.floor(q / outSpatial[d]);
              }
              for (let d = 0; d < r; d++) {
                const shift = offs[((n * offsetGroup + g) * K * r + k * r + d) * O + o];
                const p = oIdx[d] * strides[d] - pads[d] + kIdx[d] * dil[d] + shift;
                lo[d] = Math.floor(p);
                frac[d] = p - lo[d];
              }
              const scale = ms ? ms[((n * offsetGroup + g) * K + k) * O + o] : 1;
              const at = (k * O + o) * corners;
              for (let corner = 0; corner < corners; corner++) {
                let off = 0;
                let wt = scale;
                for (let d = 0; d < r; d++) {
                  const up = (corner >> (r - 1 - d)) & 1;
                  const i = lo[d] + up;
                  if (!(i >= 0 && i < image[d])) {
                    off = -1; // outside the image: reads zero
                    break;
                  }
                  off = off * image[d] + i;
                  wt *= up ? frac[d] : 1 - frac[d];
                }
                into.offsets[at + corner] = off;
                into.weights[at + corner] = wt;
              }
            }
          }
        }
      },
    };
  },
});
