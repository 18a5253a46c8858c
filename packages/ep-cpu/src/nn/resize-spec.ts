/**
 * What a Resize or Upsample node asks for, read once from its attributes (per opset), and the output
 * shape, per-axis scales and roi that its runtime inputs then give. Shared by the TS kernels and the
 * native one, so both resize to the same shape with the same coordinates.
 *
 * Opset history: Upsample 7 (scales attribute), 9 (scales input); Resize 10 (X, scales; asymmetric,
 * nearest rounding as Upsample), 11 (X, roi, scales, sizes; coordinate_transformation_mode, nearest_mode,
 * cubic_coeff_a, exclude_outside, extrapolation_value), 13 (roi and scales optional), 18 (antialias, axes,
 * keep_aspect_ratio_policy), 19 (half_pixel_symmetric).
 */
import { SwitchyardError, type AttributeReader, type Tensor } from '@switchyard/core';
import { floatData } from './float-io.js';
import { checkResizeOptions, type CoordinateMode, type NearestMode, type ResizeMode, type ResizeOptions } from './resize.js';

export type KeepAspectRatioPolicy = 'stretch' | 'not_larger' | 'not_smaller';

export interface ResizeSpec {
  op: 'Resize' | 'Upsample';
  options: ResizeOptions;
  /** Opset 18's `axes` as given (possibly negative); undefined: scales / sizes / roi cover every axis. */
  axes?: number[];
  keepAspectRatio: KeepAspectRatioPolicy;
  /** Where the node's inputs are (undefined: the opset has no such input). */
  roiInput?: number;
  scalesInput?: number;
  sizesInput?: number;
  /** Upsample 7's scales attribute. */
  scalesAttribute?: number[];
}

const KEEP_POLICIES: readonly string[] = ['stretch', 'not_larger', 'not_smaller'];

export function readResizeSpec(op: 'Resize' | 'Upsample', attrs: AttributeReader, opset: number): ResizeSpec {
  if (op === 'Upsample') {
    let mode = attrs.string('mode', 'nearest');
    if (mode === 'bilinear') mode = 'linear';
    if (mode !== 'nearest' && mode !== 'linear') throw new SwitchyardError('INVALID_ARGUMENT', `Upsample: mode must be nearest or linear, got '${mode}'`);
    return {
      op,
      options: { mode, coordinate: 'asymmetric', nearest: 'simple', cubicA: -0.75, excludeOutside: false, extrapolation: 0, antialias: false },
      keepAspectRatio: 'stretch',
      scalesInput: opset >= 9 ? 1 : undefined,
      scalesAttribute: opset >= 9 ? undefined : attrs.floats('scales'),
    };
  }
  const v10 = opset < 11;
  const options: ResizeOptions = {
    mode: attrs.string('mode', 'nearest') as ResizeMode,
    coordinate: (v10 ? 'asymmetric' : attrs.string('coordinate_transformation_mode', 'half_pixel')) as CoordinateMode,
    nearest: (v10 ? 'simple' : attrs.string('nearest_mode', 'round_prefer_floor')) as NearestMode,
    cubicA: attrs.float('cubic_coeff_a', -0.75),
    excludeOutside: attrs.int('exclude_outside', 0) !== 0,
    extrapolation: attrs.float('extrapolation_value', 0),
    antialias: opset >= 18 && attrs.int('antialias', 0) !== 0,
  };
  checkResizeOptions('Resize', options);
  const keep = opset >= 18 ? attrs.string('keep_aspect_ratio_policy', 'stretch') : 'stretch';
  if (!KEEP_POLICIES.includes(keep)) throw new SwitchyardError('INVALID_ARGUMENT', `Resize: keep_aspect_ratio_policy '${keep}' is not stretch, not_larger or not_smaller`);
  return {
    op,
    options,
    axes: opset >= 18 && attrs.has('axes') ? attrs.ints('axes') : undefined,
    keepAspectRatio: keep as KeepAspectRatioPolicy,
    roiInput: v10 ? undefined : 1,
    scalesInput: v10 ? 1 : 2,
    sizesInput: v10 ? undefined : 3,
  };
}

/** The output dims, the scale of every axis (out / in where sizes were given) and, for tf_crop_and_resize, the roi of every axis. */
export interface ResizeTarget {
  outDims: number[];
  scales: number[];
  /** Starts then ends, one per axis (axes not in `axes` get [0, 1]). */
  roi?: number[];
}

/** The axes the inputs refer to, each in [0, rank), distinct. */
function resolveAxes(op: string, axes: number[] | undefined, rank: number): number[] {
  if (axes === undefined) return Array.from({ length: rank }, (_, i) => i);
  const resolved = axes.map((a) => (a < 0 ? a + rank : a));
  for (const a of resolved) if (!(a >= 0 && a < rank)) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: axes [${axes.join(', ')}] out of range for rank ${rank}`);
  if (new Set(resolved).size !== resolved.length) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: axes [${axes.join(', ')}] repeat an axis`);
  return resolved;
}

const present = (t: Tensor | undefined) => (t && t.size > 0 ? t : undefined);

/** The node's runtime inputs (as the kernel context hands them out) → output dims, scales and roi. */
export function resizeTarget(spec: ResizeSpec, xDims: readonly number[], input: (i: number) => Tensor | undefined): ResizeTarget {
  const { op } = spec;
  const rank = xDims.length;
  const axes = resolveAxes(op, spec.axes, rank);
  const scalesT = spec.scalesInput === undefined ? undefined : present(input(spec.scalesInput));
  const sizesT = spec.sizesInput === undefined ? undefined : present(input(spec.sizesInput));
  const outDims = [...xDims];
  const scales = new Array<number>(rank).fill(1);
  const given = spec.scalesAttribute ?? (scalesT ? Array.from(floatData(scalesT, `${op} scales`)) : undefined);
  if (given && sizesT) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: give scales or sizes, not both`);
  if (sizesT) {
    if (sizesT.type !== 'int64') throw new SwitchyardError('INVALID_ARGUMENT', `${op}: sizes must be int64, got ${sizesT.type}`);
    const sizes = Array.from(sizesT.data as BigInt64Array, Number);
    if (sizes.length !== axes.length) throw new SwitchyardError('INVALID_SHAPE', `${op}: sizes has ${sizes.length} entries, expected ${axes.length}`);
    for (const s of sizes) if (!(s >= 0) || !Number.isSafeInteger(s)) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: sizes [${sizes.join(', ')}] must be non-negative integers`);
    const ratio = (i: number) => (xDims[axes[i]] === 0 ? 1 : sizes[i] / xDims[axes[i]]);
    if (spec.keepAspectRatio === 'stretch') {
      axes.forEach((a, i) => {
        outDims[a] = sizes[i];
        scales[a] = ratio(i);
      });
    } else {
      // One scale for every listed axis, the one that keeps the output within (not_larger) or around (not_smaller) sizes.
      const ratios = axes.map((_, i) => ratio(i));
      const scale = spec.keepAspectRatio === 'not_larger' ? Math.min(...ratios) : Math.max(...ratios);
      for (const a of axes) {
        scales[a] = scale;
        outDims[a] = Math.floor(scale * xDims[a] + 0.5);
      }
    }
  } else if (given) {
    if (given.length !== axes.length) throw new SwitchyardError('INVALID_SHAPE', `${op}: scales has ${given.length} entries, expected ${axes.length}`);
    for (const s of given) if (!(s > 0) || !Number.isFinite(s)) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: scales [${given.join(', ')}] must be positive`);
    axes.forEach((a, i) => {
      scales[a] = given[i];
      outDims[a] = Math.floor(xDims[a] * given[i]);
    });
  } else {
    throw new SwitchyardError('INVALID_ARGUMENT', `${op}: one of scales or sizes is required`);
  }
  if (spec.options.coordinate !== 'tf_crop_and_resize') return { outDims, scales };
  const roiT = spec.roiInput === undefined ? undefined : present(input(spec.roiInput));
  if (!roiT || roiT.size !== 2 * axes.length) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: tf_crop_and_resize needs roi with ${2 * axes.length} values`);
  const roiValues = floatData(roiT, `${op} roi`);
  const roi = [...new Array<number>(rank).fill(0), ...new Array<number>(rank).fill(1)];
  axes.forEach((a, i) => {
    roi[a] = roiValues[i];
    roi[a + rank] = roiValues[i + axes.length];
  });
  return { outDims, scales, roi };
}
