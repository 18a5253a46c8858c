/**
 * Reductions over a set of axes (ReduceSum, ReduceMax, … and their shared plumbing).
 *
 * A `ReducePlan` lists, for each output element, the flat offset of its first input element
 * (`base`), and once for all, the offsets of the reduced elements relative to it (`rel`). Every
 * reduction is then `for o: for r: acc = step(acc, x[base[o] + rel[r]])`, compiled per op like the
 * elementwise loops. When the reduced axes are the trailing ones, `rel` is 0..R-1 and the loop reads
 * contiguously.
 */
import { SwitchyardError, elementCount, type DataType, type Kernel, type KernelInit, type Tensor } from '@switchyard/core';
import { NUMERIC } from './dtypes.js';
import { allSafeIntegers, int64ToNumbers, numbersToInt64, toNumbers, writeNumbers } from './numeric.js';
import { erf } from './special.js';

export interface ReducePlan {
  /** Output dims (reduced axes kept as 1 or dropped, per keepdims). */
  dims: number[];
  outSize: number;
  /** Elements per reduction. */
  count: number;
  base: Int32Array;
  rel: Int32Array;
  /** `rel` is 0..count-1. */
  contiguous: boolean;
}

/** Normalises axes against `rank` (negative count from the end); throws on out-of-range or repeats. */
export function normalizeAxes(axes: readonly number[], rank: number, op: string): number[] {
  const out = axes.map((a) => (a < 0 ? a + rank : a));
  for (let i = 0; i < out.length; i++) {
    const a = out[i];
    if (!Number.isInteger(a) || a < 0 || a >= Math.max(rank, 1) || out.indexOf(a) !== i) {
      throw new SwitchyardError('INVALID_ARGUMENT', `${op}: axis ${axes[i]} is out of range or repeated for rank ${rank}`);
    }
  }
  return out.sort((a, b) => a - b);
}

/** Offsets of every index of `sizes` (odometer order) given per-axis `strides`. */
function offsetsOf(sizes: readonly number[], strides: readonly number[]): Int32Array {
  const n = elementCount(sizes);
  const out = new Int32Array(n);
  const counter = new Array<number>(sizes.length).fill(0);
  let cur = 0;
  for (let i = 0; i < n; i++) {
    out[i] = cur;
    for (let a = sizes.length - 1; a >= 0; a--) {
      counter[a]++;
      cur += strides[a];
      if (counter[a] < sizes[a]) break;
      cur -= strides[a] * sizes[a];
      counter[a] = 0;
    }
  }
  return out;
}

export function reducePlan(dims: readonly number[], axes: readonly number[], keepdims: boolean): ReducePlan {
  const rank = dims.length;
  const strides = new Array<number>(rank);
  for (let a = rank - 1, s = 1; a >= 0; a--) {
    strides[a] = s;
    s *= dims[a];
  }
  const reduced = new Set(axes);
  const keptAxes = [...Array(rank).keys()].filter((a) => !reduced.has(a));
  const base = offsetsOf(
    keptAxes.map((a) => dims[a]),
    keptAxes.map((a) => strides[a]),
  );
  const rel = offsetsOf(
    axes.map((a) => dims[a]),
    axes.map((a) => strides[a]),
  );
  const contiguous = axes.every((a, i) => a === rank - axes.length + i);
  const outDims = keepdims ? dims.map((d, a) => (reduced.has(a) ? 1 : d)) : keptAxes.map((a) => dims[a]);
  return { dims: outDims, outSize: base.length, count: rel.length, base, rel, contiguous };
}

/** One reduction, as expressions over `acc`, `x`, `n` (the count) and `m` (per-output auxiliary value). */
export interface ReduceExprs {
  init: string;
  step: string;
  final?: string;
}

export interface ReduceSpec extends ReduceExprs {
  opType: string;
  types: readonly DataType[];
  /** BigInt form for int64/uint64 beyond 2^53. */
  big?: ReduceExprs;
  /** Form for bool data (ReduceMax/ReduceMin, opset 20), whose empty result differs from the numeric one. */
  bool?: ReduceExprs;
  /** A first pass whose per-output result is `m` in the main pass (LogSumExp's max). */
  prepass?: ReduceExprs;
}

type ReduceLoop = (x: unknown, out: unknown, plan: ReducePlan, aux: Float64Array | undefined) => void;

const loops = new Map<string, ReduceLoop>();

function reduceLoop(e: ReduceExprs, lane: string): ReduceLoop {
  const key = `${lane}|${e.init}|${e.step}|${e.final ?? ''}`;
  let fn = loops.get(key);
  if (!fn) {
    const final = e.final ?? 'acc';
    const body = `
const base = plan.base, rel = plan.rel, n = plan.count, outSize = plan.outSize;
for (let o = 0; o < outSize; o++) {
  const b = base[o];
  const m = aux === undefined ? 0 : aux[o];
  let acc = ${e.init};
  if (plan.contiguous) { for (let r = 0; r < n; r++) { const x = data[b + r]; acc = ${e.step}; } }
  else { for (let r = 0; r < n; r++) { const x = data[b + rel[r]]; acc = ${e.step}; } }
  out[o] = ${final};
}`;
    fn = new Function('erf', `return function (data, out, plan, aux) {${body}\n};`)(erf) as ReduceLoop;
    loops.set(key, fn);
  }
  return fn;
}

/** Reduces `x` into `out` (whose size is plan.outSize) per `spec`. */
export function reduceInto(spec: ReduceSpec, x: Tensor, out: Tensor, plan: ReducePlan): void {
  if (plan.outSize === 0) return;
  if (x.type === 'int64' || x.type === 'uint64') {
    const exact = int64ToNumbers(x.data as BigInt64Array);
    if (exact) {
      const tmp = reduceNumbers(spec, exact, plan, 'f64');
      if (allSafeIntegers(tmp)) return numbersToInt64(tmp, out.data as BigInt64Array);
    }
    if (!spec.big) throw new SwitchyardError('UNSUPPORTED', `${spec.opType}: int64 values beyond 2^53 are not supported`);
    reduceLoop(spec.big, x.type)(x.data, out.data, plan, undefined);
    return;
  }
  if (x.type === 'float32' || x.type === 'float64') {
    const aux = spec.prepass ? reduceNumbers({ ...spec.prepass, opType: spec.opType, types: spec.types }, x.data as Float32Array, plan, x.type) : undefined;
    reduceLoop(spec, x.type)(x.data, out.data, plan, aux);
    return;
  }
  if (x.type === 'bool' && spec.bool) {
    writeNumbers(out, reduceNumbers({ ...spec, ...spec.bool, prepass: undefined }, x.data as Uint8Array, plan, 'bool'));
    return;
  }
  writeNumbers(out, reduceNumbers(spec, toNumbers(x), plan, 'num'));
}

function reduceNumbers(spec: ReduceSpec, data: ArrayLike<number>, plan: ReducePlan, lane: string): Float64Array {
  const aux = spec.prepass ? reduceNumbers({ ...spec.prepass, opType: spec.opType, types: spec.types }, data, plan, lane) : undefined;
  const tmp = new Float64Array(plan.outSize);
  reduceLoop(spec, lane)(data, tmp, plan, aux);
  return tmp;
}

/** Reads the axes: the `axes` attribute (older opsets) or the optional int64 input 1 (ReduceSum 13+, all 18+). */
export function readAxes(init: KernelInit, axesInput: Tensor | undefined): number[] {
  if (init.attrs.has('axes')) return init.attrs.ints('axes');
  if (!axesInput) return [];
  if (axesInput.type !== 'int64' && axesInput.type !== 'int32') {
    throw new SwitchyardError('INVALID_ARGUMENT', `${init.node.opType}: axes must be int64, got ${axesInput.type}`);
  }
  return Array.from(toNumbers(axesInput));
}

/** `create` for a Reduce* op. */
export function reduceKernel(spec: ReduceSpec): (init: KernelInit) => Kernel {
  return (init) => {
    const keepdims = init.attrs.int('keepdims', 1) !== 0;
    const noopWithEmptyAxes = init.attrs.int('noop_with_empty_axes', 0) !== 0;
    return {
      run(ctx) {
        const x = ctx.input(0);
        if (!spec.types.includes(x.type)) {
          throw new SwitchyardError('UNSUPPORTED', `${spec.opType}: element type '${x.type}' is not supported`);
        }
        let axes = readAxes(init, ctx.optionalInput(1));
        if (axes.length === 0) {
          if (noopWithEmptyAxes) {
            const out = ctx.output(0, x.type, x.dims);
            (out.data as Uint8Array).set(x.data as Uint8Array);
            return [out];
          }
          axes = [...x.dims.keys()];
        }
        const plan = reducePlan(x.dims, normalizeAxes(axes, x.dims.length, spec.opType), keepdims);
        const out = ctx.output(0, x.type, plan.dims);
        reduceInto(spec, x, out, plan);
        return [out];
      },
    };
  };
}

export const REDUCE_TYPES: readonly DataType[] = NUMERIC;
