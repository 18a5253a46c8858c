/**
 * ONNX operators MIGraphX's ONNX parser handles, as data: the fallback used when the library's own
 * registry (`migraphx_get_onnx_operator_name_at_index`) cannot be asked -- e.g. for `inspect` on a
 * machine without MIGraphX. It mirrors the list onnxruntime's MIGraphX EP used before it switched
 * to asking the library; the library's answer always wins when it is available.
 */
export const STATIC_MIGRAPHX_ONNX_OPERATORS: readonly string[] = [
  'Abs', 'Acos', 'Acosh', 'Add', 'And', 'ArgMax', 'ArgMin', 'Asin', 'Asinh', 'Atan', 'Atanh',
  'AveragePool', 'BatchNormalization', 'Cast', 'Ceil', 'Celu', 'Clip', 'Concat', 'Constant',
  'ConstantOfShape', 'Conv', 'ConvInteger', 'ConvTranspose', 'Cos', 'Cosh', 'CumSum', 'DepthToSpace',
  'DequantizeLinear', 'Div', 'Dropout', 'Elu', 'Equal', 'Erf', 'Exp', 'Expand', 'EyeLike', 'Flatten',
  'Floor', 'GRU', 'Gather', 'GatherElements', 'GatherND', 'Gemm', 'GlobalAveragePool', 'GlobalMaxPool',
  'Greater', 'GreaterOrEqual', 'HardSigmoid', 'HardSwish', 'Identity', 'If', 'InstanceNormalization',
  'IsNaN', 'LRN', 'LSTM', 'LeakyRelu', 'Less', 'LessOrEqual', 'Log', 'LogSoftmax', 'Loop',
  'LpNormalization', 'MatMul', 'MatMulInteger', 'Max', 'MaxPool', 'Mean', 'Min', 'Mod', 'Mul',
  'Multinomial', 'Neg', 'NonMaxSuppression', 'NonZero', 'Not', 'OneHot', 'Or', 'PRelu', 'Pad', 'Pow',
  'QLinearAdd', 'QLinearConv', 'QLinearMatMul', 'QuantizeLinear', 'RNN', 'RandomNormal',
  'RandomNormalLike', 'RandomUniform', 'RandomUniformLike', 'Range', 'Reciprocal', 'ReduceL1',
  'ReduceL2', 'ReduceLogSum', 'ReduceLogSumExp', 'ReduceMax', 'ReduceMean', 'ReduceMin', 'ReduceProd',
  'ReduceSum', 'ReduceSumSquare', 'Relu', 'Reshape', 'Resize', 'ReverseSequence', 'RoiAlign', 'Round',
  'Scatter', 'ScatterElements', 'ScatterND', 'Selu', 'Shape', 'Sigmoid', 'Sign', 'Sin', 'Sinh', 'Slice',
  'Softmax', 'Softplus', 'Softsign', 'SpaceToDepth', 'Split', 'Sqrt', 'Squeeze', 'Sub', 'Sum', 'Tan',
  'Tanh', 'ThresholdedRelu', 'Tile', 'TopK', 'Transpose', 'Trilu', 'Unsqueeze', 'Upsample', 'Where', 'Xor',
];

/** The operator set to plan with: the library's list when it gave one, else the static table. */
export function migraphxOperators(fromLibrary: readonly string[] | null | undefined): { operators: ReadonlySet<string>; source: 'library' | 'static' } {
  return fromLibrary && fromLibrary.length > 0 ? { operators: new Set(fromLibrary), source: 'library' } : { operators: new Set(STATIC_MIGRAPHX_ONNX_OPERATORS), source: 'static' };
}
