/**
 * Folding an activation into the convolution before it: Conv → Relu (or Clip, LeakyRelu, Sigmoid,
 * Tanh, HardSigmoid) where the activation is the convolution output's only reader becomes ONE Conv
 * step whose epilogue applies it (fp32 bias+ReLU through cuDNN's fused call, the rest through the
 * plan's bias-activation kernel). Exported ONNX CNNs keep Relu as its own node (torch folds
 * BatchNorm into Conv, not the activation), so without this every conv costs a second pass over its
 * output and, at small batch, a second launch.
 */
import { AttributeReader, type Graph, type Node } from '@switchyard/core';
import { constantFloat, given } from './graph-values.js';

/** kernels::UnaryOp numbers (native-hip/src/native/kernels/launch.h) of the activations folded here. */
const UNARY = { LeakyRelu: 2, Sigmoid: 3, Tanh: 4, HardSigmoid: 7, Clip: 9 } as const;

/**
 * The Conv step's activation attributes for `act` ([1] for ReLU, [2, unary op, alpha, beta] for the
 * others), or undefined when it cannot be folded (e.g. a Clip bound that is not a constant).
 */
export function convActivationAttrs(act: Node, graph: Graph): number[] | undefined {
  const a = new AttributeReader(act);
  switch (act.opType) {
    case 'Relu':
      return [1];
    case 'LeakyRelu':
      return [2, UNARY.LeakyRelu, a.float('alpha', 0.01), 0];
    case 'Sigmoid':
    case 'Tanh':
      return [2, UNARY[act.opType], 0, 0];
    case 'HardSigmoid':
      return [2, UNARY.HardSigmoid, a.float('alpha', 0.2), a.float('beta', 0.5)];
    case 'Clip': {
      if ((graph.opsetFor('') ?? 11) < 11) return [2, UNARY.Clip, a.float('min', -Infinity), a.float('max', Infinity)];
      const min = given(act, 1) ? constantFloat(graph, act.inputs[1]) : -Infinity;
      const max = given(act, 2) ? constantFloat(graph, act.inputs[2]) : Infinity;
      return min === undefined || max === undefined ? undefined : [2, UNARY.Clip, min, max];
    }
    default:
      return undefined;
  }
}

/**
 * Conv node → the activation node folded into it. Only plain Conv (FusedConv carries its own
 * activation), only when the activation reads the conv output as its first input and nothing else
 * (no other node of the partition, not a partition output) reads that output.
 */
export function foldableConvActivations(graph: Graph, nodes: readonly Node[], outputNames: readonly string[]): Map<Node, { act: Node; attrs: number[] }> {
  const readers = new Map<string, Node[]>();
  for (const n of nodes) for (const i of n.inputs) if (i) readers.set(i, [...(readers.get(i) ?? []), n]);
  const outputs = new Set(outputNames);
  const folds = new Map<Node, { act: Node; attrs: number[] }>();
  for (const n of nodes) {
    if (n.opType !== 'Conv' || n.domain !== '') continue;
    const y = n.outputs[0];
    const r = readers.get(y) ?? [];
    if (outputs.has(y) || r.length !== 1 || r[0].inputs[0] !== y || r[0].inputs.slice(1).includes(y)) continue;
    const attrs = convActivationAttrs(r[0], graph);
    if (attrs) folds.set(n, { act: r[0], attrs });
  }
  return folds;
}
