/**
 * Node → plan step, on a graph whose shapes are concrete: which native step op runs it, its
 * attribute blob (numbers, laid out as the matching `step_ops_*.cc` reads them), and which node
 * inputs/outputs become step operands (shape-like constant inputs are folded into the blob).
 */
import { AttributeReader, SwitchyardError, type Graph, type Node } from '@switchyard/core';
import { fusedActivationAttrs } from './conv-activation.js';
import { constantFloat, constantFloats, constantInts, given, normalizeAxis, product, staticDims } from './graph-values.js';
import { encodeLstm } from './lstm.js';
import { encodeOnnxAttention, encodeRmsNorm, encodeRotary } from './onnx-transformer-ops.js';

export interface StepSpec {
  op: string;
  attrs: number[];
  /** Node input indices passed to the step, in order; -1 passes "omitted". */
  inputs: number[];
  /** Node output indices the step writes, in order. */
  outputs: number[];
  /** A unary step applied in place to output 0 afterwards (a fused activation the main step lacks). */
  then?: { op: string; attrs: number[] };
}

/** What encoders need from the EP's options. */
export interface EncodeOptions {
  convAlgoSearch?: 'EXHAUSTIVE' | 'HEURISTIC' | 'DEFAULT';
}

type Encoder = (node: Node, graph: Graph, attrs: AttributeReader, options: EncodeOptions) => StepSpec;

function dimsOf(graph: Graph, name: string): number[] {
  const d = staticDims(graph, name);
  if (!d) throw new SwitchyardError('RUNTIME', `rocm plan: the shape of '${name}' is not static at plan time`);
  return d;
}

const simple = (op: string, inputs: number[], attrs: number[] = []): StepSpec => ({ op, attrs, inputs, outputs: [0] });
const unary = (op: string): Encoder => () => simple(op, [0]);
const binary = (op: string): Encoder => () => simple(op, [0, 1]);
const copy: Encoder = () => simple('Copy', [0]);

function axisOf(node: Node, graph: Graph, attrs: AttributeReader, fallback: number, input = 0): number {
  const rank = dimsOf(graph, node.inputs[input]).length;
  const axis = normalizeAxis(attrs.int('axis', fallback), rank);
  if (axis === undefined) throw new SwitchyardError('INVALID_GRAPH', `${node.opType} '${node.name}': axis out of range for rank ${rank}`);
  return axis;
}

function reduceEncoder(op: string): Encoder {
  return (node, graph, attrs) => {
    const dims = dimsOf(graph, node.inputs[0]);
    const axes = attrs.has('axes') ? attrs.ints('axes') : (constantInts(graph, given(node, 1) ? node.inputs[1] : undefined) ?? []);
    const norm = (axes.length === 0 ? dims.map((_, i) => i) : axes.map((a) => normalizeAxis(a, dims.length)!)).sort((a, b) => a - b);
    const first = norm[0] ?? 0;
    const last = norm.length ? norm[norm.length - 1] + 1 : 0;
    return simple(op, [0], [product(dims, 0, first), product(dims, first, last), product(dims, last)]);
  };
}

/** ONNX Slice semantics per axis: clamp start/end into range for the step's direction. */
function sliceEncoder(node: Node, graph: Graph): StepSpec {
  const dims = dimsOf(graph, node.inputs[0]);
  const starts = constantInts(graph, node.inputs[1]) ?? [];
  const ends = constantInts(graph, node.inputs[2]) ?? [];
  const axes = given(node, 3) ? constantInts(graph, node.inputs[3])! : starts.map((_, i) => i);
  const steps = given(node, 4) ? constantInts(graph, node.inputs[4])! : starts.map(() => 1);
  const s = dims.map(() => 0);
  const st = dims.map(() => 1);
  axes.forEach((a, i) => {
    const axis = normalizeAxis(a, dims.length);
    if (axis === undefined) throw new SwitchyardError('INVALID_GRAPH', `Slice '${node.name}': axis ${a} out of range`);
    const n = dims[axis];
    const step = steps[i];
    if (step === 0) throw new SwitchyardError('INVALID_GRAPH', `Slice '${node.name}': step 0`);
    let start = starts[i] < 0 ? starts[i] + n : starts[i];
    start = step > 0 ? Math.min(Math.max(start, 0), n) : Math.min(Math.max(start, -1), n - 1);
    s[axis] = start;
    st[axis] = step;
  });
  return simple('Slice', [0], [...s, ...st]);
}

/**
 * Split as one Slice step per produced output, each reading its part of the input along the axis.
 * The parts' sizes come from the outputs' static shapes at plan time, so every form of the op (the
 * `split` attribute of opsets 2-12, the `split` input of 13+, equal parts, opset 18's `num_outputs`
 * with a smaller last part) is laid out the same way.
 */
export function encodeSplit(node: Node, graph: Graph): StepSpec[] {
  const dims = dimsOf(graph, node.inputs[0]);
  const axis = normalizeAxis(new AttributeReader(node).int('axis', 0), dims.length);
  if (axis === undefined) throw new SwitchyardError('INVALID_GRAPH', `Split '${node.name}': axis out of range for rank ${dims.length}`);
  const specs: StepSpec[] = [];
  let offset = 0;
  node.outputs.forEach((name, i) => {
    const part = name ? dimsOf(graph, name) : undefined;
    const size = part ? part[axis] : 0;
    if (part && (part.length !== dims.length || part.some((d, a) => a !== axis && d !== dims[a]))) {
      throw new SwitchyardError('INVALID_GRAPH', `Split '${node.name}': output ${i} [${part.join(', ')}] is not a part of [${dims.join(', ')}] along axis ${axis}`);
    }
    if (part) specs.push({ op: 'Slice', attrs: [...dims.map((_, a) => (a === axis ? offset : 0)), ...dims.map(() => 1)], inputs: [0], outputs: [i] });
    offset += size;
  });
  if (offset > dims[axis]) throw new SwitchyardError('INVALID_GRAPH', `Split '${node.name}': parts of ${offset} along axis ${axis} exceed its ${dims[axis]}`);
  return specs;
}

function padEncoder(node: Node, graph: Graph, attrs: AttributeReader): StepSpec {
  const rank = dimsOf(graph, node.inputs[0]).length;
  const pads = given(node, 1) ? constantInts(graph, node.inputs[1])! : attrs.ints('pads');
  const value = given(node, 2) ? (constantFloat(graph, node.inputs[2]) ?? 0) : attrs.float('value', 0);
  const mode = ['constant', 'reflect', 'edge'].indexOf(attrs.string('mode', 'constant'));
  return simple('Pad', [0], [mode, value, ...pads.slice(0, rank)]);
}

function clipEncoder(node: Node, graph: Graph, attrs: AttributeReader): StepSpec {
  const opset = graph.opsetFor('') ?? 11;
  const min = opset < 11 ? attrs.float('min', -Infinity) : given(node, 1) ? constantFloat(graph, node.inputs[1])! : -Infinity;
  const max = opset < 11 ? attrs.float('max', Infinity) : given(node, 2) ? constantFloat(graph, node.inputs[2])! : Infinity;
  return simple('Clip', [0], [min, max]);
}

function softmaxEncoder(op: string): Encoder {
  return (node, graph, attrs) => {
    const dims = dimsOf(graph, node.inputs[0]);
    const opset = graph.opsetFor('') ?? 13;
    const axis = normalizeAxis(attrs.int('axis', opset < 13 ? 1 : -1), dims.length)!;
    const from = opset < 13 ? axis : dims.length - 1;
    return simple(op, [0], [product(dims, 0, from), product(dims, from)]);
  };
}

/** Begin/end pads of a 2-D window op, from `pads` or `auto_pad` (SAME_* need the output size). */
function windowPads(node: Node, graph: Graph, attrs: AttributeReader, kernel: number[], strides: number[], dilations: number[]): number[] {
  const autoPad = attrs.string('auto_pad', 'NOTSET');
  if (autoPad === 'NOTSET') return attrs.ints('pads', [0, 0, 0, 0]);
  if (autoPad === 'VALID') return [0, 0, 0, 0];
  const x = dimsOf(graph, node.inputs[0]);
  const y = dimsOf(graph, node.outputs[0]);
  const begin: number[] = [];
  const end: number[] = [];
  for (let i = 0; i < 2; i++) {
    const total = Math.max(0, (y[2 + i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - x[2 + i]);
    const small = Math.floor(total / 2);
    begin.push(autoPad === 'SAME_LOWER' ? total - small : small);
    end.push(autoPad === 'SAME_LOWER' ? small : total - small);
  }
  return [...begin, ...end];
}

const SEARCH = { DEFAULT: 0, HEURISTIC: 1, EXHAUSTIVE: 2 } as const;

/** A 1-D convolution's window attributes as a 2-D one's with H = 1 (plan-description.ts views X, W, Y so). */
function conv1dWindow(node: Node, graph: Graph, attrs: AttributeReader, kernel: number): { pads: number[]; strides: number[]; dilations: number[] } {
  const stride = attrs.ints('strides', [1])[0];
  const dilation = attrs.ints('dilations', [1])[0];
  const autoPad = attrs.string('auto_pad', 'NOTSET');
  let [begin, end] = autoPad === 'NOTSET' ? attrs.ints('pads', [0, 0]) : [0, 0];
  if (autoPad === 'SAME_UPPER' || autoPad === 'SAME_LOWER') {
    const x = dimsOf(graph, node.inputs[0])[2];
    const y = dimsOf(graph, node.outputs[0])[2];
    const total = Math.max(0, (y - 1) * stride + (kernel - 1) * dilation + 1 - x);
    const small = Math.floor(total / 2);
    [begin, end] = autoPad === 'SAME_LOWER' ? [total - small, small] : [small, total - small];
  }
  return { pads: [0, begin, 0, end], strides: [1, stride], dilations: [1, dilation] };
}

function convEncoder(node: Node, graph: Graph, attrs: AttributeReader, options: EncodeOptions): StepSpec {
  const w = dimsOf(graph, node.inputs[1]);
  const oneD = w.length === 3 ? conv1dWindow(node, graph, attrs, w[2]) : undefined;
  const strides = oneD?.strides ?? attrs.ints('strides', [1, 1]);
  const dilations = oneD?.dilations ?? attrs.ints('dilations', [1, 1]);
  const pads = oneD?.pads ?? windowPads(node, graph, attrs, [w[2], w[3]], strides, dilations);
  const search = SEARCH[options.convAlgoSearch ?? 'HEURISTIC'];
  return simple('Conv', given(node, 2) ? [0, 1, 2] : [0, 1], [attrs.int('group', 1), pads[0], pads[1], pads[2], pads[3], strides[0], strides[1], dilations[0], dilations[1], search, 0]);
}

function poolEncoder(kind: 'max' | 'avg' | 'global-avg' | 'global-max'): Encoder {
  return (node, graph, attrs) => {
    const x = dimsOf(graph, node.inputs[0]);
    if (kind === 'global-avg' || kind === 'global-max') return simple('Pool', [0], [kind === 'global-max' ? 0 : 1, x[2], x[3], 0, 0, 0, 0, 1, 1]);
    const kernel = attrs.ints('kernel_shape');
    const strides = attrs.ints('strides', [1, 1]);
    const pads = windowPads(node, graph, attrs, kernel, strides, [1, 1]);
    if (kind === 'max' && attrs.int('ceil_mode', 0) === 1) {
      // Extra end padding makes the floor formula give the ceil-mode size (padding never wins a max).
      const y = dimsOf(graph, node.outputs[0]);
      for (let i = 0; i < 2; i++) pads[2 + i] += Math.max(0, (y[2 + i] - 1) * strides[i] + kernel[i] - (x[2 + i] + pads[i] + pads[2 + i]));
    }
    const mode = kind === 'max' ? 0 : attrs.int('count_include_pad', 0) ? 2 : 1;
    return simple('Pool', [0], [mode, kernel[0], kernel[1], pads[0], pads[1], pads[2], pads[3], strides[0], strides[1]]);
  };
}

/**
 * FusedConv (com.microsoft): Y = act(Conv(X, W) + B + Z). The activation goes into the Conv step's
 * epilogue (conv-activation.ts), Z is the step's fourth operand (the residual, added before it).
 */
function fusedConvEncoder(node: Node, graph: Graph, attrs: AttributeReader, options: EncodeOptions): StepSpec {
  const conv = convEncoder(node, graph, attrs, options);
  conv.inputs = [0, 1, given(node, 2) ? 2 : -1, given(node, 3) ? 3 : -1];
  while (conv.inputs.length > 2 && conv.inputs[conv.inputs.length - 1] === -1) conv.inputs.pop();
  const act = attrs.string('activation', '');
  const epilogue = fusedActivationAttrs(act, attrs.floats('activation_params', []));
  if (!epilogue) throw new SwitchyardError('UNSUPPORTED', `FusedConv '${node.name}': activation '${act}' is not run on rocm`);
  conv.attrs = [...conv.attrs.slice(0, 10), ...epilogue];
  return conv;
}

/** ConvTranspose without output_shape or SAME pads (op-limits.ts declines those): explicit pads only. */
function convTransposeEncoder(node: Node, _graph: Graph, attrs: AttributeReader, options: EncodeOptions): StepSpec {
  const pads = attrs.ints('pads', [0, 0, 0, 0]);
  const strides = attrs.ints('strides', [1, 1]);
  const dilations = attrs.ints('dilations', [1, 1]);
  const outputPadding = attrs.ints('output_padding', [0, 0]);
  const search = SEARCH[options.convAlgoSearch ?? 'HEURISTIC'];
  return simple('ConvTranspose', given(node, 2) ? [0, 1, 2] : [0, 1], [
    attrs.int('group', 1), pads[0], pads[1], pads[2], pads[3], strides[0], strides[1], dilations[0], dilations[1], outputPadding[0], outputPadding[1], search,
  ]);
}

const RESIZE_TRANSFORMS = ['half_pixel', 'asymmetric', 'align_corners', 'pytorch_half_pixel', 'tf_half_pixel_for_nn'];
const RESIZE_NEAREST = ['round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil'];

/**
 * Resize of the last two axes (op-limits.ts checks the rest stay): ONNX maps coordinates with the
 * given scale, or output/input when sizes were given.
 */
function resizeEncoder(node: Node, graph: Graph, attrs: AttributeReader): StepSpec {
  const x = dimsOf(graph, node.inputs[0]);
  const y = dimsOf(graph, node.outputs[0]);
  const r = x.length;
  if (x.slice(0, r - 2).some((d, i) => d !== y[i])) throw new SwitchyardError('UNSUPPORTED', `Resize '${node.name}': rocm resizes only the last two axes ([${x.join(', ')}] → [${y.join(', ')}])`);
  const scales = given(node, 2) ? constantFloats(graph, node.inputs[2]) : undefined;
  const scale = (axis: number) => (scales && scales.length === r ? scales[axis] : y[axis] / x[axis]);
  const mode = attrs.string('mode', 'nearest') === 'linear' ? 1 : 0;
  const transform = RESIZE_TRANSFORMS.indexOf(attrs.string('coordinate_transformation_mode', 'half_pixel'));
  const nearest = RESIZE_NEAREST.indexOf(attrs.string('nearest_mode', 'round_prefer_floor'));
  return simple('Resize', [0], [mode, transform, nearest, scale(r - 2), scale(r - 1)]);
}

const ENCODERS: Record<string, Encoder> = {
  Conv: convEncoder,
  ConvTranspose: convTransposeEncoder,
  Resize: resizeEncoder,
  FusedConv: fusedConvEncoder,
  MaxPool: poolEncoder('max'),
  AveragePool: poolEncoder('avg'),
  GlobalAveragePool: poolEncoder('global-avg'),
  GlobalMaxPool: poolEncoder('global-max'),
  BatchNormalization: (_n, _g, a) => simple('BatchNormalization', [0, 1, 2, 3, 4], [a.float('epsilon', 1e-5)]),
  ...Object.fromEntries(['Add', 'Sub', 'Mul', 'Div', 'Pow', 'Max', 'Min', 'Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual', 'And', 'Or', 'Xor'].map((op) => [op, binary(op)])),
  ...Object.fromEntries(['Relu', 'Sigmoid', 'Tanh', 'Exp', 'Log', 'Sqrt', 'Neg', 'Abs', 'Reciprocal', 'Erf', 'HardSwish', 'Softplus', 'Mish', 'Softsign', 'Not'].map((op) => [op, unary(op)])),
  // The opset-20 Gelu op (current exporters write it): the erf form, or the tanh form when asked.
  Gelu: (_n, _g, a) => simple(a.string('approximate', 'none') === 'tanh' ? 'GeluTanh' : 'GeluErf', [0]),
  Elu: (_n, _g, a) => simple('Elu', [0], [a.float('alpha', 1)]),
  Selu: (_n, _g, a) => simple('Selu', [0], [a.float('alpha', 1.67326319217681884765625), a.float('gamma', 1.05070102214813232421875)]),
  LeakyRelu: (_n, _g, a) => simple('LeakyRelu', [0], [a.float('alpha', 0.01)]),
  HardSigmoid: (_n, _g, a) => simple('HardSigmoid', [0], [a.float('alpha', 0.2), a.float('beta', 0.5)]),
  Clip: clipEncoder,
  Where: () => simple('Where', [0, 1, 2]),
  Cast: () => simple('Cast', [0]),
  Identity: copy,
  Dropout: copy,
  Reshape: copy,
  Flatten: copy,
  Squeeze: copy,
  Unsqueeze: copy,
  Gather: (n, g, a) => simple('Gather', [0, 1], [axisOf(n, g, a, 0)]),
  Concat: (n, g, a) => simple('Concat', n.inputs.map((_, i) => i), [axisOf(n, g, a, 0)]),
  Slice: sliceEncoder,
  Transpose: (n, g, a) => {
    const rank = dimsOf(g, n.inputs[0]).length;
    return simple('Transpose', [0], a.ints('perm', Array.from({ length: rank }, (_, i) => rank - 1 - i)));
  },
  Expand: () => simple('Expand', [0]),
  Pad: padEncoder,
  ...Object.fromEntries(['ReduceSum', 'ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceSumSquare', 'ReduceL1', 'ReduceL2', 'ReduceLogSumExp'].map((op) => [op, reduceEncoder(op)])),
  Softmax: softmaxEncoder('Softmax'),
  LogSoftmax: softmaxEncoder('LogSoftmax'),
  MatMul: binary('MatMul'),
  Gemm: (n, _g, a) => simple('Gemm', given(n, 2) ? [0, 1, 2] : [0, 1], [a.int('transA', 0), a.int('transB', 0), a.float('alpha', 1), a.float('beta', 1)]),
  Attention: encodeOnnxAttention,
  RMSNormalization: encodeRmsNorm,
  RotaryEmbedding: encodeRotary,
  LSTM: (n, g) => encodeLstm(n, g),
  DynamicQuantizeLinear: () => ({ op: 'DynamicQuantizeLinear', attrs: [], inputs: [0], outputs: [0, 1, 2] }),
  LayerNormalization: (n, g, a) => {
    const dims = dimsOf(g, n.inputs[0]);
    return simple('LayerNormalization', given(n, 2) ? [0, 1, 2] : [0, 1], [product(dims, 0, dims.length - 1), dims[dims.length - 1] ?? 1, a.float('epsilon', 1e-5)]);
  },
};

export function encodeStep(node: Node, graph: Graph, options: EncodeOptions = {}): StepSpec {
  const encoder = ENCODERS[node.opType];
  if (node.opType === 'If') throw new SwitchyardError('RUNTIME', `rocm plan: If '${node.name}': its condition was not known when the plan was built, so no branch could take its place`);
  if (!encoder) throw new SwitchyardError('UNSUPPORTED', `rocm plan: no step encoder for ${node.opType}`);
  return encoder(node, graph, new AttributeReader(node), options);
}

/**
 * Ops with an encoder: one step each, Split's one Slice step per output (encodeSplit), and the
 * integer ops' shift, product and Cast steps (integer-ops.ts encodeIntegerOp).
 */
export const ENCODED_OPS: readonly string[] = [...Object.keys(ENCODERS), 'Split', 'ConvInteger', 'MatMulInteger'];
