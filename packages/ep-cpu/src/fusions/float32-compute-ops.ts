/**
 * Which default-domain ops may compute a float16 node in float32 (the float16-in-float32 pass's
 * table). An op qualifies when its float16 inputs and outputs all carry one type that the op only
 * preserves: given float32 copies of the float16 inputs, it computes the same function, and rounding
 * its float32 outputs to float16 once gives the float16 result up to rounding (more exactly, never
 * less). Every op here accepts float32 wherever it accepts float16, at every opset.
 *
 * Left out on purpose: Cast and CastLike (the element type is what they change), ops that make a
 * tensor of an element type named by an attribute or a tensor attribute (ConstantOfShape, Constant,
 * EyeLike, RandomNormal/Uniform(Like), Multinomial, Bernoulli, Range whose float16 steps accumulate
 * differently), the quantize ops (their scale and zero-point types are part of their contract),
 * control flow (a subgraph's types are fixed inside it), OneHot, Optional/Sequence ops, and every
 * op outside the default domain.
 */

/** Ops that compute: worth float32 for their own sake (the oneDNN kernels serve float32 only). */
const COMPUTE = [
  // Convolutions, products, pools, recurrences.
  'Conv', 'ConvTranspose', 'MatMul', 'Gemm', 'Einsum',
  'AveragePool', 'MaxPool', 'LpPool', 'GlobalAveragePool', 'GlobalMaxPool', 'GlobalLpPool', 'RoiAlign',
  'LSTM', 'GRU', 'RNN',
  // Normalizations.
  'BatchNormalization', 'InstanceNormalization', 'LayerNormalization', 'LpNormalization', 'MeanVarianceNormalization', 'LRN',
  // Resampling.
  'Resize', 'Upsample', 'GridSample',
  // Elementwise unary and activations.
  'Abs', 'Neg', 'Exp', 'Log', 'Sqrt', 'Reciprocal', 'Floor', 'Ceil', 'Round', 'Sign', 'Erf',
  'Sin', 'Cos', 'Tan', 'Asin', 'Acos', 'Atan', 'Sinh', 'Cosh', 'Asinh', 'Acosh', 'Atanh',
  'Relu', 'LeakyRelu', 'PRelu', 'Elu', 'Selu', 'Celu', 'Sigmoid', 'HardSigmoid', 'HardSwish', 'Tanh',
  'Softplus', 'Softsign', 'Mish', 'ThresholdedRelu', 'Shrink', 'Clip', 'Dropout', 'IsNaN', 'IsInf',
  // Elementwise binary and variadic, comparisons.
  'Add', 'Sub', 'Mul', 'Div', 'Pow', 'Mod', 'Max', 'Min', 'Sum', 'Mean',
  'Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual', 'Where',
  // Softmax family, reductions, scans.
  'Softmax', 'LogSoftmax', 'Hardmax',
  'ReduceSum', 'ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceProd', 'ReduceL1', 'ReduceL2',
  'ReduceLogSum', 'ReduceLogSumExp', 'ReduceSumSquare', 'ArgMax', 'ArgMin', 'TopK', 'CumSum', 'CumProd',
  // Transformer and state-space blocks (opsets 20-28): Attention's float16 attn_mask is additive, exact in float32.
  'Gelu', 'Swish', 'SwiGLU', 'RMSNormalization', 'RotaryEmbedding', 'Attention', 'LinearAttention', 'CausalConvWithState',
] as const;

/**
 * Ops that only move or select elements: exact in either type. They join a region so that the
 * values between two computing ops stay float32 instead of being cast down and back up.
 */
const DATA_MOVEMENT = [
  'Identity', 'Reshape', 'Flatten', 'Squeeze', 'Unsqueeze', 'Transpose', 'Concat', 'Split', 'Slice',
  'Expand', 'Tile', 'Pad', 'Gather', 'GatherElements', 'GatherND', 'ScatterElements', 'ScatterND', 'Scatter',
  'DepthToSpace', 'SpaceToDepth', 'Compress', 'ReverseSequence', 'Trilu', 'TensorScatter',
] as const;

/**
 * Ops that read only a value's shape: they may read its float32 copy, so they never need a cast of
 * their own, but casting a value just for them would be waste.
 */
const SHAPE_READERS = ['Shape', 'Size'] as const;

const ROLES = new Map<string, Float32Role>([
  ...COMPUTE.map((op) => [op, 'compute'] as const),
  ...DATA_MOVEMENT.map((op) => [op, 'move'] as const),
  ...SHAPE_READERS.map((op) => [op, 'shape'] as const),
]);

/**
 * What a float16 node of this op does in a float32 region: `compute` (worth float32 for itself),
 * `move` (exact either way; joins when connected to computing nodes), `shape` (reads only the shape),
 * or undefined (stays float16).
 */
export type Float32Role = 'compute' | 'move' | 'shape';

export function float32Role(opType: string, domain: string): Float32Role | undefined {
  return domain === '' || domain === 'ai.onnx' ? ROLES.get(opType) : undefined;
}
