/**
 * The RMSNorm that exporters spell out op by op (T5's LayerNorm, Llama's, Mistral's, Gemma's before opset 23),
 *   s = Pow(x, 2) | Mul(x, x) → ReduceMean(s, trailing axes, keepdims) → Add(·, ε) → Sqrt
 *   → Div(x, ·) | Mul(x, Reciprocal(·)) | Mul(x, Div(1, ·)) → [Mul(·, γ)]
 * becomes one RMSNormalization (com.switchyard, the contract of ai.onnx RMSNormalization-23): one pass over
 * each row instead of five ops and four intermediate tensors (a Llama block's norm on [64, 512]: 85 µs as
 * Pow, ReduceMean and two fused elementwise passes, 6 µs as the addon's row loop, one AVX-512 core). γ may
 * only span the normalized axes (either operand of the Mul); without γ a constant 1s scale is added.
 */
import type { AttributeValue, GraphPass, Node } from '@switchyard/core';
import { FUSED_DOMAIN } from '../kernels/FusedMatMul.js';
import { GraphRewriter, hasOp, isOp, otherInput } from './graph-rewriter.js';
import { onesScale, spansNormalizedAxes, trailingAxes } from './layer-norm-fusion.js';

/** The x whose square `sq` is: Pow(x, 2) or Mul(x, x); undefined otherwise. */
function squared(rw: GraphRewriter, sq: Node | undefined): string | undefined {
  if (isOp(sq, 'Pow') && rw.scalar(sq.inputs[1]) === 2) return sq.inputs[0];
  if (isOp(sq, 'Mul') && sq.inputs[0] === sq.inputs[1]) return sq.inputs[0];
  return undefined;
}

/**
 * The nodes that multiply x by 1 / r: Div(x, r), or Mul(x, Reciprocal(r)) or Mul(x, Div(1, r)) (torch's
 * rsqrt), Mul's operands in either order.
 */
function scaledByInverse(rw: GraphRewriter, x: string, r: string): Node[] | undefined {
  const reader = rw.soleReader(r);
  if (!reader) return undefined;
  const isDiv = hasOp(reader, 'Div') && reader.inputs[1] === r;
  if (isDiv && reader.inputs[0] === x) return [reader];
  const inverse = hasOp(reader, 'Reciprocal') || (isDiv && rw.scalar(reader.inputs[0]) === 1);
  if (!inverse) return undefined;
  const mul = rw.soleReader(reader.outputs[0]);
  if (!isOp(mul, 'Mul') || otherInput(mul, reader.outputs[0]) !== x) return undefined;
  return [reader, mul];
}

function fuseAt(rw: GraphRewriter, mean: Node): void {
  const sq = rw.producer(mean.inputs[0]);
  const x = squared(rw, sq);
  if (!x || !sq || rw.soleReader(sq.outputs[0]) !== mean) return;
  const rank = rw.rank(x);
  if (rank === undefined || rank < 1 || rw.elemType(x) !== 'float32') return;
  if (isOp(sq, 'Pow') && (rw.constant(sq.inputs[1])?.dims.length ?? 1) > rank) return;
  const k = trailingAxes(rw, mean, rank);
  if (k === undefined) return;
  const addEps = rw.soleReader(mean.outputs[0]);
  if (!isOp(addEps, 'Add')) return;
  const epsName = otherInput(addEps, mean.outputs[0]);
  const eps = epsName ? rw.scalar(epsName) : undefined;
  if (eps === undefined || !(eps >= 0) || rw.constant(epsName!)!.dims.length > rank) return;
  const sqrt = rw.soleReader(addEps.outputs[0]);
  if (!isOp(sqrt, 'Sqrt')) return;
  const inverse = scaledByInverse(rw, x, sqrt.outputs[0]);
  if (!inverse) return;
  const matched = [sq, mean, addEps, sqrt, ...inverse];
  let out = inverse[inverse.length - 1].outputs[0];
  let gamma: string | undefined;
  const mul = rw.soleReader(out);
  if (isOp(mul, 'Mul')) {
    const g = otherInput(mul, out);
    if (g && spansNormalizedAxes(rw, g, k)) {
      gamma = g;
      matched.push(mul);
      out = mul.outputs[0];
    }
  }
  if (!rw.owned(matched)) return;
  gamma ??= onesScale(rw, x, k, 'rmsnorm');
  if (!gamma) return rw.skip(mean, 'RMSNorm without a scale needs a static normalized shape');
  const attributes = new Map<string, AttributeValue>([
    ['axis', { type: 'int', value: rank - k }],
    ['epsilon', { type: 'float', value: eps }],
  ]);
  // Constants only the matched nodes read (ε, the exponent 2, Div's 1, ReduceMean's axes) go with them.
  const constants = matched.flatMap((n) => n.inputs).filter((name) => name && name !== x && name !== gamma && rw.constant(name));
  rw.replace(matched, { opType: 'RMSNormalization', domain: FUSED_DOMAIN, name: `${mean.name || 'ReduceMean'}_rmsnorm`, inputs: [x, gamma], outputs: [out], attributes });
  rw.ensureOpset(FUSED_DOMAIN, 1);
  rw.dropIfUnused(constants);
}

export const rmsNormFusion: GraphPass = {
  name: 'cpu:rms-norm-fusion',
  level: 'extended',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) if (rw.isLive(node) && isOp(node, 'ReduceMean')) fuseAt(rw, node);
  },
};
