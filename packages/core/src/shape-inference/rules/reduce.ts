/** Reductions (Reduce*, ArgMax/ArgMin) and the losses that reduce to a scalar or keep the target's shape. */
import type { ShapeRule } from '../context.js';
import type { Dim } from '../../ir/graph.js';
import { normalizeAxes, normalizeAxis } from '../dims.js';

const REDUCE_OPS = [
  'ReduceL1', 'ReduceL2', 'ReduceLogSum', 'ReduceLogSumExp', 'ReduceMax', 'ReduceMean', 'ReduceMin',
  'ReduceProd', 'ReduceSum', 'ReduceSumSquare',
];

/**
 * Axes come from the attribute (older opsets) or from input 1 (ReduceSum ≥ 13, the rest ≥ 18);
 * none means all axes, unless `noop_with_empty_axes` makes the op an identity.
 */
const reduce: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  const keepDims = ctx.attrs.int('keepdims', 1) === 1;
  let axes: number[] | undefined;
  if (ctx.attrs.has('axes')) axes = ctx.attrs.ints('axes');
  else if (ctx.hasInput(1)) {
    axes = ctx.ints(1);
    if (!axes) {
      // Unknown axes: with keepdims the rank survives, but not which dims are 1.
      return ctx.setShape(0, keepDims && x ? x.map(() => undefined) : undefined);
    }
  } else axes = [];
  if (!x) return ctx.setShape(0, undefined);
  if (axes.length === 0) {
    if (ctx.attrs.int('noop_with_empty_axes', 0) === 1) return ctx.setShape(0, x);
    axes = x.map((_, i) => i);
  }
  const norm = normalizeAxes(axes, x.length);
  if (!norm) return ctx.setShape(0, undefined);
  const out: Dim[] = [];
  x.forEach((d, i) => {
    if (!norm.includes(i)) out.push(d);
    else if (keepDims) out.push(1);
  });
  ctx.setShape(0, out);
};

const argReduce: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!x) return ctx.setShape(0, undefined, 'int64');
  const axis = normalizeAxis(ctx.attrs.int('axis', 0), x.length);
  if (axis === undefined) return;
  const keepDims = ctx.attrs.int('keepdims', 1) === 1;
  const out = keepDims ? x.map((d, i) => (i === axis ? 1 : d)) : x.filter((_, i) => i !== axis);
  ctx.setShape(0, out, 'int64');
};

/** NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss: scalar unless `reduction` is none. */
function loss(targetIndex: number): ShapeRule {
  return (ctx) => {
    const reduction = ctx.attrs.string('reduction', 'mean');
    ctx.setShape(0, reduction === 'none' ? ctx.shape(targetIndex) : []);
    if (ctx.hasOutput(1)) ctx.setShape(1, ctx.shape(0));
  };
}

export const reduceRules: Record<string, ShapeRule> = {
  ...Object.fromEntries(REDUCE_OPS.map((op) => [op, reduce])),
  ArgMax: argReduce,
  ArgMin: argReduce,
  NegativeLogLikelihoodLoss: loss(1),
  SoftmaxCrossEntropyLoss: loss(1),
};
