/**
 * Elementwise ops: same-shape unary ops and activations, numpy-broadcasting binary and variadic ops,
 * and the casts. Element types mostly come from the schema; these rules add shapes.
 */
import type { ShapeRule } from '../context.js';
import { dataTypeFromOnnx, isDataType, type DataType } from '../../tensor/data-type.js';
import { broadcastShapes } from '../dims.js';

/** Output `i` has input 0's shape (and dtype unless the schema said otherwise). */
export const sameShape: ShapeRule = (ctx) => {
  for (let o = 0; o < ctx.outputs.length; o++) if (ctx.hasOutput(o)) ctx.setShape(o, ctx.shape(0));
};

const UNARY = [
  'Abs', 'Acos', 'Acosh', 'Asin', 'Asinh', 'Atan', 'Atanh', 'Ceil', 'Cos', 'Cosh', 'Erf', 'Exp', 'Floor',
  'Log', 'Neg', 'Reciprocal', 'Round', 'Sigmoid', 'Sign', 'Sin', 'Sinh', 'Softplus', 'Softsign', 'Sqrt',
  'Tan', 'Tanh', 'Relu', 'LeakyRelu', 'Elu', 'Selu', 'Celu', 'HardSigmoid', 'HardSwish', 'ThresholdedRelu',
  'Mish', 'Shrink', 'IsNaN', 'IsInf', 'Not', 'BitwiseNot', 'Clip', 'Identity', 'Softmax', 'LogSoftmax',
  'Hardmax', 'LRN', 'CumSum', 'Trilu', 'MeanVarianceNormalization', 'LpNormalization', 'ReverseSequence',
  'Scatter', 'ScatterElements', 'ScatterND', 'InstanceNormalization', 'Gelu', 'DequantizeLinear',
  'Dropout', 'Affine', 'ScaledTanh', 'ParametricSoftplus', 'ImageScaler',
];

const BROADCAST = [
  'Add', 'Sub', 'Mul', 'Div', 'Pow', 'Mod', 'And', 'Or', 'Xor', 'Equal', 'Greater', 'Less', 'GreaterOrEqual',
  'LessOrEqual', 'BitShift', 'BitwiseAnd', 'BitwiseOr', 'BitwiseXor', 'Max', 'Min', 'Mean', 'Sum', 'Where',
];

/** Before opset 7 arithmetic broadcast only B onto A (`broadcast`/`axis` attributes), so C has A's shape. */
const LEGACY_BROADCAST = new Set(['Add', 'Sub', 'Mul', 'Div', 'Pow', 'And', 'Or', 'Xor', 'Equal', 'Greater', 'Less']);

const broadcast: ShapeRule = (ctx) => {
  if (ctx.opset < 7 && LEGACY_BROADCAST.has(ctx.node.opType)) {
    ctx.setShape(0, ctx.shape(0));
    return;
  }
  const shapes = ctx.node.inputs.map((name, i) => (name ? ctx.shape(i) : undefined));
  ctx.setShape(0, broadcastShapes(shapes));
};

/** PRelu's slope broadcasts onto X only (per channel before opset 7), so Y always has X's shape. */
const prelu: ShapeRule = (ctx) => ctx.setShape(0, ctx.shape(0));

/** An element type from a `to`/`dtype` attribute: ONNX enum number, or a name in very old opsets. */
export function dtypeAttr(value: number | string | undefined): DataType | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return dataTypeFromOnnx(value);
  const name = value.toLowerCase();
  const spelled = name === 'float' ? 'float32' : name === 'double' ? 'float64' : name;
  return isDataType(spelled) ? spelled : undefined;
}

const cast: ShapeRule = (ctx) => {
  const to = ctx.attrs.raw('to');
  const t = dtypeAttr(to?.type === 'int' ? to.value : to?.type === 'string' ? to.value : undefined);
  ctx.setShape(0, ctx.shape(0), t);
};

const castLike: ShapeRule = (ctx) => ctx.setShape(0, ctx.shape(0), ctx.elemType(1));

/** QuantizeLinear's output type is its zero point's, uint8 when that is omitted. */
const quantizeLinear: ShapeRule = (ctx) => ctx.setShape(0, ctx.shape(0), ctx.elemType(2) ?? 'uint8');

const dynamicQuantizeLinear: ShapeRule = (ctx) => {
  ctx.setShape(0, ctx.shape(0), 'uint8');
  ctx.setShape(1, [], 'float32');
  ctx.setShape(2, [], 'uint8');
};

/** Ops whose output dtype is an optional `dtype` attribute, else the input's. */
const likeWithDtype: ShapeRule = (ctx) => {
  const t = ctx.attrs.has('dtype') ? dtypeAttr(ctx.attrs.int('dtype')) : undefined;
  ctx.setShape(0, ctx.shape(0), t ?? ctx.elemType(0));
};

export const elementwiseRules: Record<string, ShapeRule> = {
  ...Object.fromEntries(UNARY.map((op) => [op, sameShape])),
  ...Object.fromEntries(BROADCAST.map((op) => [op, broadcast])),
  PRelu: prelu,
  Cast: cast,
  CastLike: castLike,
  QuantizeLinear: quantizeLinear,
  DynamicQuantizeLinear: dynamicQuantizeLinear,
  EyeLike: likeWithDtype,
  RandomNormalLike: likeWithDtype,
  RandomUniformLike: likeWithDtype,
  Bernoulli: likeWithDtype,
};
