/**
 * Folding an activation into the convolution before it: Conv → Relu (or Clip, LeakyRelu, Sigmoid,
 * Tanh, HardSigmoid) where the activation is the convolution output's only reader becomes ONE Conv
 * step whose epilogue applies it (fp32 bias+ReLU through cuDNN's fused call, the rest through the
 * plan's bias-activation kernel). Exported ONNX CNNs keep Relu as its own node (torch folds
 * BatchNorm into Conv, not the activation), so without this every conv costs a second pass over its
 * output and, at small batch, a second launch.
 */
import { AttributeReader, type Graph, type Node } from '@switchyard/core';
import { UNARY_OPS as UNARY } from '@switchyard/native-hip';
import { constantFloat, elemTypeOf, given, staticDims } from './graph-values.js';

/**
 * The Conv step's activation attributes for a FusedConv `activation` attribute and its
 * `activation_params`, or undefined for an activation the epilogue does not have.
 */
export function fusedActivationAttrs(act: string, p: readonly number[]): number[] | undefined {
  switch (act) {
    case '':
      return [0];
    case 'Relu':
      return [1];
    case 'LeakyRelu':
      return [2, UNARY.LeakyRelu, p[0] ?? 0.01, 0];
    case 'Clip':
      return [2, UNARY.Clip, p[0] ?? -Infinity, p[1] ?? Infinity];
    case 'HardSigmoid':
      return [2, UNARY.HardSigmoid, p[0] ?? 0.2, p[1] ?? 0.5];
    case 'Sigmoid':
    case 'Tanh':
    case 'HardSwish':
    case 'Softplus':
    case 'Mish':
      return [2, UNARY[act], 0, 0];
    case 'Swish':
      return [2, UNARY.Swish, p[0] ?? 1, 0];
    case 'Elu':
      return [2, UNARY.Elu, p[0] ?? 1, 0];
    case 'Gelu':
      return [2, UNARY.GeluErf, 0, 0];
    case 'FastGelu':
      return [2, UNARY.GeluTanh, 0, 0];
    default:
      return undefined;
  }
}

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

/** A Conv with the nodes folded into its step. */
export interface ConvFold {
  conv: Node;
  /** Add(conv, residual) folded in (a ResNet block's skip connection), when there is one. */
  add?: Node;
  residual?: string;
  act?: Node;
  /** The Conv step's attributes from index 10 on (see convActivationAttrs). */
  attrs: number[];
  /** The value the folded chain produces (the last folded node's output). */
  output: string;
}

/**
 * The folds of a partition, keyed by the node at whose position the fused step is emitted: the Conv
 * itself, or the Add when a residual is folded (the residual may be computed after the Conv -- a
 * ResNet downsample branch is -- so the step waits for it). Only plain Conv (FusedConv carries its
 * own epilogue); each folded value must have exactly one reader and not be a partition output; a
 * residual must have the conv output's static shape (no broadcasting hides in the Add).
 */
export function foldableConvChains(graph: Graph, nodes: readonly Node[], outputNames: readonly string[]): Map<Node, ConvFold> {
  const readers = new Map<string, Node[]>();
  for (const n of nodes) for (const i of n.inputs) if (i) readers.set(i, [...(readers.get(i) ?? []), n]);
  const outputs = new Set(outputNames);
  const soleReader = (value: string): Node | undefined => {
    const r = readers.get(value) ?? [];
    return !outputs.has(value) && r.length === 1 && r[0].inputs.filter((i) => i === value).length === 1 ? r[0] : undefined;
  };
  const sameStaticShape = (a: string, b: string) => {
    const da = staticDims(graph, a);
    const db = staticDims(graph, b);
    return da !== undefined && db !== undefined && da.length === db.length && da.every((d, i) => d === db[i]);
  };
  const folds = new Map<Node, ConvFold>();
  for (const conv of nodes) {
    if (conv.opType !== 'Conv' || conv.domain !== '') continue;
    let output = conv.outputs[0];
    let next = soleReader(output);
    const fold: ConvFold = { conv, attrs: [0], output };
    // An Add of two conv outputs is folded into the first conv that reaches it.
    if (next?.opType === 'Add' && next.domain === '' && !folds.has(next)) {
      const residual = next.inputs[0] === output ? next.inputs[1] : next.inputs[0];
      if (residual && sameStaticShape(residual, output) && elemTypeOf(graph, residual) === elemTypeOf(graph, output)) {
        fold.add = next;
        fold.residual = residual;
        output = next.outputs[0];
        next = soleReader(output);
      }
    }
    const attrs = next && next.inputs[0] === output ? convActivationAttrs(next, graph) : undefined;
    if (attrs) {
      fold.act = next;
      fold.attrs = attrs;
      output = next!.outputs[0];
    }
    if (!fold.add && !fold.act) continue;
    fold.output = output;
    folds.set(fold.add ?? conv, fold);
  }
  return folds;
}
