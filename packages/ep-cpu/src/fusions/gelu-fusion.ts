/**
 * The erf form of GELU, as torch.onnx exports nn.GELU() / F.gelu and as BERT-style code writes it,
 * becomes one com.microsoft Gelu:
 *   Div(x, √2) | Mul(x, 1/√2) → Erf → Add(·, 1) → then either
 *     Mul(x, ·) → Mul(·, 0.5)            (torch: x * (1 + erf) * 0.5)
 *     Mul(Mul(x, 0.5), ·)                 (x * 0.5 * (1 + erf))
 *     Mul(·, 0.5) → Mul(x, ·)            (x * ((1 + erf) * 0.5))
 * Constants must be scalars within float32 rounding of their exact values (or their exact float16
 * rounding: a float16 model's), and none may add dims to x.
 */
import type { GraphPass, Node } from '@switchyard/core';
import { GraphRewriter, isOp, nearConstant as near, otherInput } from './graph-rewriter.js';

/** A scalar constant operand that cannot broadcast x to a higher rank. */
function scalarOperand(rw: GraphRewriter, node: Node, x: string, value: string, target: number): boolean {
  const c = rw.constant(value);
  if (!c || !near(rw.scalar(value), target)) return false;
  const xr = rw.rank(x);
  return c.dims.length === 0 || (xr !== undefined && c.dims.length <= xr);
}

function fuseAt(rw: GraphRewriter, erf: Node): void {
  const scaled = erf.inputs[0];
  const pre = rw.producer(scaled);
  if (!pre || rw.soleReader(scaled) !== erf) return;
  let x: string | undefined;
  if (isOp(pre, 'Div') && scalarOperand(rw, pre, pre.inputs[0], pre.inputs[1], Math.SQRT2)) x = pre.inputs[0];
  else if (isOp(pre, 'Mul')) {
    for (const [i, j] of [[0, 1], [1, 0]]) {
      if (!x && scalarOperand(rw, pre, pre.inputs[i], pre.inputs[j], Math.SQRT1_2)) x = pre.inputs[i];
    }
  }
  const type = x ? rw.elemType(x) : undefined;
  if (!x || (type !== 'float32' && type !== 'float64')) return;

  const erfOut = erf.outputs[0];
  const addOne = rw.soleReader(erfOut);
  if (!isOp(addOne, 'Add')) return;
  const one = otherInput(addOne, erfOut);
  if (!one || !scalarOperand(rw, addOne, x, one, 1)) return;
  const sum = addOne.outputs[0];
  const m1 = rw.soleReader(sum);
  if (!isOp(m1, 'Mul')) return;
  const partner = otherInput(m1, sum);
  if (!partner) return;

  let tail: Node[];
  if (partner === x) {
    // x * (1 + erf), then * 0.5
    const m2 = rw.soleReader(m1.outputs[0]);
    const half = m2 && isOp(m2, 'Mul') ? otherInput(m2, m1.outputs[0]) : undefined;
    if (!m2 || !half || !scalarOperand(rw, m2, x, half, 0.5)) return;
    tail = [m1, m2];
  } else if (scalarOperand(rw, m1, x, partner, 0.5)) {
    // (1 + erf) * 0.5, then * x
    const m2 = rw.soleReader(m1.outputs[0]);
    if (!m2 || !isOp(m2, 'Mul') || otherInput(m2, m1.outputs[0]) !== x) return;
    tail = [m1, m2];
  } else {
    // (x * 0.5) * (1 + erf)
    const h = rw.producer(partner);
    if (!isOp(h, 'Mul') || rw.soleReader(partner) !== m1) return;
    const hx = h.inputs.find((i) => i === x);
    const hHalf = hx ? otherInput(h, x) : undefined;
    if (!hHalf || !scalarOperand(rw, h, x, hHalf, 0.5)) return;
    tail = [h, m1];
  }
  if (!rw.owned([pre, erf, addOne, ...tail])) return;
  const out = tail[tail.length - 1].outputs[0];
  rw.replace([pre, erf, addOne, ...tail], { opType: 'Gelu', domain: 'com.microsoft', name: `${erf.name || 'Erf'}_gelu`, inputs: [x], outputs: [out], attributes: new Map() });
  rw.ensureOpset('com.microsoft', 1);
}

export const geluFusion: GraphPass = {
  name: 'cpu:gelu-fusion',
  level: 'extended',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) if (rw.isLive(node) && isOp(node, 'Erf')) fuseAt(rw, node);
  },
};
