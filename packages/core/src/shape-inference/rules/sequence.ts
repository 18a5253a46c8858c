/** Sequence and optional ops: the element type travels through; element shapes where they are fixed. */
import type { ShapeRule } from '../context.js';
import type { Dim, ValueType } from '../../ir/graph.js';
import { commonType, normalizeAxis } from '../dims.js';
import { dtypeAttr } from './elementwise.js';

function elemOf(t: ValueType | undefined): ValueType | undefined {
  return t?.kind === 'sequence' || t?.kind === 'optional' ? t.elem : undefined;
}

const sequenceEmpty: ShapeRule = (ctx) => {
  const t = dtypeAttr(ctx.attrs.int('dtype', 1)) ?? 'float32';
  ctx.setType(0, { kind: 'sequence', elem: { kind: 'tensor', elemType: t } });
};

const sequenceConstruct: ShapeRule = (ctx) => {
  let elem = ctx.type(0);
  for (let i = 1; i < ctx.inputCount; i++) elem = commonType(elem, ctx.type(i));
  ctx.setType(0, { kind: 'sequence', elem });
};

const sequenceInsert: ShapeRule = (ctx) => {
  const seq = ctx.type(0);
  const tensor = ctx.type(1);
  // An element already in the sequence with an unknown shape makes the common shape unknown too.
  const existing = elemOf(seq);
  const elem = existing ? commonType(existing, tensor) : tensor;
  ctx.setType(0, { kind: 'sequence', elem });
};

const passThrough: ShapeRule = (ctx) => ctx.setType(0, ctx.type(0));

const sequenceAt: ShapeRule = (ctx) => ctx.setType(0, elemOf(ctx.type(0)) ?? ctx.outputs[0]);

const scalarOf =
  (elemType: 'int64' | 'bool'): ShapeRule =>
  (ctx) =>
    ctx.setShape(0, [], elemType);

/** SplitToSequence: each piece keeps the rank (or drops the axis when keepdims=0 and no split is given). */
const splitToSequence: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  const t = ctx.elemType(0);
  if (!t) return;
  if (!x) return ctx.setType(0, { kind: 'sequence', elem: { kind: 'tensor', elemType: t } });
  const axis = normalizeAxis(ctx.attrs.int('axis', 0), x.length);
  if (axis === undefined) return;
  let shape: Dim[];
  if (!ctx.hasInput(1)) {
    shape = ctx.attrs.int('keepdims', 1) === 1 ? x.map((d, i) => (i === axis ? 1 : d)) : x.filter((_, i) => i !== axis);
  } else {
    // A scalar split gives pieces of that size except perhaps the last; a list gives varying sizes.
    shape = x.map((d, i) => (i === axis ? undefined : d));
  }
  ctx.setType(0, { kind: 'sequence', elem: { kind: 'tensor', elemType: t, shape } });
};

const concatFromSequence: ShapeRule = (ctx) => {
  const elem = elemOf(ctx.type(0));
  if (elem?.kind !== 'tensor') return;
  if (!elem.shape) return ctx.setShape(0, undefined, elem.elemType);
  const newAxis = ctx.attrs.int('new_axis', 0) === 1;
  const rank = elem.shape.length + (newAxis ? 1 : 0);
  const axis = normalizeAxis(ctx.attrs.int('axis'), rank);
  if (axis === undefined) return ctx.setShape(0, undefined, elem.elemType);
  const shape: Dim[] = [...elem.shape];
  if (newAxis) shape.splice(axis, 0, undefined);
  else shape[axis] = undefined;
  ctx.setShape(0, shape, elem.elemType);
};

const sequenceMap: ShapeRule = (ctx) => {
  const body = ctx.attrs.graph('body');
  const seeds = ctx.node.inputs.map((_, i) => {
    const t = ctx.type(i);
    return t?.kind === 'sequence' ? t.elem : t;
  });
  ctx.inferSubgraph(body, seeds);
  for (let o = 0; o < ctx.outputs.length; o++) {
    const out = body.outputs[o];
    ctx.setType(o, { kind: 'sequence', elem: out ? body.typeOf(out.name) : undefined });
  }
};

const optional: ShapeRule = (ctx) => {
  ctx.setType(0, { kind: 'optional', elem: ctx.type(0) });
};

/** From opset 18 a plain tensor or sequence is accepted too and passes through. */
const optionalGetElement: ShapeRule = (ctx) => {
  const t = ctx.type(0);
  ctx.setType(0, t?.kind === 'optional' ? t.elem : t);
};

export const sequenceRules: Record<string, ShapeRule> = {
  SequenceEmpty: sequenceEmpty,
  SequenceConstruct: sequenceConstruct,
  SequenceInsert: sequenceInsert,
  SequenceErase: passThrough,
  SequenceAt: sequenceAt,
  SequenceLength: scalarOf('int64'),
  SplitToSequence: splitToSequence,
  ConcatFromSequence: concatFromSequence,
  SequenceMap: sequenceMap,
  Optional: optional,
  OptionalGetElement: optionalGetElement,
  OptionalHasElement: scalarOf('bool'),
};
