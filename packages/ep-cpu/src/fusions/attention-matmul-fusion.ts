/**
 * Attention's small ops folded into its two matmuls: a MatMul whose operands come from Transposes
 * (read by nobody else), followed by Div/Mul by a constant scalar, Add of a mask that does not widen
 * the product, and a Transpose of the result, becomes one com.switchyard StridedMatMul
 * (kernels/StridedMatMul.ts). On oneDNN the transposes are strides, the scale an output scale and
 * the mask a post-op, so BERT's Q·Kᵀ/√d + mask and P·V then Transpose run as single gemms with no
 * copies. Reshapes by a constant shape in front of those input Transposes and after the output one
 * fold in as well (a Reshape of a row-major buffer is only new dims). A constant scalar Div/Mul on an
 * operand (torch's MultiheadAttention scales Q by 1/√d before Q·Kᵀ) folds into the scale too:
 * (s·A)·B = s·(A·B). Every piece is optional, but at least one must fold or the MatMul stays as it is.
 */
import type { AttributeValue, Dim, GraphPass, Node } from '@switchyard/core';
import { FUSED_DOMAIN } from '../kernels/FusedMatMul.js';
import { GraphRewriter, isOp, otherInput } from './graph-rewriter.js';

/** A Transpose's perm (default: reversed axes), or undefined when it is not one of `rank` axes. */
function transposePerm(rw: GraphRewriter, node: Node, rank: number): number[] | undefined {
  const attrs = rw.attrs(node);
  const perm = attrs.has('perm') ? attrs.ints('perm') : Array.from({ length: rank }, (_, i) => rank - 1 - i);
  const ok = perm.length === rank && new Set(perm).size === rank && perm.every((p) => Number.isInteger(p) && p >= 0 && p < rank);
  return ok ? perm : undefined;
}

/** The Transpose feeding `name` when it may fold: read only by `reader`, float32, same rank. */
function foldableTranspose(rw: GraphRewriter, name: string, reader: Node, rank: number): { node: Node; source: string; perm: number[] } | undefined {
  const t = rw.producer(name);
  if (!isOp(t, 'Transpose') || rw.soleReader(name) !== reader || !t.inputs[0]) return undefined;
  const perm = transposePerm(rw, t, rank);
  return perm ? { node: t, source: t.inputs[0], perm } : undefined;
}

/** A Reshape's shape when it is a 1-D int64 constant and allowzero is 0. */
function constantShape(rw: GraphRewriter, node: Node): number[] | undefined {
  if (!node.inputs[0] || !node.inputs[1] || rw.attrs(node).int('allowzero', 0) !== 0) return undefined;
  const shape = rw.constant(node.inputs[1]);
  return shape?.type === 'int64' && shape.dims.length === 1 ? Array.from(shape.data as BigInt64Array, Number) : undefined;
}

/** A Reshape by a constant shape producing a value read only by `reader`. */
function foldableReshape(rw: GraphRewriter, node: Node | undefined, reader: Node): { node: Node; source: string; shape: number[] } | undefined {
  if (!isOp(node, 'Reshape') || rw.soleReader(node.outputs[0]) !== reader) return undefined;
  const shape = constantShape(rw, node);
  return shape ? { node, source: node.inputs[0], shape } : undefined;
}

/**
 * The factor of `op` (Div or Mul of `name` by a constant scalar), or undefined: a one-element constant
 * of rank above `rank` would widen the result, so it is no scale then.
 */
function scalarFactor(rw: GraphRewriter, op: Node, name: string, rank: number): number | undefined {
  if (!isOp(op, 'Div') && !isOp(op, 'Mul')) return undefined;
  const other = isOp(op, 'Div') ? (op.inputs[0] === name ? op.inputs[1] : undefined) : otherInput(op, name);
  const s = other ? rw.scalar(other) : undefined;
  if (s === undefined || s === 0 || !Number.isFinite(s) || (rw.constant(other!)?.dims.length ?? 0) > rank) return undefined;
  return isOp(op, 'Div') ? 1 / s : s;
}

/** A constant scalar Div/Mul producing `name` for `reader` alone: its data input and factor. */
function foldableScale(rw: GraphRewriter, name: string, reader: Node, rank: number): { node: Node; source: string; factor: number } | undefined {
  const op = rw.producer(name);
  if (!op || rw.soleReader(name) !== reader || op.outputs.length !== 1) return undefined;
  // Div scales its dividend; Mul either input (the other being the constant).
  for (const data of op.opType === 'Div' ? op.inputs.slice(0, 1) : op.inputs) {
    if (!data || rw.constant(data) || rw.elemType(data) !== 'float32' || rw.rank(data) !== rank) continue;
    const factor = scalarFactor(rw, op, data, rank);
    if (factor !== undefined) return { node: op, source: data, factor };
  }
  return undefined;
}

/** The operand as the fused op reads it: through an optional scalar scale, a Transpose and a Reshape before it. */
function operand(rw: GraphRewriter, name: string, matmul: Node, rank: number) {
  const scaled = foldableScale(rw, name, matmul, rank);
  const top = scaled ? scaled.source : name;
  const t = foldableTranspose(rw, top, scaled ? scaled.node : matmul, rank);
  const r = foldableReshape(rw, rw.producer(t ? t.source : top), t ? t.node : scaled ? scaled.node : matmul);
  // A Reshape must produce the operand's rank (it is the view the perm applies to).
  const reshape = r && r.shape.length === rank ? r : undefined;
  return {
    source: reshape?.source ?? t?.source ?? top,
    perm: t?.perm,
    shape: reshape?.shape,
    factor: scaled?.factor ?? 1,
    nodes: [reshape?.node, t?.node, scaled?.node].filter((n): n is Node => !!n),
  };
}

function sameDim(p: Dim, q: Dim): boolean {
  return p !== undefined && p === q;
}

/** Whether a mask of `name` adds to a product of `product` without widening it (right-aligned). */
function maskFits(rw: GraphRewriter, name: string, product: readonly Dim[]): boolean {
  const t = rw.graph.typeOf(name);
  if (t?.kind !== 'tensor' || !t.shape || rw.elemType(name) !== 'float32') return false;
  const off = product.length - t.shape.length;
  return off >= 0 && t.shape.every((d, i) => d === 1 || sameDim(d, product[off + i]));
}

function fuseOne(rw: GraphRewriter, matmul: Node): void {
  const [a, b] = matmul.inputs;
  const y = matmul.outputs[0];
  if (!a || !b || !y || [a, b, y].some((v) => rw.elemType(v) !== 'float32')) return;
  const rank = rw.rank(a);
  const yType = rw.graph.typeOf(y);
  const product = yType?.kind === 'tensor' ? yType.shape : undefined;
  if (rank === undefined || rank < 2 || rw.rank(b) !== rank || product?.length !== rank) return;
  // A constant operand is the weights case: MatMul/FusedMatMul pack it once; this op never would.
  if (rw.constant(a) || rw.constant(b)) return;

  const matched: Node[] = [matmul];
  // MatMul(t, t) reads one value twice: folding its producer for one side would orphan the other.
  const plain = (name: string) => ({ source: name, perm: undefined, shape: undefined, factor: 1, nodes: [] as Node[] });
  const opA = a === b ? plain(a) : operand(rw, a, matmul, rank);
  const opB = a === b ? plain(b) : operand(rw, b, matmul, rank);
  let out = y;
  let scale = opA.factor * opB.factor;
  let mask: string | undefined;
  let permY: number[] | undefined;
  let yShape: number[] | undefined;

  let next = rw.soleReader(out);
  if (isOp(next, 'Div') || isOp(next, 'Mul')) {
    const s = scalarFactor(rw, next, out, rank);
    if (s !== undefined) {
      scale *= s;
      matched.push(next);
      out = next.outputs[0];
      next = rw.soleReader(out);
    }
  }
  if (isOp(next, 'Add')) {
    const m = otherInput(next, out);
    if (m && maskFits(rw, m, product)) {
      mask = m;
      matched.push(next);
      out = next.outputs[0];
      next = rw.soleReader(out);
    }
  }
  // A mask and a permuted output are never fused together: oneDNN 2.6 mis-addresses a binary post-op
  // when dst is strided (see strided_matmul_kernel.cc); attention has no such pair anyway.
  if (isOp(next, 'Transpose') && !mask) {
    const perm = transposePerm(rw, next, rank);
    if (perm) {
      permY = perm;
      matched.push(next);
      out = next.outputs[0];
      next = rw.soleReader(out);
    }
  }
  // `next` reads `out` alone (soleReader); the Reshape's own output may have any readers.
  const yReshape = isOp(next, 'Reshape') && next.inputs[0] === out ? constantShape(rw, next) : undefined;
  if (yReshape) {
    yShape = yReshape;
    matched.push(next!);
    out = next!.outputs[0];
  }
  matched.unshift(...opA.nodes, ...opB.nodes);
  if (matched.length === 1 || !rw.owned(matched)) return;

  const attributes = new Map<string, AttributeValue>();
  if (opA.perm) attributes.set('permA', { type: 'ints', value: opA.perm });
  if (opB.perm) attributes.set('permB', { type: 'ints', value: opB.perm });
  if (permY) attributes.set('permY', { type: 'ints', value: permY });
  if (scale !== 1) attributes.set('scale', { type: 'float', value: scale });
  if (opA.shape) attributes.set('aShape', { type: 'ints', value: opA.shape });
  if (opB.shape) attributes.set('bShape', { type: 'ints', value: opB.shape });
  if (yShape) attributes.set('yShape', { type: 'ints', value: yShape });
  rw.replace(matched, {
    opType: 'StridedMatMul',
    domain: FUSED_DOMAIN,
    name: `${matmul.name || 'MatMul'}_strided`,
    inputs: mask ? [opA.source, opB.source, mask] : [opA.source, opB.source],
    outputs: [out],
    attributes,
  });
  rw.ensureOpset(FUSED_DOMAIN, 1);
}

export const attentionMatMulFusion: GraphPass = {
  name: 'cpu:attention-matmul-fusion',
  level: 'extended',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) {
      if (rw.isLive(node) && isOp(node, 'MatMul') && node.inputs.length === 2 && node.outputs.length === 1) fuseOne(rw, node);
    }
  },
};
