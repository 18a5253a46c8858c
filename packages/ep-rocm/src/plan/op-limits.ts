/**
 * What each GPU kernel needs beyond op, opset and dtype, checked when the EP claims nodes (shapes may
 * still be symbolic then). Each answer is `true` or the reason, in words a user can act on.
 */
import { AttributeReader, type Graph, type Node } from '@switchyard/core';
import { constantOf, constantFloats, elemTypeOf, given, normalizeAxis, rankOf, used } from './graph-values.js';
import { planTimeKnown } from './host-values.js';
import { branchShapeProblem, planTimeDecidable } from './if-branches.js';
import { lstmLimits } from './lstm.js';
import { attentionLimits, rmsNormLimits, rotaryLimits } from './onnx-transformer-ops.js';
import { convIntegerLimits, matMulIntegerZeroPoints } from './integer-ops.js';

type Limit = (node: Node, graph: Graph) => true | string;

const constantInputs = (what: string, ...indices: number[]): Limit => (node, graph) => {
  for (const i of indices) {
    if (given(node, i) && !constantOf(graph, node.inputs[i])) return `${what} (input ${i}) must be a constant initializer: the GPU plan is laid out before the run`;
  }
  return true;
};

/** Shape-like inputs: a constant, or shape arithmetic the plan computes on the host (host-values.ts). */
const knownInputs = (what: string, ...indices: number[]): Limit => (node, graph) => {
  for (const i of indices) {
    if (given(node, i) && !planTimeKnown(graph, node.inputs[i])) return `${what} (input ${i}) must be a constant or computed from shapes: the GPU plan is laid out before the run`;
  }
  return true;
};

const onlyFirstOutput: Limit = (node) => (node.outputs.slice(1).some((o) => o !== '') ? `only output 0 is produced on rocm (${node.opType}'s other outputs are used)` : true);

const both = (...limits: Limit[]): Limit => (node, graph) => {
  for (const l of limits) {
    const r = l(node, graph);
    if (r !== true) return r;
  }
  return true;
};

const reduceAxes: Limit = (node, graph) => {
  const attrs = new AttributeReader(node);
  const rank = rankOf(graph, node.inputs[0]);
  if (rank === undefined) return 'the input rank must be known';
  let axes: number[] | undefined;
  if (attrs.has('axes')) axes = attrs.ints('axes');
  else if (given(node, 1)) {
    const c = constantOf(graph, node.inputs[1]);
    if (!c) return 'axes (input 1) must be a constant initializer';
    axes = Array.from(c.data as BigInt64Array, Number);
  } else axes = [];
  if (axes.length === 0) return attrs.int('noop_with_empty_axes', 0) === 1 ? 'noop_with_empty_axes=1 with no axes is not run on rocm' : true;
  const norm = axes.map((a) => normalizeAxis(a, rank));
  if (norm.some((a) => a === undefined)) return `axes ${JSON.stringify(axes)} are out of range for rank ${rank}`;
  const sorted = (norm as number[]).sort((a, b) => a - b);
  return sorted.every((a, i) => i === 0 || a === sorted[i - 1] + 1) ? true : `axes ${JSON.stringify(axes)} are not one contiguous range (the reduce kernel takes [outer, reduce, inner])`;
};

const softmaxAxis: Limit = (node, graph) => {
  const attrs = new AttributeReader(node);
  const rank = rankOf(graph, node.inputs[0]);
  if (rank === undefined) return 'the input rank must be known';
  const opset = graph.opsetFor('') ?? 13;
  if (opset < 13) return normalizeAxis(attrs.int('axis', 1), rank) === undefined ? 'axis out of range' : true;
  return normalizeAxis(attrs.int('axis', -1), rank) === rank - 1 ? true : 'softmax over an axis other than the last is not run on rocm (the kernel works on rows)';
};

function spatialDims(graph: Graph, name: string): number[] | undefined {
  const t = graph.typeOf(name);
  const shape = t?.kind === 'tensor' ? t.shape : undefined;
  if (!shape || shape.length !== 4 || typeof shape[2] !== 'number' || typeof shape[3] !== 'number') return undefined;
  return [0, 0, shape[2], shape[3]];
}

/**
 * The DNN library pads both sides of an axis alike. A Conv whose begin and end pads differ runs on rocm
 * only in its GEMM form (im2col + GEMM: native-hip plan/conv_gemm.h), which is for ungrouped
 * convolutions; a grouped one stays off the GPU.
 */
const groupedConvPads: Limit = (node, graph) => {
  const attrs = new AttributeReader(node);
  if (attrs.int('group', 1) === 1) return true;
  const uneven = `a grouped Conv with uneven begin/end pads is not run on rocm (the DNN library pads both sides alike; the GEMM form is for group 1)`;
  const autoPad = attrs.string('auto_pad', 'NOTSET');
  if (autoPad === 'NOTSET') {
    const p = attrs.ints('pads', [0, 0, 0, 0]);
    return p[0] === p[2] && p[1] === p[3] ? true : uneven;
  }
  if (autoPad === 'VALID') return true;
  // SAME_UPPER / SAME_LOWER pad unevenly where an axis's total padding is odd.
  const x = spatialDims(graph, node.inputs[0]);
  const w = spatialDims(graph, node.inputs[1]);
  if (!x || !w) return `a grouped Conv with auto_pad ${autoPad} needs static spatial dims on rocm`;
  const strides = attrs.ints('strides', [1, 1]);
  const dilations = attrs.ints('dilations', [1, 1]);
  for (let i = 0; i < 2; i++) {
    const out = Math.ceil(x[2 + i] / strides[i]);
    const total = Math.max(0, (out - 1) * strides[i] + (w[2 + i] - 1) * dilations[i] + 1 - x[2 + i]);
    if (total % 2 !== 0) return uneven;
  }
  return true;
};

/** The pooling library pads both sides of an axis alike: asymmetric (or ceil-mode) windows stay off the GPU. */
function pool2d(max: boolean): Limit {
  return (node, graph) => {
    if (rankOf(graph, node.inputs[0]) !== 4) return 'only 2-D (NCHW) pooling runs on rocm';
    const attrs = new AttributeReader(node);
    if (attrs.ints('dilations', [1, 1]).some((d) => d !== 1)) return 'dilated pooling is not run on rocm';
    if (attrs.int('storage_order', 0) !== 0) return 'column-major pooling indices are not produced on rocm';
    const autoPad = attrs.string('auto_pad', 'NOTSET');
    const kernel = attrs.ints('kernel_shape', []);
    const strides = attrs.ints('strides', [1, 1]);
    const pads = autoPad === 'NOTSET' ? attrs.ints('pads', [0, 0, 0, 0]) : [0, 0, 0, 0];
    // Only the spatial dims matter here (a symbolic batch is fine).
    const x = spatialDims(graph, node.inputs[0]);
    const y = spatialDims(graph, node.outputs[0]);
    if (autoPad === 'SAME_UPPER' || autoPad === 'SAME_LOWER') {
      if (!x || !y) return `${autoPad} pooling needs static spatial dims on rocm`;
      for (let i = 0; i < 2; i++) if (Math.max(0, (y[2 + i] - 1) * strides[i] + kernel[i] - x[2 + i]) % 2 !== 0) return `${autoPad} pooling here pads one side more than the other, which the pooling library cannot`;
    }
    if (pads[0] !== pads[2] || pads[1] !== pads[3]) return 'asymmetric pooling pads are not run on rocm (the pooling library pads both sides alike)';
    if (attrs.int('ceil_mode', 0) !== 0) {
      if (!max) return 'AveragePool with ceil_mode=1 is not run on rocm';
      if (!x || !y) return 'ceil_mode=1 pooling needs static spatial dims on rocm';
      for (let i = 0; i < 2; i++) if (Math.floor((x[2 + i] + 2 * pads[i] - kernel[i]) / strides[i]) + 1 !== y[2 + i]) return 'ceil_mode=1 changes the output size here, which the pooling library cannot do';
    }
    return true;
  };
}

const FUSED_ACTIVATIONS = ['Relu', 'LeakyRelu', 'Clip', 'Sigmoid', 'Tanh', 'HardSigmoid', 'HardSwish', 'Swish', 'Gelu', 'FastGelu', 'Elu', 'Softplus', 'Mish'];

/** 2-D convolutions, and 1-D ones (run as 2-D with H = 1) whose filter is a constant. */
const convRank: Limit = (node, graph) => {
  const rank = rankOf(graph, node.inputs[0]);
  if (rank === 4) return groupedConvPads(node, graph);
  if (rank !== 3) return 'only 1-D and 2-D convolutions run on rocm';
  if (!constantOf(graph, node.inputs[1])) return 'a 1-D convolution runs on rocm only with a constant filter (W is viewed as [k, c, 1, kw])';
  const attrs = new AttributeReader(node);
  if (attrs.int('group', 1) === 1) return true;
  const autoPad = attrs.string('auto_pad', 'NOTSET');
  const p = attrs.ints('pads', [0, 0]);
  return autoPad === 'VALID' || (autoPad === 'NOTSET' && p[0] === p[1]) ? true : 'a grouped 1-D Conv with uneven or SAME pads is not run on rocm';
};

const convTranspose: Limit = (node, graph) => {
  if (rankOf(graph, node.inputs[0]) !== 4) return 'only 2-D (NCHW) transposed convolutions run on rocm';
  const attrs = new AttributeReader(node);
  if (attrs.has('output_shape')) return 'ConvTranspose with output_shape is not run on rocm (give pads instead)';
  const autoPad = attrs.string('auto_pad', 'NOTSET');
  if (autoPad !== 'NOTSET' && autoPad !== 'VALID') return `ConvTranspose auto_pad ${autoPad} is not run on rocm`;
  const p = autoPad === 'VALID' ? [0, 0, 0, 0] : attrs.ints('pads', [0, 0, 0, 0]);
  if (p.length !== 4 || p[0] !== p[2] || p[1] !== p[3]) return 'ConvTranspose with uneven begin/end pads is not run on rocm (the DNN library pads both sides alike)';
  const strides = attrs.ints('strides', [1, 1]);
  const op = attrs.ints('output_padding', [0, 0]);
  if (op.some((v, i) => v < 0 || v >= (strides[i] ?? 1))) return 'output_padding must be below the stride';
  return true;
};

const RESIZE_TRANSFORMS = ['half_pixel', 'asymmetric', 'align_corners', 'pytorch_half_pixel', 'tf_half_pixel_for_nn'];

/** Resize of the last two axes of a rank-4 tensor, nearest or linear, scales or sizes known at plan time. */
const resize: Limit = (node, graph) => {
  const x = graph.typeOf(node.inputs[0]);
  const y = graph.typeOf(node.outputs[0]);
  const xs = x?.kind === 'tensor' ? x.shape : undefined;
  const ys = y?.kind === 'tensor' ? y.shape : undefined;
  if (!xs || xs.length !== 4) return 'only 4-D (NCHW) Resize runs on rocm';
  const attrs = new AttributeReader(node);
  const mode = attrs.string('mode', 'nearest');
  if (mode !== 'nearest' && mode !== 'linear') return `Resize mode '${mode}' is not run on rocm`;
  const transform = attrs.string('coordinate_transformation_mode', 'half_pixel');
  if (!RESIZE_TRANSFORMS.includes(transform)) return `Resize coordinate_transformation_mode '${transform}' is not run on rocm`;
  if (attrs.int('antialias', 0) !== 0) return 'antialiased Resize is not run on rocm';
  if (attrs.has('axes')) return 'Resize with axes is not run on rocm';
  if (attrs.string('keep_aspect_ratio_policy', 'stretch') !== 'stretch') return 'Resize keep_aspect_ratio_policy other than stretch is not run on rocm';
  // Sizes computed from symbolic dims leave the output's N and C unknown here; the plan's encoder
  // checks them on concrete shapes (step-encoders.ts resizeEncoder).
  const keepsNC = !ys || ((ys[0] === null || ys[0] === undefined || ys[0] === xs[0]) && (ys[1] === null || ys[1] === undefined || ys[1] === xs[1]));
  if (given(node, 3)) {
    if (!planTimeKnown(graph, node.inputs[3])) return 'Resize sizes (input 3) must be a constant or computed from shapes';
    return keepsNC ? true : 'Resize must keep N and C (only H and W are resized on rocm)';
  }
  if (!given(node, 2)) return 'Resize needs scales or sizes';
  const scales = constantFloats(graph, node.inputs[2]);
  if (scales) return scales.length === 4 && scales[0] === 1 && scales[1] === 1 ? true : 'Resize must keep N and C (scales [1, 1, sh, sw])';
  if (!planTimeKnown(graph, node.inputs[2])) return 'Resize scales (input 2) must be a constant or computed from shapes';
  return keepsNC ? true : 'Resize must keep N and C (only H and W are resized on rocm)';
};

/**
 * The strided GEMM runs one batch of products: each operand either has the output's batch dims or
 * none (all 1), so [3, 1] × [1, 2] batches (a cross product) cannot be expressed. Symbolic dims count
 * as equal when they carry the same name; what cannot be shown to fit is declined here rather than
 * failing when the plan is built.
 */
function stridedBatch(graph: Graph, node: Node): true | string {
  const shapeOf = (name: string) => {
    const t = graph.typeOf(name);
    return t?.kind === 'tensor' ? t.shape : undefined;
  };
  const y = shapeOf(node.outputs[0]);
  if (!y) return 'the output rank of the MatMul is unknown';
  const yBatch = y.slice(0, -2);
  for (const input of node.inputs.slice(0, 2)) {
    const dims = shapeOf(input);
    if (!dims) return `the rank of '${input}' is unknown`;
    const batch = dims.slice(0, -2);
    if (batch.every((d) => d === 1)) continue;
    const offset = yBatch.length - batch.length;
    if (batch.every((d, i) => d !== undefined && d === yBatch[offset + i]) && yBatch.slice(0, offset).every((d) => d === 1)) continue;
    return `MatMul batch dims [${batch.join(', ')}] of '${input}' neither match the output's [${yBatch.join(', ')}] nor are all 1: the strided GEMM cannot broadcast them`;
  }
  return true;
}

/** Operand ranks and batch dims the strided GEMM serves. */
const matMulShapes: Limit = (node, graph) => {
  const ra = rankOf(graph, node.inputs[0]);
  const rb = rankOf(graph, node.inputs[1]);
  if (ra === undefined || rb === undefined) return 'operand ranks must be known';
  if (ra < 2 || rb < 2) return `${node.opType} with a 1-D operand is not run on rocm`;
  if (!(ra === rb || ra === 2 || rb === 2)) return `${node.opType} operands of different ranks above 2 are not run on rocm (the strided GEMM cannot broadcast them)`;
  return stridedBatch(graph, node);
};

const LIMITS: Record<string, Limit> = {
  Gelu: (node) => {
    const approximate = new AttributeReader(node).string('approximate', 'none');
    return approximate === 'none' || approximate === 'tanh' ? true : `Gelu approximate='${approximate}' is not one of 'none', 'tanh'`;
  },
  Reshape: knownInputs('the target shape', 1),
  Squeeze: knownInputs('axes', 1),
  Unsqueeze: knownInputs('axes', 1),
  Expand: knownInputs('the target shape', 1),
  Clip: constantInputs('min/max', 1, 2),
  Slice: knownInputs('starts/ends/axes/steps', 1, 2, 3, 4),
  Split: knownInputs('split', 1),
  LSTM: lstmLimits,
  If: (node, graph) =>
    branchShapeProblem(node) ??
    (planTimeDecidable(graph, node.inputs[0])
      ? true
      : 'If runs on rocm only when its condition is known when the plan is built (from constants, shapes, or a small integer/bool graph input such as a sample rate); a condition computed from tensor data stays with the next EP'),
  ConstantOfShape: knownInputs('the shape', 0),
  Range: (node, graph) => (node.inputs.every((i) => planTimeKnown(graph, i)) ? true : 'Range runs on rocm only when its inputs are known when the plan is built (it is computed on the host)'),
  ConvTranspose: convTranspose,
  Resize: resize,
  Pad: both(knownInputs('pads', 1), constantInputs('constant_value', 2), (node) => {
    if (given(node, 3)) return 'Pad with axes (input 3) is not run on rocm';
    const mode = new AttributeReader(node).string('mode', 'constant');
    return ['constant', 'reflect', 'edge'].includes(mode) ? true : `Pad mode '${mode}' is not run on rocm`;
  }),
  Dropout: both(onlyFirstOutput, (node, graph) => {
    if (!given(node, 2)) return true;
    const t = constantOf(graph, node.inputs[2]);
    return t && !(t.data as Uint8Array)[0] ? true : 'Dropout in training mode is not run on rocm';
  }),
  Max: (node) => (node.inputs.length === 2 ? true : `Max of ${node.inputs.length} inputs: the kernel takes 2`),
  Min: (node) => (node.inputs.length === 2 ? true : `Min of ${node.inputs.length} inputs: the kernel takes 2`),
  Pow: (node, graph) => (elemTypeOf(graph, node.inputs[0]) === elemTypeOf(graph, node.inputs[1]) ? true : 'Pow with a base and exponent of different types'),
  MatMul: matMulShapes,
  MatMulInteger: both(matMulShapes, matMulIntegerZeroPoints),
  Conv: convRank,
  ConvInteger: both(convIntegerLimits, groupedConvPads),
  FusedConv: (node, graph) => {
    const rank = convRank(node, graph);
    if (rank !== true) return rank;
    const act = new AttributeReader(node).string('activation', '');
    return act === '' || FUSED_ACTIVATIONS.includes(act) ? true : `FusedConv activation '${act}' is not run on rocm`;
  },
  MaxPool: both(onlyFirstOutput, pool2d(true)),
  AveragePool: pool2d(false),
  GlobalAveragePool: (node, graph) => (rankOf(graph, node.inputs[0]) === 4 ? true : 'only 2-D (NCHW) pooling runs on rocm'),
  GlobalMaxPool: (node, graph) => (rankOf(graph, node.inputs[0]) === 4 ? true : 'only 2-D (NCHW) pooling runs on rocm'),
  BatchNormalization: both(onlyFirstOutput, (node) => (new AttributeReader(node).int('training_mode', 0) === 0 ? true : 'BatchNormalization in training mode is not run on rocm')),
  Softmax: softmaxAxis,
  LogSoftmax: softmaxAxis,
  LayerNormalization: both(onlyFirstOutput, (node, graph) => {
    const rank = rankOf(graph, node.inputs[0]);
    if (rank === undefined) return 'the input rank must be known';
    const axis = normalizeAxis(new AttributeReader(node).int('axis', -1), rank);
    return axis === rank - 1 ? true : 'LayerNormalization over more than the last axis is not run on rocm';
  }),
  Attention: attentionLimits,
  RMSNormalization: rmsNormLimits,
  RotaryEmbedding: rotaryLimits,
  ...Object.fromEntries(
    ['ReduceSum', 'ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceSumSquare', 'ReduceL1', 'ReduceL2', 'ReduceLogSumExp'].map((op) => [op, reduceAxes]),
  ),
};

export function limitsFor(opType: string): Limit | undefined {
  return LIMITS[opType];
}

/** Checks every node must pass: tensors only, known ranks within the kernels' limit of 6. */
export function commonLimits(node: Node, graph: Graph): true | string {
  for (const name of [...node.inputs, ...node.outputs]) {
    if (!name) continue;
    const t = graph.typeOf(name);
    if (t === undefined) return `the type of '${name}' is unknown (shape inference could not derive it)`;
    if (t.kind !== 'tensor') return `'${name}' is a ${t.kind}, not a tensor`;
    if (!t.shape) return `the rank of '${name}' is unknown`;
    if (t.shape.length > 6) return `'${name}' has rank ${t.shape.length}; the GPU kernels take up to 6`;
  }
  if (node.opType !== 'Dropout' && node.opType !== 'LayerNormalization') return true;
  return used(node, 0) ? true : 'its only output is unused';
}
