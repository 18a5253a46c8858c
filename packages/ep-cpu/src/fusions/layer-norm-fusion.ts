/**
 * The LayerNorm that exporters spell out op by op,
 *   m = ReduceMean(x, axes) → d = Sub(x, m) → Pow(d, 2) | Mul(d, d) → ReduceMean(·, axes) → Add(·, ε)
 *   → Sqrt → n = Div(d, ·) → [Mul(n, γ)] → [Add(·, β)]
 * over trailing axes with keepdims, becomes one LayerNormalization (ai.onnx at opset ≥ 17, else
 * onnxruntime's com.microsoft LayerNormalization, same contract). γ and β may only span the
 * normalized axes, so the fused op's broadcasting is the decomposed graph's. Without γ, a constant 1s
 * scale is added (LayerNormalization requires one).
 */
import { Tensor, type AttributeValue, type GraphPass, type Node } from '@switchyard/core';
import { GraphRewriter, isOp, otherInput } from './graph-rewriter.js';

/** A ReduceMean's axes as written (the attribute before opset 18, a constant input from 18), or undefined. */
export function reduceAxes(rw: GraphRewriter, node: Node): number[] | undefined {
  const attrs = rw.attrs(node);
  if (attrs.has('axes')) return attrs.ints('axes');
  const t = node.inputs[1] ? rw.constant(node.inputs[1]) : undefined;
  return t?.type === 'int64' ? Array.from(t.data as BigInt64Array, Number) : undefined;
}

/** The trailing axes a ReduceMean averages over (as a count), or undefined when it is not that. */
export function trailingAxes(rw: GraphRewriter, node: Node, rank: number): number | undefined {
  if (rw.attrs(node).int('keepdims', 1) !== 1) return undefined;
  const axes = reduceAxes(rw, node);
  if (!axes || axes.length === 0) return undefined;
  const norm = axes.map((a) => (a < 0 ? a + rank : a)).sort((p, q) => p - q);
  const k = norm.length;
  return norm.every((a, i) => a === rank - k + i) ? k : undefined;
}

/** `name` is a tensor whose shape spans at most the last `k` axes (or it would broadcast further). */
export function spansNormalizedAxes(rw: GraphRewriter, name: string, k: number): boolean {
  const r = rw.rank(name);
  return r !== undefined && r <= k && rw.elemType(name) === 'float32';
}

/**
 * A constant 1s scale over the last `k` axes of x, for a normalization written without one (the fused ops
 * require a scale); undefined when x's shape is not static.
 */
export function onesScale(rw: GraphRewriter, x: string, k: number, what: string): string | undefined {
  const shape = rw.staticShape(x);
  if (!shape) return undefined;
  const dims = shape.slice(shape.length - k);
  return rw.addInitializer(`${x}_${what}_ones`, new Tensor('float32', new Float32Array(dims.reduce((p, q) => p * q, 1)).fill(1), dims));
}

function fuseAt(rw: GraphRewriter, mean1: Node): void {
  const x = mean1.inputs[0];
  const rank = rw.rank(x);
  if (rank === undefined || rank < 1 || rw.elemType(x) !== 'float32') return;
  const k = trailingAxes(rw, mean1, rank);
  if (k === undefined) return;
  const m = mean1.outputs[0];
  const sub = rw.soleReader(m);
  if (!isOp(sub, 'Sub') || sub.inputs[0] !== x || sub.inputs[1] !== m) return;
  const d = sub.outputs[0];
  const dReaders = [...rw.readers(d)];
  if (dReaders.length !== 2 || rw.isGraphOutput(d)) return;
  const sq = dReaders.find((n) => (isOp(n, 'Pow') && n.inputs[0] === d && rw.scalar(n.inputs[1]) === 2) || (isOp(n, 'Mul') && n.inputs[0] === d && n.inputs[1] === d));
  const div = dReaders.find((n) => isOp(n, 'Div') && n.inputs[0] === d);
  if (!sq || !div) return;
  if (isOp(sq, 'Pow') && (rw.constant(sq.inputs[1])?.dims.length ?? 1) > rank) return;
  const mean2 = rw.soleReader(sq.outputs[0]);
  if (!isOp(mean2, 'ReduceMean') || trailingAxes(rw, mean2, rank) !== k) return;
  const addEps = rw.soleReader(mean2.outputs[0]);
  if (!isOp(addEps, 'Add')) return;
  const epsName = otherInput(addEps, mean2.outputs[0]);
  const eps = epsName ? rw.scalar(epsName) : undefined;
  if (eps === undefined || eps < 0 || (rw.constant(epsName!)!.dims.length > rank)) return;
  const sqrt = rw.soleReader(addEps.outputs[0]);
  if (!isOp(sqrt, 'Sqrt') || rw.soleReader(sqrt.outputs[0]) !== div || div.inputs[1] !== sqrt.outputs[0]) return;

  const matched = [mean1, sub, sq, mean2, addEps, sqrt, div];
  let out = div.outputs[0];
  let gamma: string | undefined;
  let beta: string | undefined;
  const mul = rw.soleReader(out);
  if (isOp(mul, 'Mul')) {
    const g = otherInput(mul, out);
    if (g && spansNormalizedAxes(rw, g, k)) {
      gamma = g;
      matched.push(mul);
      out = mul.outputs[0];
    }
  }
  const add = gamma ? rw.soleReader(out) : undefined;
  if (isOp(add, 'Add')) {
    const b = otherInput(add, out);
    if (b && spansNormalizedAxes(rw, b, k)) {
      beta = b;
      matched.push(add);
      out = add.outputs[0];
    }
  }
  if (!rw.owned(matched)) return;
  gamma ??= onesScale(rw, x, k, 'layernorm');
  if (!gamma) return rw.skip(mean1, 'LayerNorm without a scale needs a static normalized shape');
  const onnx17 = (rw.opset() ?? 1) >= 17;
  const attributes = new Map<string, AttributeValue>([
    ['axis', { type: 'int', value: rank - k }],
    ['epsilon', { type: 'float', value: eps }],
  ]);
  rw.replace(matched, {
    opType: 'LayerNormalization',
    domain: onnx17 ? '' : 'com.microsoft',
    name: `${mean1.name || 'ReduceMean'}_layernorm`,
    inputs: beta ? [x, gamma, beta] : [x, gamma],
    outputs: [out],
    attributes,
  });
  if (!onnx17) rw.ensureOpset('com.microsoft', 1);
}

export const layerNormFusion: GraphPass = {
  name: 'cpu:layer-norm-fusion',
  level: 'extended',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) if (rw.isLive(node) && isOp(node, 'ReduceMean')) fuseAt(rw, node);
  },
};
