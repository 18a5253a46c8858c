/** Matrix products: MatMul (numpy batching), Gemm, their integer/quantised forms, Einsum, Det. */
import type { ShapeRule } from '../context.js';
import type { Dim } from '../../ir/graph.js';
import { broadcastShapes, unifyDim } from '../dims.js';

/** numpy matmul: 1-D operands gain and then lose a unit dim; leading dims broadcast. */
export function matmulShape(a: readonly Dim[] | undefined, b: readonly Dim[] | undefined): Dim[] | undefined {
  if (!a || !b || a.length === 0 || b.length === 0) return undefined;
  const a2 = a.length === 1 ? [1, a[0]] : a;
  const b2 = b.length === 1 ? [b[0], 1] : b;
  const batch = broadcastShapes([a2.slice(0, -2), b2.slice(0, -2)]);
  if (!batch) return undefined;
  const out = [...batch];
  if (a.length > 1) out.push(a2[a2.length - 2]);
  if (b.length > 1) out.push(b2[b2.length - 1]);
  return out;
}

function matmulLike(aIndex: number, bIndex: number): ShapeRule {
  return (ctx) => ctx.setShape(0, matmulShape(ctx.shape(aIndex), ctx.shape(bIndex)));
}

const gemm: ShapeRule = (ctx) => {
  const a = ctx.shape(0);
  const b = ctx.shape(1);
  const transA = ctx.attrs.int('transA', 0) === 1;
  const transB = ctx.attrs.int('transB', 0) === 1;
  const m = a?.length === 2 ? a[transA ? 1 : 0] : undefined;
  const n = b?.length === 2 ? b[transB ? 0 : 1] : undefined;
  ctx.setShape(0, [m, n]);
};

/** Einsum: each letter's size from the operands; `...` broadcasts; implicit output = sorted single-use letters. */
const einsum: ShapeRule = (ctx) => {
  const equation = ctx.attrs.string('equation').replace(/\s+/g, '');
  const [lhs, explicitRhs] = equation.split('->');
  const terms = lhs.split(',');
  if (terms.length !== ctx.inputCount) return;
  const letters = new Map<string, Dim>();
  const counts = new Map<string, number>();
  const ellipsisShapes: Dim[][] = [];
  for (let i = 0; i < terms.length; i++) {
    const shape = ctx.shape(i);
    if (!shape) return;
    const [before, after] = terms[i].split('...');
    const hasEllipsis = after !== undefined;
    const named = before.length + (after?.length ?? 0);
    if (hasEllipsis ? shape.length < named : shape.length !== named) return;
    const ellipsisRank = shape.length - named;
    const tail = shape.slice(shape.length - (after?.length ?? 0));
    if (hasEllipsis) ellipsisShapes.push(shape.slice(before.length, before.length + ellipsisRank));
    const pairs: Array<[string, Dim]> = [
      ...[...before].map((c, k): [string, Dim] => [c, shape[k]]),
      ...[...(after ?? '')].map((c, k): [string, Dim] => [c, tail[k]]),
    ];
    for (const [c, d] of pairs) {
      const prev = letters.get(c);
      letters.set(c, !letters.has(c) || prev === 1 ? d : d === 1 ? prev : unifyDim(prev, d));
      counts.set(c, (counts.get(c) ?? 0) + 1);
    }
  }
  const ellipsis = broadcastShapes(ellipsisShapes) ?? [];
  let rhs = explicitRhs;
  if (rhs === undefined) {
    const single = [...counts].filter(([, n]) => n === 1).map(([c]) => c).sort();
    rhs = (ellipsisShapes.length > 0 ? '...' : '') + single.join('');
  }
  const out: Dim[] = [];
  const [rb, ra] = rhs.split('...');
  for (const c of rb) out.push(letters.get(c));
  if (ra !== undefined) out.push(...ellipsis, ...[...ra].map((c) => letters.get(c)));
  ctx.setShape(0, out);
};

const det: ShapeRule = (ctx) => ctx.setShape(0, ctx.shape(0)?.slice(0, -2));

export const matmulRules: Record<string, ShapeRule> = {
  MatMul: matmulLike(0, 1),
  MatMulInteger: matmulLike(0, 1),
  QLinearMatMul: matmulLike(0, 3),
  Gemm: gemm,
  Einsum: einsum,
  Det: det,
};
