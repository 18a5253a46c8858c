/**
 * Which activation a group of nodes applies to a value `x`, for fusing it into the op that produces x
 * (a Conv's oneDNN post-op): one activation node reading x (Relu, Sigmoid, HardSwish, com.microsoft Gelu,
 * …), or an idiom exporters write as several nodes that all read x:
 *   Swish      x · Sigmoid(x)                      (torch SiLU, EfficientNet)
 *   HardSwish  x · HardSigmoid(x) with α = 1/6, β = 1/2   (torch before opset 14)
 *   HardSwish  x · Clip(x + 3, 0, 6) / 6, with the / 6 (or · 1/6) on either side of the product
 * The names are those of nn/fused-activation.ts. GELU's erf form is matched earlier, by gelu-fusion.
 */
import type { Node } from '@switchyard/core';
import { GraphRewriter, hasOp, isOp, nearConstant as near, otherInput } from './graph-rewriter.js';

export interface MatchedActivation {
  /** The `activation` attribute value (nn/fused-activation.ts). */
  name: string;
  params: number[];
  /** The nodes that compute it; each of their outputs but `output` is read only by the others. */
  nodes: Node[];
  /** The activated value. */
  output: string;
}

/** Single-node activations reading x as their first (only tensor) input, with their params. */
function singleNode(rw: GraphRewriter, node: Node): { name: string; params: number[] } | undefined {
  const a = rw.attrs(node);
  if (hasOp(node, 'Relu')) return { name: 'Relu', params: [] };
  if (hasOp(node, 'LeakyRelu')) return { name: 'LeakyRelu', params: [a.float('alpha', 0.01)] };
  if (hasOp(node, 'Sigmoid')) return { name: 'Sigmoid', params: [] };
  if (hasOp(node, 'Tanh')) return { name: 'Tanh', params: [] };
  if (hasOp(node, 'HardSigmoid')) return { name: 'HardSigmoid', params: [a.float('alpha', 0.2), a.float('beta', 0.5)] };
  if (hasOp(node, 'HardSwish')) return { name: 'HardSwish', params: [] };
  if (hasOp(node, 'Elu')) return { name: 'Elu', params: [a.float('alpha', 1)] };
  if (hasOp(node, 'Softplus')) return { name: 'Softplus', params: [] };
  if (hasOp(node, 'Mish')) return { name: 'Mish', params: [] };
  if (hasOp(node, 'Clip')) {
    // min > max clips everything to max in ONNX, but to min in oneDNN's clip: left unfused.
    const bounds = clipBounds(rw, node);
    return bounds && bounds[0] <= bounds[1] ? { name: 'Clip', params: bounds } : undefined;
  }
  if (node.domain === 'com.microsoft') {
    if (node.opType === 'Gelu') return { name: 'Gelu', params: [] };
    if (node.opType === 'FastGelu' && node.inputs.length === 1) return { name: 'FastGelu', params: [] };
    if (node.opType === 'QuickGelu') return { name: 'Swish', params: [a.float('alpha', 1.702)] };
  }
  return undefined;
}

/** A Clip's constant [min, max] (attributes before opset 11, inputs after); undefined when not constant. */
export function clipBounds(rw: GraphRewriter, node: Node): [number, number] | undefined {
  if ((rw.opset() ?? 1) < 11) {
    const a = rw.attrs(node);
    return [a.float('min', -Infinity), a.float('max', Infinity)];
  }
  const [, lo, hi] = node.inputs;
  const min = lo ? rw.scalar(lo) : -Infinity;
  const max = hi ? rw.scalar(hi) : Infinity;
  return min === undefined || max === undefined ? undefined : [min, max];
}

/** Whether `value` is read only by `within` and is not a graph output. */
function readOnlyBy(rw: GraphRewriter, value: string, within: readonly Node[]): boolean {
  if (rw.isGraphOutput(value)) return false;
  for (const r of rw.readers(value)) if (!within.includes(r)) return false;
  return true;
}

/** A scalar constant input of `node` other than `x` equal to `target`. */
function scalarBeside(rw: GraphRewriter, node: Node, x: string, target: number): boolean {
  const other = otherInput(node, x);
  return other !== undefined && near(rw.scalar(other), target);
}

/** The product x · g where `g` is `gate`'s output: the Mul reading both. */
function productWithX(rw: GraphRewriter, gate: string, x: string): Node | undefined {
  const mul = rw.soleReader(gate);
  return isOp(mul, 'Mul') && otherInput(mul, gate) === x ? mul : undefined;
}

/** x · Clip(x + 3, 0, 6) / 6 in its usual orders, starting from the Add; the nodes and output. */
function decomposedHardSwish(rw: GraphRewriter, add: Node, x: string): { nodes: Node[]; output: string } | undefined {
  if (!isOp(add, 'Add') || !scalarBeside(rw, add, x, 3)) return undefined;
  const clip = rw.soleReader(add.outputs[0]);
  if (!isOp(clip, 'Clip') || clip.inputs[0] !== add.outputs[0]) return undefined;
  const bounds = clipBounds(rw, clip);
  if (!bounds || bounds[0] !== 0 || bounds[1] !== 6) return undefined;
  const isSixth = (n: Node | undefined, v: string) =>
    n !== undefined && ((isOp(n, 'Div') && n.inputs[0] === v && near(rw.scalar(n.inputs[1]), 6)) || (isOp(n, 'Mul') && scalarBeside(rw, n, v, 1 / 6)));
  const clipped = clip.outputs[0];
  // (clip / 6) · x
  const scaled = rw.soleReader(clipped);
  if (isSixth(scaled, clipped)) {
    const mul = productWithX(rw, scaled!.outputs[0], x);
    return mul ? { nodes: [add, clip, scaled!, mul], output: mul.outputs[0] } : undefined;
  }
  // (x · clip) / 6
  const mul = productWithX(rw, clipped, x);
  if (!mul) return undefined;
  const last = rw.soleReader(mul.outputs[0]);
  return isSixth(last, mul.outputs[0]) ? { nodes: [add, clip, mul, last!], output: last!.outputs[0] } : undefined;
}

/** The activation applied to `x` by the nodes reading it, when it is one the fused ops run. */
export function matchActivation(rw: GraphRewriter, x: string): MatchedActivation | undefined {
  if (rw.isGraphOutput(x)) return undefined;
  const readers = [...rw.readers(x)];
  if (readers.length === 1) {
    const [node] = readers;
    if (node.inputs[0] !== x || node.outputs.length !== 1 || !node.outputs[0]) return undefined;
    const single = singleNode(rw, node);
    return single && { ...single, nodes: [node], output: node.outputs[0] };
  }
  if (readers.length !== 2) return undefined;
  for (const gate of readers) {
    const gateOut = gate.outputs[0];
    if (!gateOut || gate.inputs[0] !== x) continue;
    let match: { name: string; nodes: Node[]; output: string } | undefined;
    if (isOp(gate, 'Sigmoid')) {
      const mul = productWithX(rw, gateOut, x);
      if (mul) match = { name: 'Swish', nodes: [gate, mul], output: mul.outputs[0] };
    } else if (isOp(gate, 'HardSigmoid')) {
      const a = rw.attrs(gate);
      const mul = productWithX(rw, gateOut, x);
      if (mul && near(a.float('alpha', 0.2), 1 / 6) && near(a.float('beta', 0.5), 0.5)) match = { name: 'HardSwish', nodes: [gate, mul], output: mul.outputs[0] };
    } else if (isOp(gate, 'Add')) {
      const hs = decomposedHardSwish(rw, gate, x);
      if (hs) match = { name: 'HardSwish', ...hs };
    }
    if (!match || !readers.every((r) => match!.nodes.includes(r))) continue;
    const inner = match.nodes.flatMap((n) => n.outputs).filter((o) => o && o !== match!.output);
    if (!inner.every((o) => readOnlyBy(rw, o, match!.nodes)) || !match.output) continue;
    return { name: match.name, params: match.name === 'Swish' ? [1] : [], nodes: match.nodes, output: match.output };
  }
  return undefined;
}
