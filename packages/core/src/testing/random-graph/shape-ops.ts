/**
 * Random nodes that move elements: Reshape (by a constant or by a Shape → Gather → Concat chain),
 * Flatten, Transpose, Concat, Slice, Gather, Squeeze/Unsqueeze, Expand, Split.
 */
import { elementsOf, type GraphBuilder, type RandomValue } from './graph-builder.js';

/** What exporters write for "to the end". */
const INT64_MAX = 9223372036854775807n;

/** A random permutation of 0..n-1 (never the identity when n > 1, so the Transpose does something). */
function permutation(b: GraphBuilder, n: number): number[] {
  for (;;) {
    const p = b.rng.shuffle(Array.from({ length: n }, (_, i) => i));
    if (n < 2 || p.some((v, i) => v !== i)) return p;
  }
}

/** A new shape with the same element count: adjacent dims merged and dims split into factors. */
function regroup(b: GraphBuilder, shape: readonly number[]): number[] {
  const r = b.rng;
  let dims = [...shape];
  for (let k = r.int(1, 3); k > 0; k--) {
    if (dims.length >= 2 && r.chance(0.5)) {
      const i = r.int(0, dims.length - 2);
      dims = [...dims.slice(0, i), dims[i] * dims[i + 1], ...dims.slice(i + 2)];
    } else if (dims.length < 5) {
      const i = r.int(0, dims.length - 1);
      const f = [2, 3, 4].filter((p) => dims[i] % p === 0 && dims[i] > p);
      if (f.length) {
        const p = r.pick(f);
        dims = [...dims.slice(0, i), p, dims[i] / p, ...dims.slice(i + 1)];
      } else if (r.chance(0.3)) dims.splice(i, 0, 1);
    }
  }
  return dims;
}

/** Reshape by a constant shape, written with 0 (copy the dim) and -1 (infer) the way exporters write it. */
export function reshape(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.length >= 1) ?? b.pickFloat();
  if (!x) return undefined;
  const target = regroup(b, x.shape);
  const spec = target.map((d, i) => (i < x.shape.length && x.shape[i] === d && b.rng.chance(0.3) ? 0 : d));
  if (b.rng.chance(0.5)) spec[b.rng.int(0, spec.length - 1)] = -1;
  const shape = b.constant(b.int64s(spec), 'shape');
  return b.op('Reshape', [x, shape], { dtype: x.dtype, shape: target, mag: x.mag });
}

/**
 * The dynamic form exporters emit: Shape(x) → Gather(leading dims) → Concat with constants → Reshape.
 * At 'basic' the chain folds to a constant when shapes are known.
 */
export function shapeChainReshape(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.length >= 2);
  if (!x) return undefined;
  const r = b.rng;
  const lead = r.int(1, x.shape.length - 1);
  const shape = b.op('Shape', [x], { dtype: 'int64', shape: [x.shape.length], mag: 1, exact: true });
  const head = b.op('Gather', [shape, b.constant(b.int64s(Array.from({ length: lead }, (_, i) => i)), 'idx')], { dtype: 'int64', shape: [lead], mag: 1 }, { axis: 0 });
  const rest = elementsOf(x.shape.slice(lead));
  const tail = b.constant(b.int64s(r.chance(0.5) ? [-1] : [rest]), 'tail');
  const spec = b.op('Concat', [head, tail], { dtype: 'int64', shape: [lead + 1], mag: 1 }, { axis: 0 });
  return b.op('Reshape', [x, spec], { dtype: x.dtype, shape: [...x.shape.slice(0, lead), rest], mag: x.mag });
}

/** Shape → Gather of one dim (a scalar) → Unsqueeze → Cast to float: an integer path into float math. */
export function shapeArithmetic(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.length >= 1);
  if (!x) return undefined;
  const r = b.rng;
  const axis = r.int(0, x.shape.length - 1);
  const start = b.opset >= 15 && r.chance(0.3) ? axis : undefined;
  const shape = b.op('Shape', [x], { dtype: 'int64', shape: [x.shape.length - (start ?? 0)], mag: 1, exact: true }, start === undefined ? {} : { start });
  const dim = b.op('Gather', [shape, b.constant(b.int64s([start === undefined ? axis : 0], []), 'idx')], { dtype: 'int64', shape: [], mag: 1 }, { axis: 0 });
  const d = x.shape[axis];
  const one = b.op('Unsqueeze', [dim, b.constant(b.int64s([0]), 'axes')], { dtype: 'int64', shape: [1], mag: d });
  const scaled = b.op('Mul', [one, b.constant(b.int64s([r.int(1, 3)]), 'k')], { dtype: 'int64', shape: [1], mag: 3 * d });
  return b.op('Cast', [scaled], { dtype: 'float32', shape: [1], mag: 3 * d }, { to: 1 });
}

export function flatten(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.length >= 1);
  if (!x) return undefined;
  const rank = x.shape.length;
  const axis = b.rng.int(-rank, rank);
  const a = axis < 0 ? axis + rank : axis;
  const shape = [elementsOf(x.shape.slice(0, a)), elementsOf(x.shape.slice(a))];
  return b.op('Flatten', [x], { dtype: x.dtype, shape, mag: x.mag }, { axis });
}

export function transpose(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.length >= 2);
  if (!x) return undefined;
  const rank = x.shape.length;
  const useDefault = b.rng.chance(0.15);
  const perm = useDefault ? Array.from({ length: rank }, (_, i) => rank - 1 - i) : permutation(b, rank);
  return b.op('Transpose', [x], { dtype: x.dtype, shape: perm.map((p) => x.shape[p]), mag: x.mag }, useDefault ? {} : { perm });
}

/** Concat of a value with others that match it on every axis but one (itself, a map of it, a constant). */
export function concat(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.length >= 1);
  if (!x) return undefined;
  const r = b.rng;
  const rank = x.shape.length;
  const axis = r.int(0, rank - 1);
  const parts: RandomValue[] = [x];
  for (let k = r.int(1, 2); k > 0; k--) {
    const choice = r.weighted([['same', 2], ['value', 3], ['constant', 2]] as const);
    const matches = (v: RandomValue) => v.shape.length === rank && v.shape.every((d, i) => i === axis || d === x.shape[i]);
    const other = choice === 'value' ? b.pickFloat((v) => matches(v)) : undefined;
    if (other) parts.push(other);
    else if (choice === 'constant') {
      const shape = x.shape.map((d, i) => (i === axis ? r.int(1, 3) : d));
      parts.push(b.constant(b.floats(shape, -1, 1)));
    } else parts.push(x);
  }
  const shape = x.shape.map((d, i) => (i === axis ? parts.reduce((s, p) => s + p.shape[axis], 0) : d));
  const mag = Math.max(...parts.map((p) => p.mag));
  return b.op('Concat', parts, { dtype: 'float32', shape, mag }, { axis: r.chance(0.5) ? axis : axis - rank });
}

/** Slice with constant starts/ends/axes/steps: negative indices, ends past the dim, negative steps. */
export function slice(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.some((d) => d >= 2));
  if (!x) return undefined;
  const r = b.rng;
  const rank = x.shape.length;
  const axes = r.shuffle(Array.from({ length: rank }, (_, i) => i).filter((i) => x.shape[i] >= 2)).slice(0, r.int(1, 2));
  const starts: number[] = [];
  const ends: Array<number | bigint> = [];
  const steps: number[] = [];
  const shape = [...x.shape];
  for (const a of axes) {
    const d = x.shape[a];
    const step = r.pick([1, 1, 2, -1]);
    let s: number;
    let e: number;
    if (step > 0) {
      s = r.int(0, d - 1);
      e = r.int(s + 1, d);
      shape[a] = Math.ceil((e - s) / step);
    } else {
      s = r.int(1, d - 1);
      e = r.int(-1, s - 1);
      shape[a] = Math.ceil((s - e) / -step);
    }
    // Equivalent spellings: counted from the end, or an end past the dim (clamped).
    const start = r.chance(0.3) ? s - d : s;
    const end = e === d && r.chance(0.5) ? INT64_MAX : e === -1 ? -d - 1 : r.chance(0.3) && e > 0 && e < d ? e - d : e;
    starts.push(start);
    ends.push(end);
    steps.push(step);
  }
  const signedAxes = axes.map((a) => (r.chance(0.3) ? a - rank : a));
  const inputs: Array<RandomValue | ''> = [x, b.constant(b.int64s(starts), 'starts'), b.constant(b.int64s(ends), 'ends')];
  const allOne = steps.every((s) => s === 1);
  if (!allOne || r.chance(0.7)) inputs.push(b.constant(b.int64s(signedAxes), 'axes'));
  if (!allOne) inputs.push(b.constant(b.int64s(steps), 'steps'));
  if (inputs.length === 3 && axes.some((a, i) => a !== i)) {
    // Without axes, starts/ends apply to the first dims: spell the axes out.
    inputs.push(b.constant(b.int64s(signedAxes), 'axes'));
  }
  return b.op('Slice', inputs, { dtype: x.dtype, shape, mag: x.mag });
}

/** Gather with constant indices (negative ones included): a scalar index drops the axis. */
export function gather(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.length >= 1);
  if (!x) return undefined;
  const r = b.rng;
  const rank = x.shape.length;
  const axis = r.int(0, rank - 1);
  const d = x.shape[axis];
  const index = () => (r.chance(0.25) ? r.int(-d, -1) : r.int(0, d - 1));
  const form = r.weighted([['scalar', 2], ['vector', 3], ['matrix', 1]] as const);
  const idxShape = form === 'scalar' ? [] : form === 'vector' ? [r.int(1, 4)] : [2, r.int(1, 2)];
  const idx = b.constant(b.int64s(Array.from({ length: elementsOf(idxShape) }, index), idxShape), 'idx');
  const shape = [...x.shape.slice(0, axis), ...idxShape, ...x.shape.slice(axis + 1)];
  return b.op('Gather', [x, idx], { dtype: x.dtype, shape, mag: x.mag }, { axis: r.chance(0.3) ? axis - rank : axis });
}

/** Unsqueeze at a random place, or Squeeze of the size-1 dims. */
export function squeezeOrUnsqueeze(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat();
  if (!x) return undefined;
  const r = b.rng;
  const ones = x.shape.map((d, i) => (d === 1 ? i : -1)).filter((i) => i >= 0);
  if (ones.length > 0 && r.chance(0.5)) {
    const axes = ones.filter(() => r.chance(0.7));
    const squeezed = axes.length ? axes : ones;
    const shape = x.shape.filter((_, i) => !squeezed.includes(i));
    const inputs: RandomValue[] = [x];
    if (axes.length || r.chance(0.5)) inputs.push(b.constant(b.int64s(squeezed), 'axes'));
    return b.op('Squeeze', inputs, { dtype: x.dtype, shape, mag: x.mag });
  }
  if (x.shape.length >= 5) return undefined;
  const at = r.int(0, x.shape.length);
  const shape = [...x.shape.slice(0, at), 1, ...x.shape.slice(at)];
  const axis = r.chance(0.3) ? at - shape.length : at;
  return b.op('Unsqueeze', [x, b.constant(b.int64s([axis]), 'axes')], { dtype: x.dtype, shape, mag: x.mag });
}

/** Expand a value with size-1 dims (or too few dims) to a larger broadcast shape. */
export function expand(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => elementsOf(v.shape) <= 256 && v.shape.length <= 4);
  if (!x) return undefined;
  const r = b.rng;
  const target = x.shape.map((d) => (d === 1 && r.chance(0.6) ? r.int(2, 3) : d));
  if (r.chance(0.3)) target.unshift(r.int(1, 2));
  // The shape input may itself hold 1s where x is larger: broadcasting keeps x's dim.
  const spec = target.map((d, i) => {
    const xd = x.shape[x.shape.length - target.length + i];
    return xd !== undefined && xd === d && r.chance(0.3) ? 1 : d;
  });
  return b.op('Expand', [x, b.constant(b.int64s(spec), 'shape')], { dtype: x.dtype, shape: target, mag: x.mag });
}

/** Split into 2 or 3 parts along an axis: several outputs from one node. */
export function split(b: GraphBuilder): RandomValue[] | undefined {
  const x = b.pickFloat((v) => v.shape.some((d) => d >= 2));
  if (!x) return undefined;
  const r = b.rng;
  const axes = x.shape.map((d, i) => (d >= 2 ? i : -1)).filter((i) => i >= 0);
  const axis = r.pick(axes);
  const d = x.shape[axis];
  const first = r.int(1, d - 1);
  const sizes = d - first >= 2 && r.chance(0.4) ? [first, 1, d - first - 1] : [first, d - first];
  const outs = sizes.map((s) => ({ dtype: x.dtype, shape: x.shape.map((v, i) => (i === axis ? s : v)), mag: x.mag }));
  return b.node('Split', [x, b.constant(b.int64s(sizes), 'split')], outs, { axis });
}
