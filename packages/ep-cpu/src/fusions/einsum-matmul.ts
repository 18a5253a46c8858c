/**
 * A two-operand Einsum that is one batched matrix product becomes a com.switchyard StridedMatMul (the op
 * the attention fusion writes; oneDNN reads its transposes as strides): 'bqhd,bkhd->bhqk', 'bhqk,bkhd->bqhd',
 * 'bij,bjk->bik', 'ij,jk->ik', 'bid,bjd->bij', 'bi,bj->bij'… Each index is a batch index (in both operands
 * and the output), the contracted index (both operands, not the output), A's free index or B's free index
 * (one operand and the output); at most one of each of the last three. A missing one becomes a size-1 dim
 * appended by a folded Reshape, and the output's order is the product's under permY (then a folded Reshape
 * drops the size-1 dims). Einsums outside that class (ellipsis, a repeated index, an index summed inside one
 * operand, several contracted or free indices) keep the Einsum kernel.
 */
import type { AttributeValue, GraphPass, Node } from '@switchyard/core';
import { FUSED_DOMAIN } from '../kernels/FusedMatMul.js';
import { GraphRewriter, hasOp } from './graph-rewriter.js';

export interface EinsumAsMatMul {
  /** Reshapes appending size-1 dims to A and B (absent: none), ONNX Reshape's 0 = copy. */
  aShape?: number[];
  bShape?: number[];
  permA: number[];
  permB: number[];
  permY: number[];
  /** Reshape dropping the trailing size-1 dims of the permuted product (absent: none). */
  yShape?: number[];
}

/** The StridedMatMul form of a two-operand `equation`, or why it has none. */
export function einsumAsMatMul(equation: string): EinsumAsMatMul | string {
  const eq = equation.replace(/\s+/g, '');
  const arrow = eq.indexOf('->');
  if (arrow < 0 || eq.includes('.')) return 'an implicit output or an ellipsis';
  const operands = eq.slice(0, arrow).split(',');
  const out = eq.slice(arrow + 2);
  if (operands.length !== 2) return 'not two operands';
  const [a, b] = operands;
  const letters = /^[A-Za-z]*$/;
  if (![a, b, out].every((s) => letters.test(s) && new Set(s).size === s.length)) return 'a repeated index (a diagonal)';
  const batch: string[] = [];
  const contracted: string[] = [];
  const aFree: string[] = [];
  const bFree: string[] = [];
  for (const c of new Set(a + b)) {
    const inA = a.includes(c), inB = b.includes(c), inOut = out.includes(c);
    if (inA && inB) (inOut ? batch : contracted).push(c);
    else if (!inOut) return `index '${c}' is summed inside one operand`;
    else (inA ? aFree : bFree).push(c);
  }
  if ([...out].some((c) => !a.includes(c) && !b.includes(c))) return 'an output index no operand has';
  if (contracted.length > 1 || aFree.length > 1 || bFree.length > 1) return 'several contracted or free indices';
  // Batch indices in the output's order; the product is [batch…, m, n] with m/k/n a letter or a size-1 dim.
  batch.sort((x, y) => out.indexOf(x) - out.indexOf(y));
  const ONE = '1';
  const m = aFree[0] ?? ONE, k = contracted[0] ?? ONE, n = bFree[0] ?? ONE;
  const operand = (spec: string, order: string[]) => {
    const extra = order.filter((c) => c === ONE).length;
    const axes = [...spec, ...new Array<string>(extra).fill(ONE)];
    let ones = spec.length;
    const perm = order.map((c) => (c === ONE ? ones++ : axes.indexOf(c)));
    return { perm, shape: extra ? [...new Array<number>(spec.length).fill(0), ...new Array<number>(extra).fill(1)] : undefined };
  };
  const A = operand(a, [...batch, m, k]);
  const B = operand(b, [...batch, k, n]);
  const product = [...batch, m, n];
  // Output order, with the product's size-1 dims (a missing m or n) moved last for the Reshape to drop.
  const permY = [...[...out].map((c) => product.indexOf(c)), ...product.map((c, i) => (c === ONE ? i : -1)).filter((i) => i >= 0)];
  const yShape = permY.length > out.length ? new Array<number>(out.length).fill(0) : undefined;
  return { aShape: A.shape, bShape: B.shape, permA: A.perm, permB: B.perm, permY, yShape };
}

function ints(value: number[]): AttributeValue {
  return { type: 'ints', value };
}

function lowerOne(rw: GraphRewriter, node: Node): void {
  if (node.inputs.length !== 2 || node.outputs.length !== 1 || !node.outputs[0]) return;
  if (node.inputs.some((i) => rw.elemType(i) !== 'float32')) return rw.skip(node, 'Einsum operands are not known to be float32');
  const form = einsumAsMatMul(rw.attrs(node).string('equation', ''));
  if (typeof form === 'string') return rw.skip(node, `Einsum is not one batched product: ${form}`);
  if (!rw.owned([node])) return;
  const identity = (p: number[]) => p.every((v, i) => v === i);
  const attributes = new Map<string, AttributeValue>();
  if (form.aShape) attributes.set('aShape', ints(form.aShape));
  if (form.bShape) attributes.set('bShape', ints(form.bShape));
  if (!identity(form.permA)) attributes.set('permA', ints(form.permA));
  if (!identity(form.permB)) attributes.set('permB', ints(form.permB));
  if (!identity(form.permY)) attributes.set('permY', ints(form.permY));
  if (form.yShape) attributes.set('yShape', ints(form.yShape));
  rw.replace([node], { opType: 'StridedMatMul', domain: FUSED_DOMAIN, name: `${node.name || 'Einsum'}_strided`, inputs: [...node.inputs], outputs: [...node.outputs], attributes });
  rw.ensureOpset(FUSED_DOMAIN, 1);
}

export const einsumMatMul: GraphPass = {
  name: 'cpu:einsum-matmul',
  level: 'extended',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) {
      if (rw.isLive(node) && hasOp(node, 'Einsum')) lowerOne(rw, node);
    }
  },
};
