/**
 * Value rules: compute the contents of small outputs whose inputs are known, so the shape arithmetic
 * of exported models (Shape → Gather → Unsqueeze → Concat → Reshape) resolves. This is not the
 * optimizer's constant folding: results are only read by later shape rules, never written to the graph.
 * Symbolic elements pass through the data-movement ops (Gather, Slice, Concat, reshapes, Cast to int).
 */
import type { InferContext } from './context.js';
import type { Dim } from '../ir/graph.js';
import { INT_TYPES, type DataType } from '../tensor/data-type.js';
import { isStaticShape, normalizeAxis } from './dims.js';
import { type KnownValue, MAX_KNOWN_ELEMENTS } from './known-values.js';
import { sliceParams, sliceRange } from './rules/indexing.js';

export type ValueRule = (ctx: InferContext) => KnownValue | undefined;

/** Static shape and dtype of output 0, when small enough to hold as a known value. */
function outputLayout(ctx: InferContext): { type: DataType; dims: number[]; size: number } | undefined {
  const t = ctx.outputs[0];
  if (t?.kind !== 'tensor' || !isStaticShape(t.shape)) return undefined;
  const size = t.shape.reduce((a, b) => a * b, 1);
  return size <= MAX_KNOWN_ELEMENTS ? { type: t.elemType, dims: t.shape, size } : undefined;
}

function strides(dims: readonly number[]): number[] {
  const s = Array<number>(dims.length).fill(1);
  for (let i = dims.length - 2; i >= 0; i--) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

/** For each output element, the flat index of the element of `inDims` it broadcasts from. */
function broadcastIndexMap(inDims: readonly number[], outDims: readonly number[]): number[] | undefined {
  const offset = outDims.length - inDims.length;
  if (offset < 0) return undefined;
  const inStrides = strides(inDims);
  const outStrides = strides(outDims);
  const size = outDims.reduce((a, b) => a * b, 1);
  const map: number[] = [];
  for (let flat = 0; flat < size; flat++) {
    let src = 0;
    for (let a = offset; a < outDims.length; a++) {
      const coord = Math.floor(flat / outStrides[a]) % outDims[a];
      const d = inDims[a - offset];
      if (d !== 1 && d !== outDims[a]) return undefined;
      src += (d === 1 ? 0 : coord) * inStrides[a - offset];
    }
    map.push(src);
  }
  return map;
}

/** Same elements, new dims (Identity, Reshape, Flatten, Squeeze, Unsqueeze). */
const sameElements: ValueRule = (ctx) => {
  const v = ctx.value(0);
  const out = outputLayout(ctx);
  return v && out && out.size === v.values.length ? { type: out.type, dims: out.dims, values: v.values } : undefined;
};

const isIntType = (t: DataType) => INT_TYPES.includes(t);

const cast: ValueRule = (ctx) => {
  const v = ctx.value(0);
  const out = outputLayout(ctx);
  if (!v || !out) return undefined;
  const convert = (x: Dim): Dim => {
    if (typeof x !== 'number') return isIntType(out.type) ? x : undefined;
    if (isIntType(out.type)) return Math.trunc(x);
    if (out.type === 'bool') return x !== 0 ? 1 : 0;
    return x;
  };
  return { type: out.type, dims: out.dims, values: v.values.map(convert) };
};

const gather: ValueRule = (ctx) => {
  const data = ctx.value(0);
  const indices = ctx.ints(1);
  const out = outputLayout(ctx);
  if (!data || !indices || !out) return undefined;
  const axis = normalizeAxis(ctx.attrs.int('axis', 0), data.dims.length);
  if (axis === undefined) return undefined;
  const extent = data.dims[axis];
  const outer = data.dims.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = data.dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  const values: Dim[] = [];
  for (let o = 0; o < outer; o++) {
    for (const raw of indices) {
      const idx = raw < 0 ? raw + extent : raw;
      if (idx < 0 || idx >= extent) return undefined;
      for (let i = 0; i < inner; i++) values.push(data.values[(o * extent + idx) * inner + i]);
    }
  }
  return values.length === out.size ? { type: out.type, dims: out.dims, values } : undefined;
};

const slice: ValueRule = (ctx) => {
  const data = ctx.value(0);
  const out = outputLayout(ctx);
  if (!data || !out) return undefined;
  const p = sliceParams(ctx, data.dims.length);
  if (!p) return undefined;
  // Per axis: first index and step; axes not sliced take everything.
  const first = data.dims.map(() => 0);
  const step = data.dims.map(() => 1);
  p.axes.forEach((axis, k) => {
    first[axis] = sliceRange(data.dims[axis], p.starts[k], p.ends[k], p.steps[k]).start;
    step[axis] = p.steps[k];
  });
  const inStrides = strides(data.dims);
  const outStrides = strides(out.dims);
  const values: Dim[] = [];
  for (let flat = 0; flat < out.size; flat++) {
    let src = 0;
    for (let a = 0; a < out.dims.length; a++) {
      const coord = Math.floor(flat / outStrides[a]) % out.dims[a];
      src += (first[a] + coord * step[a]) * inStrides[a];
    }
    values.push(data.values[src]);
  }
  return { type: out.type, dims: out.dims, values };
};

const concat: ValueRule = (ctx) => {
  const out = outputLayout(ctx);
  if (!out) return undefined;
  const inputs = ctx.node.inputs.map((_, i) => ctx.value(i));
  if (inputs.some((v) => v === undefined)) return undefined;
  const known = inputs as KnownValue[];
  const axis = normalizeAxis(ctx.attrs.int('axis', ctx.opset < 4 ? 1 : 0), out.dims.length);
  if (axis === undefined) return undefined;
  const outer = out.dims.slice(0, axis).reduce((a, b) => a * b, 1);
  const values: Dim[] = [];
  for (let o = 0; o < outer; o++) {
    for (const v of known) {
      const block = v.values.length / outer;
      values.push(...v.values.slice(o * block, (o + 1) * block));
    }
  }
  return values.length === out.size ? { type: out.type, dims: out.dims, values } : undefined;
};

type Numeric = (args: number[], isInt: boolean) => number;

/** Elementwise ops over numbers, with the symbol-preserving identities x+0, x-0, x·1, x/1. */
function elementwise(f: Numeric, identity?: { op: 'add' | 'sub' | 'mul' | 'div' }): ValueRule {
  return (ctx) => {
    const out = outputLayout(ctx);
    if (!out) return undefined;
    const inputs = ctx.node.inputs.map((_, i) => ctx.value(i));
    if (inputs.some((v) => v === undefined)) return undefined;
    const maps = (inputs as KnownValue[]).map((v) => broadcastIndexMap(v.dims, out.dims));
    if (maps.some((m) => m === undefined)) return undefined;
    // Integer results truncate; comparisons yield bool whatever the input type.
    const isInt = isIntType(ctx.elemType(0) ?? out.type);
    const values: Dim[] = [];
    for (let k = 0; k < out.size; k++) {
      const args = (inputs as KnownValue[]).map((v, i) => v.values[maps[i]![k]]);
      if (args.every((a) => typeof a === 'number')) {
        const r = f(args as number[], isInt);
        values.push(Number.isFinite(r) || !isInt ? r : undefined);
      } else values.push(identity ? symbolicIdentity(identity.op, args) : undefined);
    }
    return { type: out.type, dims: out.dims, values };
  };
}

function symbolicIdentity(op: 'add' | 'sub' | 'mul' | 'div', [a, b]: Dim[]): Dim {
  if (typeof a === 'string' && ((op === 'add' || op === 'sub') ? b === 0 : b === 1)) return a;
  if (typeof b === 'string' && ((op === 'add' && a === 0) || (op === 'mul' && a === 1))) return b;
  return undefined;
}

const intDiv = (a: number, b: number) => (b === 0 ? NaN : Math.trunc(a / b));
/** ONNX integer Mod (fmod=0) takes the divisor's sign, like Python. */
const intMod = (a: number, b: number) => (b === 0 ? NaN : ((a % b) + b) % b);

const reduceAll =
  (f: (values: number[]) => number): ValueRule =>
  (ctx) => {
    const v = ctx.value(0);
    const out = outputLayout(ctx);
    if (!v || !out || out.size !== 1 || !v.values.every((x) => typeof x === 'number')) return undefined;
    return { type: out.type, dims: out.dims, values: [f(v.values as number[])] };
  };

/** Expand of a known value: every output element reads its broadcast source. */
const expand: ValueRule = (ctx) => {
  const v = ctx.value(0);
  const out = outputLayout(ctx);
  const map = v && out ? broadcastIndexMap(v.dims, out.dims) : undefined;
  return v && out && map ? { type: out.type, dims: out.dims, values: map.map((i) => v.values[i]) } : undefined;
};

export const valueRules: Record<string, ValueRule> = {
  Identity: sameElements,
  Reshape: sameElements,
  Flatten: sameElements,
  Squeeze: sameElements,
  Unsqueeze: sameElements,
  Cast: cast,
  Gather: gather,
  Slice: slice,
  Concat: concat,
  Expand: expand,
  Add: elementwise(([a, b]) => a + b, { op: 'add' }),
  Sub: elementwise(([a, b]) => a - b, { op: 'sub' }),
  Mul: elementwise(([a, b]) => a * b, { op: 'mul' }),
  Div: elementwise(([a, b], isInt) => (isInt ? intDiv(a, b) : a / b), { op: 'div' }),
  Mod: elementwise(([a, b], isInt) => (isInt ? intMod(a, b) : a % b)),
  Neg: elementwise(([a]) => -a),
  Abs: elementwise(([a]) => Math.abs(a)),
  Floor: elementwise(([a]) => Math.floor(a)),
  Ceil: elementwise(([a]) => Math.ceil(a)),
  Sqrt: elementwise(([a]) => Math.sqrt(a)),
  Max: elementwise((args) => Math.max(...args)),
  Min: elementwise((args) => Math.min(...args)),
  Equal: elementwise(([a, b]) => (a === b ? 1 : 0)),
  Less: elementwise(([a, b]) => (a < b ? 1 : 0)),
  LessOrEqual: elementwise(([a, b]) => (a <= b ? 1 : 0)),
  Greater: elementwise(([a, b]) => (a > b ? 1 : 0)),
  GreaterOrEqual: elementwise(([a, b]) => (a >= b ? 1 : 0)),
  Not: elementwise(([a]) => (a ? 0 : 1)),
  And: elementwise(([a, b]) => (a && b ? 1 : 0)),
  Or: elementwise(([a, b]) => (a || b ? 1 : 0)),
  Where: elementwise(([c, x, y]) => (c ? x : y)),
  ReduceProd: reduceAll((v) => v.reduce((a, b) => a * b, 1)),
  ReduceSum: reduceAll((v) => v.reduce((a, b) => a + b, 0)),
  ReduceMax: reduceAll((v) => Math.max(...v)),
  ReduceMin: reduceAll((v) => Math.min(...v)),
};
