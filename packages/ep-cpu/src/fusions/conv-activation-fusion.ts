/**
 * Conv → [Add(Z)] → [activation] becomes one com.microsoft FusedConv
 * (Y = activation(Conv(X, W, B) + Z), onnxruntime's contrib op), which oneDNN runs as a convolution
 * with `sum` and eltwise post-ops. The Add is absorbed only when Z certainly has the Conv output's shape
 * (a residual connection; equal dims or equal symbols), so no broadcasting hides in it. The activation
 * is any that activation-match.ts recognises: a single node (Relu, Clip with constant bounds, Sigmoid,
 * HardSwish, Gelu, …) or an idiom of several (x·sigmoid(x), decomposed HardSwish).
 */
import type { AttributeValue, GraphPass, Node } from '@switchyard/core';
import { matchActivation } from './activation-match.js';
import { GraphRewriter, isOp, otherInput } from './graph-rewriter.js';

/**
 * Whether two values certainly have one shape: same rank, and each dim the same number or the same
 * symbolic name (ONNX: one symbol, one value; a dynamic batch is common). Unknown dims never match.
 */
function sameShape(rw: GraphRewriter, a: string, b: string): boolean {
  const ta = rw.graph.typeOf(a);
  const tb = rw.graph.typeOf(b);
  const sa = ta?.kind === 'tensor' ? ta.shape : undefined;
  const sb = tb?.kind === 'tensor' ? tb.shape : undefined;
  return sa !== undefined && sb !== undefined && sa.length === sb.length && sa.every((d, i) => d !== undefined && d === sb[i]);
}

function fuseOne(rw: GraphRewriter, conv: Node): void {
  const y = conv.outputs[0];
  if (rw.elemType(conv.inputs[0]) !== 'float32' || rw.elemType(y) !== 'float32') return;
  const matched: Node[] = [conv];
  let out = y;
  let z: string | undefined;

  const add = rw.soleReader(out);
  if (isOp(add, 'Add')) {
    const other = otherInput(add, out);
    if (other && sameShape(rw, other, out) && rw.elemType(other) === 'float32') {
      z = other;
      matched.push(add);
      out = add.outputs[0];
    }
  }
  const activation = matchActivation(rw, out);
  if (activation) {
    matched.push(...activation.nodes);
    out = activation.output;
  }
  if (matched.length === 1 || !rw.owned(matched)) return;

  const attributes = new Map<string, AttributeValue>(conv.attributes);
  if (activation) {
    attributes.set('activation', { type: 'string', value: activation.name, bytes: new TextEncoder().encode(activation.name) });
    if (activation.params.length) attributes.set('activation_params', { type: 'floats', value: activation.params });
  }
  const [x, w, b = ''] = conv.inputs;
  rw.replace(matched, {
    opType: 'FusedConv',
    domain: 'com.microsoft',
    name: `${conv.name || 'Conv'}_fused`,
    inputs: z ? [x, w, b, z] : b ? [x, w, b] : [x, w],
    outputs: [out],
    attributes,
  });
  rw.ensureOpset('com.microsoft', 1);
}

export const convActivationFusion: GraphPass = {
  name: 'cpu:conv-activation-fusion',
  level: 'extended',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) {
      if (rw.isLive(node) && isOp(node, 'Conv') && node.outputs.length === 1) fuseOne(rw, node);
    }
  },
};
