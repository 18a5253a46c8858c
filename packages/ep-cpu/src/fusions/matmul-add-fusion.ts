/**
 * MatMul → Add(bias) [→ activation] where the bias broadcasts along the last dim only ([N] or
 * [1, …, 1, N], never widening the product's shape): a 2-D product with no activation becomes
 * Gemm(A, B, C = bias); anything else becomes Switchyard's FusedMatMul(A, B, bias[N]) with the activation
 * (any activation-match.ts recognises: GELU after a transformer's FFN product, ReLU, Swish, …) in its
 * attributes. oneDNN runs both as one matmul with a bias and an eltwise post-op.
 */
import { Tensor, type AttributeValue, type GraphPass, type Node } from '@switchyard/core';
import { matchActivation } from './activation-match.js';
import { FUSED_DOMAIN } from '../kernels/FusedMatMul.js';
import { GraphRewriter, isOp, otherInput } from './graph-rewriter.js';

function fuseOne(rw: GraphRewriter, matmul: Node): void {
  const [a, b] = matmul.inputs;
  const y = matmul.outputs[0];
  const add = rw.soleReader(y);
  if (!isOp(add, 'Add')) return;
  const bias = otherInput(add, y);
  if (!bias || !a || !b) return;
  if ([a, b, bias, y].some((v) => rw.elemType(v) !== 'float32')) return;
  const ra = rw.rank(a);
  const rb = rw.rank(b);
  const yShape = rw.graph.typeOf(y);
  const n = yShape?.kind === 'tensor' ? yShape.shape?.[yShape.shape.length - 1] : undefined;
  const biasShape = rw.staticShape(bias);
  if (ra === undefined || rb === undefined || ra < 2 || rb < 2 || typeof n !== 'number' || !biasShape) return;
  const yRank = Math.max(ra, rb);
  // The bias may not add dims to the product nor broadcast along any axis but the last.
  const biasOk = biasShape.length >= 1 && biasShape.length <= yRank && biasShape[biasShape.length - 1] === n && biasShape.slice(0, -1).every((d) => d === 1);
  if (!biasOk) return rw.skip(add, `bias [${biasShape.join(', ')}] is not a row of ${n} on the last dim`);

  const activation = matchActivation(rw, add.outputs[0]);
  const matched = [matmul, add, ...(activation?.nodes ?? [])];
  if (!rw.owned(matched)) return;
  const out = activation?.output ?? add.outputs[0];
  if (ra === 2 && rb === 2 && (rw.opset() ?? 1) >= 7 && !activation) {
    rw.replace([matmul, add], { opType: 'Gemm', domain: '', name: `${matmul.name || 'MatMul'}_gemm`, inputs: [a, b, bias], outputs: [out], attributes: new Map() });
    return;
  }
  let bias1d = bias;
  if (biasShape.length !== 1) {
    const c = rw.constant(bias);
    if (!c) return rw.skip(add, 'an N-D bias that is not a constant would need a Reshape');
    bias1d = rw.addInitializer(`${bias}_row`, new Tensor('float32', c.data as Float32Array, [n]));
  }
  const attributes = new Map<string, AttributeValue>();
  if (activation) {
    attributes.set('activation', { type: 'string', value: activation.name, bytes: new TextEncoder().encode(activation.name) });
    if (activation.params.length) attributes.set('activation_params', { type: 'floats', value: activation.params });
  }
  rw.replace(matched, {
    opType: 'FusedMatMul',
    domain: FUSED_DOMAIN,
    name: `${matmul.name || 'MatMul'}_bias`,
    inputs: [a, b, bias1d],
    outputs: [out],
    attributes,
  });
  rw.ensureOpset(FUSED_DOMAIN, 1);
  if (bias1d !== bias) rw.dropIfUnused([bias]);
}

export const matMulAddFusion: GraphPass = {
  name: 'cpu:matmul-add-fusion',
  level: 'extended',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) {
      if (rw.isLive(node) && isOp(node, 'MatMul') && node.outputs.length === 1) fuseOne(rw, node);
    }
  },
};
