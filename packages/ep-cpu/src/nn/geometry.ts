/**
 * Sliding-window geometry shared by Conv, ConvTranspose and the pooling ops: validates the attributes,
 * resolves auto_pad into explicit pads, and computes output sizes.
 */
import { SwitchyardError, type AttributeReader } from '@switchyard/core';

export type AutoPad = 'NOTSET' | 'SAME_UPPER' | 'SAME_LOWER' | 'VALID';

export interface WindowAttrs {
  kernel: number[];
  strides: number[];
  dilations: number[];
  /** ONNX layout: all begins, then all ends. Ignored unless autoPad is NOTSET. */
  pads: number[];
  autoPad: AutoPad;
  ceilMode: boolean;
}

export interface WindowGeometry {
  input: number[];
  kernel: number[];
  strides: number[];
  dilations: number[];
  padsBegin: number[];
  padsEnd: number[];
  output: number[];
}

function fail(op: string, msg: string): never {
  throw new SwitchyardError('INVALID_ARGUMENT', `${op}: ${msg}`);
}

/** Reads kernel_shape/strides/dilations/pads/auto_pad/ceil_mode; `kernel` falls back to `kernelFallback`. */
export function readWindowAttrs(op: string, attrs: AttributeReader, spatialRank: number, kernelFallback?: number[]): WindowAttrs {
  const kernel = attrs.has('kernel_shape') ? attrs.ints('kernel_shape') : kernelFallback ?? fail(op, 'kernel_shape is required');
  const autoPad = attrs.string('auto_pad', 'NOTSET') as AutoPad;
  if (!['NOTSET', 'SAME_UPPER', 'SAME_LOWER', 'VALID'].includes(autoPad)) fail(op, `auto_pad '${autoPad}' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID`);
  const w: WindowAttrs = {
    kernel,
    strides: attrs.ints('strides', new Array<number>(spatialRank).fill(1)),
    dilations: attrs.ints('dilations', new Array<number>(spatialRank).fill(1)),
    pads: attrs.ints('pads', new Array<number>(2 * spatialRank).fill(0)),
    autoPad,
    ceilMode: attrs.int('ceil_mode', 0) !== 0,
  };
  checkWindowAttrs(op, w, spatialRank);
  return w;
}

export function checkWindowAttrs(op: string, w: WindowAttrs, spatialRank: number): void {
  if (w.kernel.length !== spatialRank) fail(op, `kernel_shape has ${w.kernel.length} dims, expected ${spatialRank} (input spatial rank)`);
  if (w.strides.length !== spatialRank) fail(op, `strides has ${w.strides.length} values, expected ${spatialRank}`);
  if (w.dilations.length !== spatialRank) fail(op, `dilations has ${w.dilations.length} values, expected ${spatialRank}`);
  if (w.pads.length !== 2 * spatialRank) fail(op, `pads has ${w.pads.length} values, expected ${2 * spatialRank}`);
  for (const k of w.kernel) if (!(Number.isSafeInteger(k) && k >= 1)) fail(op, `kernel_shape [${w.kernel.join(', ')}] must be positive`);
  for (const s of w.strides) if (!(Number.isSafeInteger(s) && s >= 1)) fail(op, `strides [${w.strides.join(', ')}] must be positive`);
  for (const d of w.dilations) if (!(Number.isSafeInteger(d) && d >= 1)) fail(op, `dilations [${w.dilations.join(', ')}] must be positive`);
  for (const p of w.pads) if (!(Number.isSafeInteger(p) && p >= 0)) fail(op, `pads [${w.pads.join(', ')}] must be non-negative`);
}

/**
 * Output geometry of a forward sliding window (Conv, pools). With ceil_mode, a last window that would
 * start inside the end padding is dropped (as PyTorch and later ONNX specs do), so no window is all padding.
 */
export function windowGeometry(op: string, input: readonly number[], w: WindowAttrs): WindowGeometry {
  const n = input.length;
  const padsBegin: number[] = [];
  const padsEnd: number[] = [];
  const output: number[] = [];
  for (let i = 0; i < n; i++) {
    const size = input[i];
    const effK = (w.kernel[i] - 1) * w.dilations[i] + 1;
    const s = w.strides[i];
    let pb = 0;
    let pe = 0;
    let out: number;
    if (w.autoPad === 'SAME_UPPER' || w.autoPad === 'SAME_LOWER') {
      out = Math.ceil(size / s);
      const total = Math.max(0, (out - 1) * s + effK - size);
      pb = w.autoPad === 'SAME_UPPER' ? Math.floor(total / 2) : Math.ceil(total / 2);
      pe = total - pb;
    } else {
      if (w.autoPad === 'NOTSET') {
        pb = w.pads[i];
        pe = w.pads[i + n];
      }
      const span = size + pb + pe - effK;
      if (span < 0) {
        fail(op, `kernel extent ${effK} (kernel ${w.kernel[i]}, dilation ${w.dilations[i]}) is larger than padded input ${size + pb + pe} in spatial dim ${i}`);
      }
      out = (w.ceilMode ? Math.ceil(span / s) : Math.floor(span / s)) + 1;
      if (w.ceilMode && (out - 1) * s >= size + pb) out--;
    }
    if (out < 1) fail(op, `output size ${out} in spatial dim ${i} is empty (input ${size})`);
    padsBegin.push(pb);
    padsEnd.push(pe);
    output.push(out);
  }
  return { input: [...input], kernel: [...w.kernel], strides: [...w.strides], dilations: [...w.dilations], padsBegin, padsEnd, output };
}

/** Spatial sizes as exactly three, leading 1s prepended, so 1-D/2-D/3-D share the 3-D loops. */
export interface Geometry3 {
  inD: number; inH: number; inW: number;
  kD: number; kH: number; kW: number;
  sD: number; sH: number; sW: number;
  dD: number; dH: number; dW: number;
  pD: number; pH: number; pW: number;
  oD: number; oH: number; oW: number;
}

export function to3d(op: string, g: WindowGeometry): Geometry3 {
  const n = g.input.length;
  if (n < 1 || n > 3) throw new SwitchyardError('UNSUPPORTED', `${op}: ${n} spatial dims are not supported (1 to 3 are)`);
  const pick = (a: number[], fill: number) => [...new Array<number>(3 - n).fill(fill), ...a];
  const [inD, inH, inW] = pick(g.input, 1);
  const [kD, kH, kW] = pick(g.kernel, 1);
  const [sD, sH, sW] = pick(g.strides, 1);
  const [dD, dH, dW] = pick(g.dilations, 1);
  const [pD, pH, pW] = pick(g.padsBegin, 0);
  const [oD, oH, oW] = pick(g.output, 1);
  return { inD, inH, inW, kD, kH, kW, sD, sH, sW, dD, dH, dW, pD, pH, pW, oD, oH, oW };
}

/** The range [lo, hi) of output positions o for which o*s - p + k*d lies in [0, size). */
export function validRange(size: number, outSize: number, s: number, offset: number): [number, number] {
  // offset = k*d - pad_begin; need 0 <= o*s + offset < size
  const lo = offset >= 0 ? 0 : Math.ceil(-offset / s);
  const hi = Math.min(outSize, Math.max(0, Math.ceil((size - offset) / s)));
  return [Math.min(lo, hi), hi];
}
