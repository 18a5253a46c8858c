/**
 * A rough floating-point operation count per node, for coverage-by-FLOPs and profiling summaries.
 * It reads the shapes `inferShapes` recorded and counts:
 * - Conv: 2·N·Cout·spatial_out·(Cin/group)·kernel; ConvTranspose the same read from the input side;
 * - MatMul/Gemm: 2·M·N·K per batch;
 * - LSTM/GRU/RNN: 2·seq·dirs·batch·gates·hidden·(input + hidden);
 * - pooling: output elements × kernel; reductions and global pooling: input elements;
 * - normalizations and softmax: a few operations per element (`PER_ELEMENT`);
 * - other compute ops: one per output element;
 * - pure data movement (reshapes, gathers, concat, shape queries, constants): 0.
 * - Attention: the two products, 2·B·Hq·Sq·Skv·(D + Dv), from Q's and K's and V's shapes;
 * Whenever a shape it needs is not fully static the estimate is unknown (`estimateFlopsOrUnknown`
 * says undefined; `estimateFlops` counts 0: "unknown", not "free"). Control flow (whose bodies are
 * counted node by node) and ops outside the default domain count 0.
 *
 * Shapes are read through a `ShapeSource`: the graph itself, or a view of it with its symbolic dims
 * bound to sizes (session/realized-flops.ts).
 */
import type { Graph, Node } from '../ir/graph.js';
import { isStaticShape } from './dims.js';

/** Where the estimate reads value types: a graph, or a graph seen with its symbols bound. */
export type ShapeSource = Pick<Graph, 'typeOf'>;

function staticShape(graph: ShapeSource, name: string | undefined): number[] | undefined {
  if (!name) return undefined;
  const t = graph.typeOf(name);
  return t?.kind === 'tensor' && isStaticShape(t.shape) ? t.shape : undefined;
}

const product = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

/** Ops that only move, view or describe data. */
const DATA_MOVEMENT = new Set([
  'Reshape', 'Flatten', 'Squeeze', 'Unsqueeze', 'Identity', 'Shape', 'Size', 'Constant', 'ConstantOfShape',
  'Transpose', 'Concat', 'Split', 'Slice', 'Gather', 'GatherElements', 'GatherND', 'Expand', 'Tile', 'Pad',
  'DepthToSpace', 'SpaceToDepth', 'Scatter', 'ScatterElements', 'ScatterND', 'Compress', 'NonZero',
  'SequenceEmpty', 'SequenceConstruct', 'SequenceInsert', 'SequenceErase', 'SequenceAt', 'SequenceLength',
  'SplitToSequence', 'ConcatFromSequence', 'Optional', 'OptionalGetElement', 'OptionalHasElement',
  'If', 'Loop', 'Scan', 'SequenceMap', 'Range', 'EyeLike', 'OneHot', 'Dropout', 'ReverseSequence', 'Trilu',
]);

/** Approximate operations per element for ops that do a little more than one. */
const PER_ELEMENT: Record<string, number> = {
  BatchNormalization: 2, // folded to one scale and shift at inference time
  InstanceNormalization: 5,
  LayerNormalization: 5,
  RMSNormalization: 3,
  GroupNormalization: 5,
  MeanVarianceNormalization: 5,
  LpNormalization: 3,
  Softmax: 3,
  LogSoftmax: 3,
  Hardmax: 1,
};

const REDUCTIONS = new Set([
  'ReduceL1', 'ReduceL2', 'ReduceLogSum', 'ReduceLogSumExp', 'ReduceMax', 'ReduceMean', 'ReduceMin',
  'ReduceProd', 'ReduceSum', 'ReduceSumSquare', 'ArgMax', 'ArgMin', 'GlobalAveragePool', 'GlobalMaxPool',
  'GlobalLpPool', 'TopK', 'CumSum',
]);

const GATES: Record<string, number> = { RNN: 1, GRU: 3, LSTM: 4 };

/** Estimated floating-point operations of `node`, or 0 when unknown (see the module comment). */
export function estimateFlops(node: Node, graph: ShapeSource): number {
  return estimateFlopsOrUnknown(node, graph) ?? 0;
}

/** Estimated floating-point operations of `node`; undefined when a shape it needs is not static. */
export function estimateFlopsOrUnknown(node: Node, graph: ShapeSource): number | undefined {
  if (node.domain !== '' && node.domain !== 'ai.onnx') return 0;
  const op = node.opType;
  if (DATA_MOVEMENT.has(op)) return 0;
  const out = staticShape(graph, node.outputs[0]);
  const input = staticShape(graph, node.inputs[0]);
  switch (op) {
    case 'Conv':
    case 'ConvInteger':
    case 'QLinearConv': {
      // Each output element is a dot product over Cin/group × kernel, which the weight's trailing dims hold.
      const w = staticShape(graph, node.inputs[op === 'QLinearConv' ? 3 : 1]);
      return out && w ? 2 * product(out) * product(w.slice(1)) : undefined;
    }
    case 'ConvTranspose': {
      // Each input element scatters into Cout/group × kernel outputs.
      const w = staticShape(graph, node.inputs[1]);
      return input && w ? 2 * product(input) * product(w.slice(1)) : undefined;
    }
    case 'MatMul':
    case 'MatMulInteger':
    case 'QLinearMatMul': {
      const a = staticShape(graph, node.inputs[0]);
      const k = a?.[a.length - 1];
      return out && k !== undefined ? 2 * product(out) * k : undefined;
    }
    case 'Gemm': {
      const a = staticShape(graph, node.inputs[0]);
      const transA = node.attributes.get('transA');
      const k = a?.length === 2 ? a[transA?.type === 'int' && transA.value === 1 ? 0 : 1] : undefined;
      return out && k !== undefined ? 2 * product(out) * k : undefined;
    }
    case 'AveragePool':
    case 'MaxPool':
    case 'LpPool': {
      const kernel = node.attributes.get('kernel_shape');
      return out && kernel?.type === 'ints' ? product(out) * product(kernel.value) : undefined;
    }
    case 'LRN': {
      const size = node.attributes.get('size');
      return out && size?.type === 'int' ? product(out) * size.value : undefined;
    }
    case 'Attention':
      return attentionFlops(node, graph);
    case 'RNN':
    case 'GRU':
    case 'LSTM':
      return recurrentFlops(node, graph);
  }
  if (REDUCTIONS.has(op)) return input ? product(input) : undefined;
  if (!out) return undefined;
  return product(out) * (PER_ELEMENT[op] ?? 1);
}

function recurrentFlops(node: Node, graph: ShapeSource): number | undefined {
  const x = staticShape(graph, node.inputs[0]);
  const w = staticShape(graph, node.inputs[1]);
  if (!x || !w || x.length !== 3 || w.length !== 3) return undefined;
  const layout = node.attributes.get('layout');
  const batchFirst = layout?.type === 'int' && layout.value === 1;
  const [seq, batch] = batchFirst ? [x[1], x[0]] : [x[0], x[1]];
  // W is [dirs, gates × hidden, input]; the hidden size is that middle dim over the gate count.
  const [dirs, gatesHidden, inputSize] = w;
  const hidden = gatesHidden / GATES[node.opType];
  return 2 * seq * dirs * batch * gatesHidden * (inputSize + hidden);
}

/** Q·Kᵀ and P·V: 2·B·Hq·Sq·Skv·D + 2·B·Hq·Sq·Skv·Dv, read from Y (B, Hq, Sq, Dv) and K's length. */
function attentionFlops(node: Node, graph: ShapeSource): number | undefined {
  const q = staticShape(graph, node.inputs[0]);
  const k = staticShape(graph, node.inputs[1]);
  const y = staticShape(graph, node.outputs[0]);
  const present = staticShape(graph, node.outputs[1]);
  if (!q || !k || !y || (q.length !== 3 && q.length !== 4) || k.length !== q.length) return undefined;
  // The keys attended: the present cache's length when it is output (past + new), else K's.
  const newLen = q.length === 4 ? k[2] : k[1];
  const kvLen = present?.length === 4 ? present[2] : newLen;
  const qHeadsTimesD = q.length === 4 ? q[1] * q[3] : q[2];
  const sq = q.length === 4 ? q[2] : q[1];
  // Y holds B·Sq·Hq·Dv elements in either layout.
  return 2 * q[0] * sq * kvLen * qHeadsTimesD + 2 * product(y) * kvLen;
}
