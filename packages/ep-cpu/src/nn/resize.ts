/**
 * N-D resize for Resize (10–19) and Upsample: per axis, each output coordinate maps to an input
 * coordinate (coordinate_transformation_mode) and then to a few weighted taps (nearest: 1, linear: 2,
 * cubic: 4; antialiased linear/cubic when downsampling: the filter stretched by 1 / scale, so more);
 * each output element sums the product of its axes' taps. Axes left unchanged collapse to a single
 * tap, so a typical 4-D NCHW resize costs 1·1·2·2 taps per element for linear.
 */
import { SwitchyardError, elementCount, type KernelRunContext, type Tensor } from '@switchyard/core';
import { floatData, floatOutput } from './float-io.js';

export type ResizeMode = 'nearest' | 'linear' | 'cubic';
export type NearestMode = 'round_prefer_floor' | 'round_prefer_ceil' | 'floor' | 'ceil' | 'simple';
export type CoordinateMode = 'half_pixel' | 'half_pixel_symmetric' | 'pytorch_half_pixel' | 'align_corners' | 'asymmetric' | 'tf_half_pixel_for_nn' | 'tf_crop_and_resize';

export interface ResizeOptions {
  mode: ResizeMode;
  coordinate: CoordinateMode;
  nearest: NearestMode;
  cubicA: number;
  excludeOutside: boolean;
  extrapolation: number;
  /** Opset 18: linear and cubic stretch their filter by 1 / scale along axes that shrink. */
  antialias: boolean;
  /** tf_crop_and_resize: starts then ends, normalized, one per axis. */
  roi?: ArrayLike<number>;
}

const COORDINATE_MODES = ['half_pixel', 'half_pixel_symmetric', 'pytorch_half_pixel', 'align_corners', 'asymmetric', 'tf_half_pixel_for_nn', 'tf_crop_and_resize'];
const NEAREST_MODES = ['round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil', 'simple'];

export function checkResizeOptions(op: string, o: ResizeOptions): void {
  if (!['nearest', 'linear', 'cubic'].includes(o.mode)) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: mode '${o.mode}' is not nearest, linear or cubic`);
  if (!COORDINATE_MODES.includes(o.coordinate)) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: coordinate_transformation_mode '${o.coordinate}' is unknown`);
  if (!NEAREST_MODES.includes(o.nearest)) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: nearest_mode '${o.nearest}' is unknown`);
}

interface AxisTaps {
  count: number;
  index: Int32Array;
  weight: Float64Array;
  /** tf_crop_and_resize: output positions whose source lies outside the input. */
  outside: Uint8Array;
}

function cubicCoeffs(t: number, a: number): [number, number, number, number] {
  const t1 = t + 1;
  const u = 1 - t;
  const u1 = 2 - t;
  return [
    ((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a,
    ((a + 2) * t - (a + 3)) * t * t + 1,
    ((a + 2) * u - (a + 3)) * u * u + 1,
    ((a * u1 - 5 * a) * u1 + 8 * a) * u1 - 4 * a,
  ];
}

/** Keys' cubic convolution kernel at distance |x|. */
function cubicKernel(x: number, a: number): number {
  x = Math.abs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

/** Taps of the antialiased filter (ONNX's reference): the kernel stretched by 1 / scale, centred on `base` + ratio. */
function antialiasTaps(mode: ResizeMode, scale: number): number {
  return 2 - 2 * (Math.floor(-(mode === 'linear' ? 1 : 2) / scale) + 1);
}

function axisTaps(inSize: number, outSize: number, scale: number, axis: number, rank: number, o: ResizeOptions): AxisTaps {
  const antialias = o.antialias && o.mode !== 'nearest' && scale < 1;
  const count =
    inSize === outSize && scale === 1 && o.coordinate !== 'tf_crop_and_resize'
      ? 1
      : o.mode === 'nearest'
        ? 1
        : antialias
          ? antialiasTaps(o.mode, scale)
          : o.mode === 'linear'
            ? 2
            : 4;
  if (count * outSize > 2 ** 24) throw new SwitchyardError('INVALID_ARGUMENT', `Resize: scale ${scale} needs ${count} antialias taps for each of ${outSize} outputs (more than 2^24 in all)`);
  const index = new Int32Array(outSize * count);
  const weight = new Float64Array(outSize * count);
  const outside = new Uint8Array(outSize);
  const clamp = (i: number) => (i < 0 ? 0 : i >= inSize ? inSize - 1 : i);
  for (let x = 0; x < outSize; x++) {
    let src: number;
    switch (o.coordinate) {
      case 'half_pixel':
        src = (x + 0.5) / scale - 0.5;
        break;
      case 'half_pixel_symmetric': {
        // The output's centre lands on the input's centre even when floor(in · scale) cut the output short.
        const adjustment = outSize / (inSize * scale);
        src = (inSize / 2) * (1 - adjustment) + (x + 0.5) / scale - 0.5;
        break;
      }
      case 'pytorch_half_pixel':
        src = outSize > 1 ? (x + 0.5) / scale - 0.5 : 0;
        break;
      case 'align_corners':
      {
        // The unrounded resized length, as the ONNX reference and onnxruntime use when scales are given.
        const len = inSize * scale;
        src = len <= 1 ? 0 : (x * (inSize - 1)) / (len - 1);
      }
        break;
      case 'asymmetric':
        src = x / scale;
        break;
      case 'tf_half_pixel_for_nn':
        src = (x + 0.5) / scale;
        break;
      case 'tf_crop_and_resize': {
        const start = o.roi![axis];
        const end = o.roi![axis + rank];
        src = outSize > 1 ? start * (inSize - 1) + (x * (end - start) * (inSize - 1)) / (outSize - 1) : 0.5 * (start + end) * (inSize - 1);
        if (src < 0 || src > inSize - 1) outside[x] = 1;
        break;
      }
    }
    const at = x * count;
    if (count === 1 && o.mode !== 'nearest') {
      // identity axis
      index[at] = x;
      weight[at] = 1;
      continue;
    }
    if (o.mode === 'nearest') {
      let i: number;
      switch (o.nearest) {
        case 'round_prefer_floor':
          i = src === Math.floor(src) + 0.5 ? Math.floor(src) : Math.round(src);
          break;
        case 'round_prefer_ceil':
          i = Math.round(src);
          break;
        case 'floor':
          i = Math.floor(src);
          break;
        case 'ceil':
          i = Math.ceil(src);
          break;
        case 'simple':
          i = scale < 1 ? Math.ceil(src) : Math.floor(src);
          break;
      }
      index[at] = clamp(i);
      weight[at] = 1;
    } else if (antialias) {
      // ONNX's reference: the left neighbour `base` has ratio = src - base in (0, 1] (an integer src counts from the one below).
      const base = src === Math.floor(src) ? src - 1 : Math.floor(src);
      const ratio = src - base;
      const start = 1 - count / 2;
      let sum = 0;
      for (let k = 0; k < count; k++) {
        const d = (start + k - ratio) * scale;
        weight[at + k] = o.mode === 'linear' ? Math.max(0, 1 - Math.abs(d)) : cubicKernel(d, o.cubicA);
        sum += weight[at + k];
      }
      let kept = 0;
      for (let k = 0; k < count; k++) {
        const i = base + start + k;
        weight[at + k] /= sum;
        if (o.excludeOutside && (i < 0 || i >= inSize)) weight[at + k] = 0;
        kept += weight[at + k];
        index[at + k] = clamp(i);
      }
      if (o.excludeOutside && kept !== 0) for (let k = 0; k < count; k++) weight[at + k] /= kept;
    } else if (o.mode === 'linear') {
      const s = Math.min(Math.max(src, 0), inSize - 1);
      const i0 = Math.floor(s);
      const t = s - i0;
      index[at] = i0;
      index[at + 1] = clamp(i0 + 1);
      weight[at] = 1 - t;
      weight[at + 1] = t;
    } else {
      const i0 = Math.floor(src);
      const c = cubicCoeffs(src - i0, o.cubicA);
      let sum = 0;
      for (let k = 0; k < 4; k++) {
        const i = i0 - 1 + k;
        const inside = i >= 0 && i < inSize;
        if (o.excludeOutside && !inside) c[k] = 0;
        sum += c[k];
        index[at + k] = clamp(i);
      }
      for (let k = 0; k < 4; k++) weight[at + k] = o.excludeOutside && sum !== 0 ? c[k] / sum : c[k];
    }
  }
  return { count, index, weight, outside };
}

/** Resizes X to `outDims` with per-axis `scales` (out/in when sizes were given). */
export function resizeTensor(ctx: KernelRunContext, op: string, X: Tensor, outDims: number[], scales: number[], o: ResizeOptions): Tensor {
  const rank = X.dims.length;
  const total = elementCount(outDims, `${op} output`);
  const taps = X.dims.map((d, i) => axisTaps(d, outDims[i], scales[i], i, rank, o));
  const inStrides = new Array<number>(rank);
  let st = 1;
  for (let i = rank - 1; i >= 0; i--) {
    inStrides[i] = st;
    st *= X.dims[i];
  }
  const isFloat = X.type === 'float32' || X.type === 'float64' || X.type === 'float16' || X.type === 'bfloat16';
  if (o.mode !== 'nearest' && !isFloat) throw new SwitchyardError('UNSUPPORTED', `${op}: ${o.mode} mode needs float data, got ${X.type}`);
  if (o.mode === 'nearest' && !isFloat) {
    // Any element type: copy the one source element.
    const y = ctx.output(0, X.type, outDims);
    const src = X.data as { readonly [i: number]: unknown };
    const dst = y.data as { [i: number]: unknown };
    const coord = new Array<number>(rank).fill(0);
    for (let flat = 0; flat < total; flat++) {
      let off = 0;
      for (let a = 0; a < rank; a++) off += taps[a].index[coord[a]] * inStrides[a];
      dst[flat] = src[off];
      for (let a = rank - 1; a >= 0 && ++coord[a] === outDims[a]; a--) coord[a] = 0;
    }
    return y;
  }
  const x = floatData(X);
  const y = floatOutput(ctx, 0, X.type, outDims);
  const out = y.data;
  const coord = new Array<number>(rank).fill(0);
  const tap = new Array<number>(rank).fill(0);
  for (let flat = 0; flat < total; flat++) {
    let outside = false;
    for (let a = 0; a < rank; a++) if (taps[a].outside[coord[a]]) outside = true;
    if (outside) {
      out[flat] = o.extrapolation;
    } else {
      // Sum over the product of every axis' taps (odometer over tap numbers).
      let sum = 0;
      tap.fill(0);
      for (;;) {
        let w = 1;
        let off = 0;
        for (let a = 0; a < rank; a++) {
          const t = taps[a];
          const k = coord[a] * t.count + tap[a];
          w *= t.weight[k];
          off += t.index[k] * inStrides[a];
        }
        if (w !== 0) sum += w * x[off];
        let a = rank - 1;
        while (a >= 0 && ++tap[a] === taps[a].count) tap[a--] = 0;
        if (a < 0) break;
      }
      out[flat] = sum;
    }
    for (let a = rank - 1; a >= 0 && ++coord[a] === outDims[a]; a--) coord[a] = 0;
  }
  return y.commit();
}
