/**
 * What the ROCm EP runs on the GPU, as data: op, opset range, dtypes per type constraint, the
 * native step op that runs it, and the attribute/shape limits its kernel has. The EP turns rows into
 * kernel definitions (so core's lookup answers "why not" for op, opset and dtype) and intersects
 * them with the step ops the native build has (`planStepOps()`), declining the rest with a reason.
 */
import type { DataType, Graph, Node } from '@switchyard/core';
import { limitsFor } from './plan/op-limits.js';

/** Float types the kernels compute in (fp16 stored as half, accumulated in float32). */
export const FLOATS: readonly DataType[] = ['float32', 'float16'];
/** Types the movement kernels copy (they move bytes). */
export const MOVABLE: readonly DataType[] = ['float32', 'float16', 'int32', 'int64', 'bool', 'int8', 'uint8'];
const INDICES: readonly DataType[] = ['int32', 'int64'];
/** Types the arithmetic and comparison kernels compute in (integers in int64). */
const NUMERIC: readonly DataType[] = [...FLOATS, 'int32', 'int64'];
/** Pairs the cast kernel converts between. */
const CASTABLE: readonly DataType[] = ['float32', 'float16', 'int32', 'int64', 'bool', 'int8', 'uint8'];
/** The 8-bit operand types of the integer ops. */
const INT8S: readonly DataType[] = ['int8', 'uint8'];

export interface RocmKernelRow {
  opType: string;
  /** '' for the default ONNX domain. */
  domain: string;
  /** First schema version served; earlier versions differ (legacy broadcast/`consumed_inputs` attributes). */
  sinceVersion: number;
  endVersion?: number;
  /** Type-constraint name → dtypes the kernel serves. */
  types: Readonly<Record<string, readonly DataType[]>>;
  /** The native step op(s) the node becomes (`Copy` for reshapes; `Gelu*` pick one at encode time). */
  steps: readonly string[];
  /** Attribute and shape limits beyond the type check: true, or why not. */
  limits?: (node: Node, graph: Graph) => true | string;
}

const row = (opType: string, sinceVersion: number, types: RocmKernelRow['types'], steps: readonly string[] = [opType], endVersion?: number): RocmKernelRow => ({
  opType,
  domain: '',
  sinceVersion,
  endVersion,
  types,
  steps,
  limits: limitsFor(opType),
});

const binary = ['Add', 'Sub', 'Mul', 'Div'].map((op) => row(op, 7, { T: NUMERIC }));
const compare = ['Less', 'Greater'].map((op) => row(op, 7, { T: NUMERIC, T1: ['bool'] }));
const logical = ['And', 'Or', 'Xor'].map((op) => row(op, 7, { T: ['bool'], T1: ['bool'] }));
const unary = ['Relu', 'Sigmoid', 'Tanh', 'Exp', 'Log', 'Sqrt', 'Neg', 'Abs', 'Reciprocal'].map((op) => row(op, 6, { T: FLOATS }));
/**
 * Computed on the host when the plan is built (plan/host-values.ts): no native step. The tensor it
 * reads still enters the plan as an input buffer when it comes from outside the partition, so only
 * types a plan buffer holds (a float64 Shape input failed the plan build: ONNX 1.23.1's
 * test_flexattention_double_expanded_ver26 on the H200).
 */
const SHAPE_TYPES: readonly DataType[] = MOVABLE;
const reduces = ['ReduceSum', 'ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceSumSquare', 'ReduceL1', 'ReduceL2', 'ReduceLogSumExp'].map((op) =>
  row(op, 1, { T: FLOATS }),
);

/** Rows computed on the host when the plan is built (plan/host-values.ts): no step, no encoder. */
export const HOST_ONLY_OPS: ReadonlySet<string> = new Set(['Shape', 'Size', 'Range']);
/** Rows the plan replaces by other nodes before encoding (If: its taken branch, plan/if-branches.ts): no step of their own. */
export const INLINED_OPS: ReadonlySet<string> = new Set(['If']);

export const ROCM_KERNEL_TABLE: readonly RocmKernelRow[] = [
  ...binary,
  row('Pow', 7, { T: FLOATS, T1: FLOATS }),
  row('Max', 8, { T: NUMERIC }),
  row('Min', 8, { T: NUMERIC }),
  row('Equal', 7, { T: [...NUMERIC, 'bool'], T1: ['bool'] }),
  ...compare,
  row('LessOrEqual', 12, { T: NUMERIC, T1: ['bool'] }),
  row('GreaterOrEqual', 12, { T: NUMERIC, T1: ['bool'] }),
  ...logical,
  row('Not', 1, { T: ['bool'] }),
  ...unary,
  row('Elu', 6, { T: FLOATS }),
  row('Selu', 6, { T: FLOATS }),
  row('Softplus', 1, { T: FLOATS }),
  row('Softsign', 1, { T: FLOATS }),
  row('Mish', 18, { T: FLOATS }),
  row('Shape', 1, { T: SHAPE_TYPES }, []),
  row('Size', 1, { T: SHAPE_TYPES }, []),
  row('Range', 11, { T: ['int32', 'int64', 'float32'] }, []),
  row('ConstantOfShape', 9, { T1: ['int64'], T2: MOVABLE }, ['Expand']),
  row('LeakyRelu', 6, { T: FLOATS }),
  row('HardSigmoid', 6, { T: FLOATS }),
  row('HardSwish', 14, { T: FLOATS }),
  row('Erf', 9, { T: FLOATS }),
  row('Gelu', 20, { T: FLOATS }, ['GeluErf', 'GeluTanh']),
  row('Clip', 6, { T: FLOATS }),
  row('Where', 9, { B: ['bool'], T: MOVABLE }),
  // No step: the plan holds the taken branch's nodes in its place (plan/if-branches.ts).
  row('If', 1, { B: ['bool'], V: MOVABLE }, []),
  row('Cast', 6, { T1: CASTABLE, T2: CASTABLE }),
  row('Identity', 1, { T: MOVABLE, V: MOVABLE }, ['Copy']),
  row('Dropout', 7, { T: FLOATS, T1: FLOATS, T2: ['bool'] }, ['Copy']),
  row('Reshape', 5, { T: MOVABLE }, ['Copy']),
  row('Flatten', 1, { T: MOVABLE }, ['Copy']),
  row('Squeeze', 1, { T: MOVABLE }, ['Copy']),
  row('Unsqueeze', 1, { T: MOVABLE }, ['Copy']),
  row('Gather', 1, { T: MOVABLE, Tind: INDICES }),
  row('Concat', 4, { T: MOVABLE }),
  row('Slice', 10, { T: MOVABLE, Tind: INDICES }),
  // One Slice step per output (plan/step-encoders.ts encodeSplit); opset 1's split-as-input form is not served.
  row('Split', 2, { T: MOVABLE }, ['Slice']),
  row('Transpose', 1, { T: MOVABLE }),
  row('Expand', 8, { T: MOVABLE }),
  row('Pad', 11, { T: MOVABLE }),
  ...reduces,
  row('Softmax', 1, { T: FLOATS }),
  row('LogSoftmax', 1, { T: FLOATS }),
  row('LayerNormalization', 17, { T: FLOATS, U: ['float32'] }),
  row('RMSNormalization', 23, { T: FLOATS, V: FLOATS }),
  // U: attn_mask, bool or additive (op-limits: of Q's type).
  row('Attention', 23, { T1: FLOATS, T2: FLOATS, U: [...FLOATS, 'bool'] }, ['OnnxAttention']),
  row('RotaryEmbedding', 23, { T: FLOATS, M: ['int64'] }),
  row('MatMul', 1, { T: FLOATS }),
  row('Gemm', 7, { T: FLOATS }, ['Gemm', 'Expand']),
  row('Conv', 1, { T: FLOATS }),
  row('ConvTranspose', 1, { T: FLOATS }),
  row('Resize', 11, { T1: FLOATS, T2: ['float32'] }),
  { ...row('FusedConv', 1, { T: FLOATS }, ['Conv']), domain: 'com.microsoft' },
  row('MaxPool', 1, { T: FLOATS }, ['Pool']),
  row('AveragePool', 1, { T: FLOATS }, ['Pool']),
  row('GlobalAveragePool', 1, { T: FLOATS }, ['Pool']),
  row('GlobalMaxPool', 1, { T: FLOATS }, ['Pool']),
  row('BatchNormalization', 7, { T: FLOATS, T1: FLOATS, T2: FLOATS, U: FLOATS }),
  // One Lstm step (plan/lstm.ts says which forms); T1 is sequence_lens, which the limits decline.
  row('LSTM', 7, { T: FLOATS, T1: ['int32'] }, ['Lstm']),
  // Dynamic int8 quantization (plan/integer-ops.ts): the integer ops run on the float convolution /
  // GEMM over operands shifted into float32, exact as that module says.
  row('DynamicQuantizeLinear', 11, { T1: ['float32'], T2: ['uint8'] }),
  row('ConvInteger', 10, { T1: INT8S, T2: INT8S, T3: ['int32'] }, ['QuantShift', 'ConvIntegerF32', 'Cast', 'Rescale']),
  row('MatMulInteger', 10, { T1: INT8S, T2: INT8S, T3: ['int32'] }, ['QuantShift', 'MatMul', 'Cast']),
];
