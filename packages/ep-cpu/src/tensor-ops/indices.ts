/** Axis normalisation and reading of index/shape tensors as plain numbers, with bounds checks. */
import { SwitchyardError, type Tensor } from '@switchyard/core';

/** Resolves a possibly negative axis against `rank`; throws when out of range. */
export function normalizeAxis(axis: number, rank: number, op: string): number {
  if (!Number.isInteger(axis) || axis < -rank || axis >= rank) {
    throw new SwitchyardError('INVALID_SHAPE', `${op}: axis ${axis} is out of range for rank ${rank}`);
  }
  return axis < 0 ? axis + rank : axis;
}

/** Resolves several axes; throws on duplicates. */
export function normalizeAxes(axes: readonly number[], rank: number, op: string): number[] {
  const out = axes.map((a) => normalizeAxis(a, rank, op));
  if (new Set(out).size !== out.length) throw new SwitchyardError('INVALID_SHAPE', `${op}: axes [${axes.join(', ')}] repeat an axis`);
  return out;
}

const INTEGER_TYPES = new Set(['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64']);

/**
 * An integer tensor's values as numbers. Values beyond ±2^53 are an error unless `clamp` is set,
 * in which case they saturate (Slice's starts/ends use INT64_MAX to mean "to the end").
 */
export function readInts(t: Tensor, what: string, opts: { clamp?: boolean } = {}): number[] {
  if (!INTEGER_TYPES.has(t.type)) throw new SwitchyardError('RUNTIME', `${what} must be an integer tensor, got ${t.type}`);
  const d = t.data as ArrayLike<number | bigint>;
  const out = new Array<number>(t.size);
  for (let i = 0; i < t.size; i++) {
    const v = d[i];
    if (typeof v === 'number') {
      out[i] = v;
      continue;
    }
    const n = Number(v);
    if (!Number.isSafeInteger(n)) {
      if (!opts.clamp) throw new SwitchyardError('RUNTIME', `${what}: value ${v} is out of the supported range`);
      out[i] = n > 0 ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
    } else out[i] = n;
  }
  return out;
}

/** A one-element integer tensor's value. */
export function readScalarInt(t: Tensor, what: string, opts: { clamp?: boolean } = {}): number {
  if (t.size !== 1) throw new SwitchyardError('RUNTIME', `${what} must hold exactly one value, got shape [${t.dims.join(', ')}]`);
  return readInts(t, what, opts)[0];
}

/** Checks an index into a dimension of `size`, wrapping negatives once; throws a clear RUNTIME error otherwise. */
export function checkIndex(index: number, size: number, op: string): number {
  const i = index < 0 ? index + size : index;
  if (!(i >= 0 && i < size)) throw new SwitchyardError('RUNTIME', `${op}: index ${index} is out of bounds for a dimension of size ${size}`);
  return i;
}

/** An element of an index tensor as a number (int32 or int64 data). */
export function indexAt(data: ArrayLike<number | bigint>, i: number): number {
  const v = data[i];
  return typeof v === 'number' ? v : Number(v);
}

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/**
 * Element i of an int32/int64 index tensor as a number. int64 elements are read as two 32-bit halves:
 * reading a BigInt64Array element allocates a BigInt, which costs more than the gather it feeds. Values
 * past ±2^53 come out rounded, as Number(bigint) rounds them (no index is that large).
 */
export function indexReader(t: Tensor): (i: number) => number {
  if (t.type !== 'int64') {
    const d = t.data as ArrayLike<number>;
    return (i) => d[i];
  }
  const d = t.data as BigInt64Array;
  if (!LITTLE_ENDIAN) return (i) => Number(d[i]);
  const halves = new Int32Array(d.buffer, d.byteOffset, d.length * 2);
  return (i) => halves[2 * i + 1] * 4294967296 + (halves[2 * i] >>> 0);
}

export function requireIndexTensor(t: Tensor, what: string): void {
  if (t.type !== 'int32' && t.type !== 'int64') throw new SwitchyardError('RUNTIME', `${what} must be int32 or int64, got ${t.type}`);
}

/** Product of dims[from, to). */
export function product(dims: readonly number[], from = 0, to = dims.length): number {
  let p = 1;
  for (let i = from; i < to; i++) p *= dims[i];
  return p;
}
