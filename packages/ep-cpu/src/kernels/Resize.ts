/**
 * Resize. Opset 10: (X, scales), asymmetric coordinates, nearest rounds like Upsample. Opset 11/13:
 * (X, roi, scales, sizes) with coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
 * exclude_outside and extrapolation_value; from 13 roi/scales may be omitted or empty.
 */
import { SwitchyardError, defineKernel, simpleKernel, type KernelInit, type KernelRunContext, type Tensor } from '@switchyard/core';
import { floatData } from '../nn/float-io.js';
import { checkResizeOptions, resizeTensor, type CoordinateMode, type NearestMode, type ResizeMode, type ResizeOptions } from '../nn/resize.js';

const present = (t: Tensor | undefined) => (t && t.size > 0 ? t : undefined);

/** Output dims and per-axis scales from `scales` or `sizes` (exactly one must be given). */
export function resizeTarget(op: string, X: Tensor, scalesT: Tensor | undefined, sizesT: Tensor | undefined): { outDims: number[]; scales: number[] } {
  const rank = X.dims.length;
  if (scalesT && sizesT) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: give scales or sizes, not both`);
  if (sizesT) {
    const outDims = Array.from(sizesT.data as BigInt64Array, Number);
    if (outDims.length !== rank) throw new SwitchyardError('INVALID_SHAPE', `${op}: sizes has ${outDims.length} entries, input rank is ${rank}`);
    return { outDims, scales: outDims.map((d, i) => (X.dims[i] === 0 ? 1 : d / X.dims[i])) };
  }
  if (!scalesT) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: one of scales or sizes is required`);
  const scales = Array.from(floatData(scalesT, `${op} scales`));
  if (scales.length !== rank) throw new SwitchyardError('INVALID_SHAPE', `${op}: scales has ${scales.length} entries, input rank is ${rank}`);
  for (const s of scales) if (!(s > 0) || !Number.isFinite(s)) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: scales [${scales.join(', ')}] must be positive`);
  return { outDims: X.dims.map((d, i) => Math.floor(d * scales[i])), scales };
}

function runResize(ctx: KernelRunContext, init: KernelInit) {
  const X = ctx.input(0);
  const a = init.attrs;
  const v10 = init.opset < 11;
  const opts: ResizeOptions = {
    mode: a.string('mode', 'nearest') as ResizeMode,
    coordinate: (v10 ? 'asymmetric' : a.string('coordinate_transformation_mode', 'half_pixel')) as CoordinateMode,
    nearest: (v10 ? 'simple' : a.string('nearest_mode', 'round_prefer_floor')) as NearestMode,
    cubicA: a.float('cubic_coeff_a', -0.75),
    excludeOutside: a.int('exclude_outside', 0) !== 0,
    extrapolation: a.float('extrapolation_value', 0),
  };
  checkResizeOptions('Resize', opts);
  const scalesT = present(ctx.optionalInput(v10 ? 1 : 2));
  const sizesT = v10 ? undefined : present(ctx.optionalInput(3));
  if (opts.coordinate === 'tf_crop_and_resize') {
    const roi = present(ctx.optionalInput(1));
    if (!roi || roi.size !== 2 * X.dims.length) throw new SwitchyardError('INVALID_ARGUMENT', `Resize: tf_crop_and_resize needs roi with ${2 * X.dims.length} values`);
    opts.roi = floatData(roi, 'Resize roi');
  }
  const { outDims, scales } = resizeTarget('Resize', X, scalesT, sizesT);
  return [resizeTensor(ctx, 'Resize', X, outDims, scales, opts)];
}

export const resizeKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Resize',
  sinceVersion: 10,
  create: simpleKernel(runResize),
});
