/**
 * How far one output is from its reference: max abs and max rel difference, the element that comes
 * closest to (or goes furthest past) the tolerance, and how many elements fail it.
 */
import type { RuntimeValue } from '../registry/kernel-def.js';
import type { DataType } from '../tensor/data-type.js';
import { bfloat16BitsToFloat32, float16BitsToFloat32 } from '../tensor/float16.js';
import { Tensor } from '../tensor/tensor.js';
import { toleranceFor, type Precision, type ValidationTolerance } from './tolerance.js';

export interface WorstElement {
  /** Flat (row-major) index. */
  index: number;
  /** The same element as one index per dim. */
  coords: number[];
  actual: number | string;
  reference: number | string;
}

export interface OutputDifference {
  /** The output's name; `name[i]` for element i of a sequence output. */
  name: string;
  type?: DataType;
  dims?: number[];
  precision: Precision;
  tolerance: ValidationTolerance;
  /** Largest |actual − reference| (Infinity where one side is NaN and the other is not). */
  maxAbs: number;
  /** Largest |actual − reference| / |reference| over elements with |reference| > atol (near-zero references would make it meaningless). */
  maxRel: number;
  /** The element with the largest |actual − reference| / (atol + rtol·|reference|); absent when all are equal. */
  worst?: WorstElement;
  /** Elements beyond the tolerance. */
  mismatches: number;
  elements: number;
  passed: boolean;
  /** Set when the two cannot be compared element by element (type, shape or kind differ). */
  problem?: string;
}

function numbersOf(t: Tensor): ArrayLike<number> | undefined {
  const d = t.data;
  if (t.type === 'float16') return Array.from(d as Uint16Array, float16BitsToFloat32);
  if (t.type === 'bfloat16') return Array.from(d as Uint16Array, bfloat16BitsToFloat32);
  if (t.type === 'int64' || t.type === 'uint64') return Array.from(d as BigInt64Array, Number);
  if (t.type === 'string') return undefined;
  return d as ArrayLike<number>;
}

function coordsOf(index: number, dims: readonly number[]): number[] {
  const coords = new Array<number>(dims.length).fill(0);
  for (let k = dims.length - 1; k >= 0 && dims[k] > 0; k--) {
    coords[k] = index % dims[k];
    index = Math.floor(index / dims[k]);
  }
  return coords;
}

function failed(name: string, precision: Precision, tolerance: ValidationTolerance, problem: string): OutputDifference {
  return { name, precision, tolerance, maxAbs: Infinity, maxRel: Infinity, mismatches: 0, elements: 0, passed: false, problem };
}

/** A caller's tolerance for float outputs, over the one their precision calls for. */
export type ToleranceOverride = Partial<ValidationTolerance>;

const FLOATS: readonly DataType[] = ['float64', 'float32', 'float16', 'bfloat16'];

/** Compares one tensor with its reference at the tolerance its type (and `computed`) calls for. */
export function tensorDifference(name: string, actual: Tensor, reference: Tensor, computed?: Precision, override?: ToleranceOverride): OutputDifference {
  const chosen = toleranceFor(reference.type, computed);
  const precision = chosen.precision;
  const tolerance = override && FLOATS.includes(reference.type) ? { atol: override.atol ?? chosen.tolerance.atol, rtol: override.rtol ?? chosen.tolerance.rtol } : chosen.tolerance;
  const { atol, rtol } = tolerance;
  if (actual.location !== 'cpu' || reference.location !== 'cpu') return failed(name, precision, tolerance, 'a device tensor; compare host outputs');
  if (actual.type !== reference.type) return failed(name, precision, tolerance, `type ${actual.type}, reference ${reference.type}`);
  if (actual.dims.length !== reference.dims.length || actual.dims.some((d, i) => d !== reference.dims[i])) {
    return failed(name, precision, tolerance, `shape [${actual.dims.join(', ')}], reference [${reference.dims.join(', ')}]`);
  }
  const out: OutputDifference = { name, type: reference.type, dims: [...reference.dims], precision, tolerance, maxAbs: 0, maxRel: 0, mismatches: 0, elements: reference.size, passed: true };
  const a = numbersOf(actual);
  const r = numbersOf(reference);
  if (!a || !r) {
    const as = actual.data as string[];
    const rs = reference.data as string[];
    for (let i = 0; i < rs.length; i++) {
      if (as[i] === rs[i]) continue;
      if (out.mismatches++ === 0) out.worst = { index: i, coords: coordsOf(i, reference.dims), actual: as[i], reference: rs[i] };
    }
    out.maxAbs = out.maxRel = out.mismatches ? Infinity : 0;
    out.passed = out.mismatches === 0;
    return out;
  }
  let worstRatio = 0;
  let worstIndex = -1;
  for (let i = 0; i < r.length; i++) {
    const x = a[i];
    const y = r[i];
    if (x === y || (Number.isNaN(x) && Number.isNaN(y))) continue;
    const diff = Number.isNaN(x) || Number.isNaN(y) ? Infinity : Math.abs(x - y);
    const allowed = atol + rtol * Math.abs(y);
    const ratio = allowed > 0 ? diff / allowed : Infinity;
    if (diff > out.maxAbs) out.maxAbs = diff;
    if (Math.abs(y) > atol) {
      const rel = diff / Math.abs(y);
      if (rel > out.maxRel) out.maxRel = rel;
    }
    if (!(diff <= allowed)) out.mismatches++;
    if (worstIndex < 0 || ratio > worstRatio) {
      worstRatio = ratio;
      worstIndex = i;
    }
  }
  if (worstIndex >= 0) out.worst = { index: worstIndex, coords: coordsOf(worstIndex, reference.dims), actual: a[worstIndex], reference: r[worstIndex] };
  out.passed = out.mismatches === 0;
  return out;
}

/** Compares any output value: tensors, sequences (element by element), empty optionals. */
export function valueDifferences(name: string, actual: RuntimeValue | undefined, reference: RuntimeValue, computed?: Precision, override?: ToleranceOverride): OutputDifference[] {
  const { precision, tolerance } = toleranceFor(reference instanceof Tensor ? reference.type : 'float32', computed);
  if (reference === null) {
    return [actual === null ? { name, precision, tolerance, maxAbs: 0, maxRel: 0, mismatches: 0, elements: 0, passed: true } : failed(name, precision, tolerance, 'reference is an empty optional')];
  }
  if (Array.isArray(reference)) {
    if (!Array.isArray(actual)) return [failed(name, precision, tolerance, 'reference is a sequence')];
    if (actual.length !== reference.length) return [failed(name, precision, tolerance, `sequence of ${actual.length}, reference ${reference.length}`)];
    return reference.flatMap((t, i) => tensorDifference(`${name}[${i}]`, actual[i], t, computed, override));
  }
  if (!(actual instanceof Tensor)) return [failed(name, precision, tolerance, 'reference is a tensor')];
  return [tensorDifference(name, actual, reference, computed, override)];
}
