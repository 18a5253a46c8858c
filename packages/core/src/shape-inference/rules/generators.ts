/**
 * Ops that make tensors from attributes or scalar operands: Constant, ConstantOfShape, Range, the
 * random generators, the window functions and MelWeightMatrix. Small results are recorded as known
 * values so later shape arithmetic can read them.
 */
import type { ShapeRule } from '../context.js';
import type { Dim } from '../../ir/graph.js';
import { MAX_KNOWN_ELEMENTS, knownFromTensor } from '../known-values.js';
import { isStaticShape } from '../dims.js';
import { dtypeAttr } from './elementwise.js';
import { shapeOperand } from './reshape.js';

const constant: ShapeRule = (ctx) => {
  for (const [name, a] of ctx.node.attributes) {
    switch (name) {
      case 'value':
        if (a.type !== 'tensor') return;
        ctx.setShape(0, [...a.value.dims], a.value.type);
        ctx.setValue(0, knownFromTensor(a.value));
        return;
      case 'value_float':
      case 'value_int':
        if (a.type !== 'float' && a.type !== 'int') return;
        ctx.setShape(0, [], a.type === 'int' ? 'int64' : 'float32');
        ctx.setValue(0, { type: a.type === 'int' ? 'int64' : 'float32', dims: [], values: [a.value] });
        return;
      case 'value_floats':
      case 'value_ints':
        if (a.type !== 'floats' && a.type !== 'ints') return;
        ctx.setShape(0, [a.value.length], a.type === 'ints' ? 'int64' : 'float32');
        ctx.setValue(0, { type: a.type === 'ints' ? 'int64' : 'float32', dims: [a.value.length], values: [...a.value] });
        return;
      case 'value_string':
        return ctx.setShape(0, [], 'string');
      case 'value_strings':
        if (a.type === 'strings') ctx.setShape(0, [a.value.length], 'string');
        return;
      // sparse_value: dims live in the undecoded proto; the type stays unknown.
    }
  }
};

const constantOfShape: ShapeRule = (ctx) => {
  const fill = ctx.attrs.tensor('value');
  const type = fill?.type ?? 'float32';
  const dims = shapeOperand(ctx, 0);
  ctx.setShape(0, dims, type);
  if (!isStaticShape(dims) || dims.some((d) => d < 0)) return;
  const count = dims.reduce((a, b) => a * b, 1);
  if (count > MAX_KNOWN_ELEMENTS) return;
  const v = fill ? knownFromTensor(fill)?.values[0] : 0;
  if (v !== undefined) ctx.setValue(0, { type, dims, values: Array<Dim>(count).fill(v) });
};

const range: ShapeRule = (ctx) => {
  const [start, limit, delta] = [ctx.scalar(0), ctx.scalar(1), ctx.scalar(2)];
  if (start === undefined || limit === undefined || delta === undefined || delta === 0) {
    return ctx.setShape(0, [undefined]);
  }
  const n = Math.max(Math.ceil((limit - start) / delta), 0);
  ctx.setShape(0, [n]);
  if (n <= MAX_KNOWN_ELEMENTS) {
    const type = ctx.elemType(0) ?? 'int64';
    ctx.setValue(0, { type, dims: [n], values: Array.from({ length: n }, (_, i) => start + i * delta) });
  }
};

/** RandomNormal/RandomUniform: `shape` and `dtype` (default float) attributes. */
const randomFromAttrs: ShapeRule = (ctx) => {
  const t = dtypeAttr(ctx.attrs.int('dtype', 1)) ?? 'float32';
  ctx.setShape(0, ctx.attrs.has('shape') ? [...ctx.attrs.ints('shape')] : undefined, t);
};

const multinomial: ShapeRule = (ctx) => {
  const t = dtypeAttr(ctx.attrs.int('dtype', 6)) ?? 'int32';
  ctx.setShape(0, [ctx.shape(0)?.[0], ctx.attrs.int('sample_size', 1)], t);
};

/** Hann/Hamming/Blackman windows: `[size]` of `output_datatype` (default float). */
const windowFunction: ShapeRule = (ctx) => {
  const t = dtypeAttr(ctx.attrs.int('output_datatype', 1)) ?? 'float32';
  ctx.setShape(0, [ctx.scalar(0)], t);
};

const melWeightMatrix: ShapeRule = (ctx) => {
  const t = dtypeAttr(ctx.attrs.int('output_datatype', 1)) ?? 'float32';
  const dftLength = ctx.scalar(1);
  ctx.setShape(0, [dftLength === undefined ? undefined : Math.floor(dftLength / 2) + 1, ctx.scalar(0)], t);
};

export const generatorRules: Record<string, ShapeRule> = {
  Constant: constant,
  ConstantOfShape: constantOfShape,
  Range: range,
  RandomNormal: randomFromAttrs,
  RandomUniform: randomFromAttrs,
  Multinomial: multinomial,
  HannWindow: windowFunction,
  HammingWindow: windowFunction,
  BlackmanWindow: windowFunction,
  MelWeightMatrix: melWeightMatrix,
};
