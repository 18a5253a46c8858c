/**
 * Arithmetic on possibly-symbolic shapes: broadcasting, products, axis normalisation, and merging a
 * declared type with an inferred one. A `Dim` is a number, a symbol (`'N'`) or unknown (`undefined`).
 */
import type { Dim, ValueType } from '../ir/graph.js';

/** Whether every dimension of `shape` is a known number. */
export function isStaticShape(shape: readonly Dim[] | undefined): shape is number[] {
  return shape !== undefined && shape.every((d) => typeof d === 'number');
}

/** `axis` in [-rank, rank) mapped to [0, rank); undefined when out of range or rank unknown. */
export function normalizeAxis(axis: number, rank: number | undefined): number | undefined {
  if (rank === undefined) return undefined;
  const a = axis < 0 ? axis + rank : axis;
  return Number.isInteger(a) && a >= 0 && a < rank ? a : undefined;
}

/** Normalises every axis; undefined when any is out of range or repeated. */
export function normalizeAxes(axes: readonly number[], rank: number | undefined): number[] | undefined {
  const out: number[] = [];
  for (const axis of axes) {
    const a = normalizeAxis(axis, rank);
    if (a === undefined || out.includes(a)) return undefined;
    out.push(a);
  }
  return out;
}

/**
 * The broadcast of dims that share one position. A 1 yields to anything; a known size > 1 (or 0)
 * wins over unknowns and symbols (they must be 1 or equal to it); equal symbols stay; two different
 * symbols give unknown, since either could be 1 at run time.
 */
export function broadcastDim(dims: readonly Dim[]): Dim {
  let num: number | undefined;
  let sym: string | undefined;
  let symConflict = false;
  let unknown = false;
  for (const d of dims) {
    if (d === 1) continue;
    if (typeof d === 'number') {
      if (num !== undefined && num !== d) return undefined; // incompatible: leave it to the runtime error
      num = d;
    } else if (typeof d === 'string') {
      if (sym !== undefined && sym !== d) symConflict = true;
      sym = d;
    } else {
      unknown = true;
    }
  }
  if (num !== undefined) return num;
  if (symConflict) return undefined;
  if (sym !== undefined) return sym;
  return unknown ? undefined : 1;
}

/** Multidirectional (numpy) broadcasting of several shapes; undefined when any rank is unknown. */
export function broadcastShapes(shapes: readonly (readonly Dim[] | undefined)[]): Dim[] | undefined {
  if (shapes.some((s) => s === undefined)) return undefined;
  const known = shapes as readonly (readonly Dim[])[];
  const rank = Math.max(0, ...known.map((s) => s.length));
  const out: Dim[] = [];
  for (let i = 0; i < rank; i++) {
    const column = known.map((s) => {
      const k = s.length - rank + i;
      return k < 0 ? 1 : s[k]; // missing leading dims act as 1; an unknown dim stays unknown
    });
    out.push(broadcastDim(column));
  }
  return out;
}

/** Product of dims: a number when all are known, the lone symbol when the rest are 1, else unknown. */
export function dimProduct(dims: readonly Dim[]): Dim {
  let num = 1;
  let sym: string | undefined;
  for (const d of dims) {
    if (typeof d === 'number') num *= d;
    else if (typeof d === 'string' && sym === undefined) sym = d;
    else return undefined;
  }
  if (sym === undefined) return num;
  if (num === 0) return 0;
  return num === 1 ? sym : undefined;
}

/** Applies `f` to a dim when it is a known number, otherwise unknown. */
export function mapDim(d: Dim, f: (n: number) => number): Dim {
  return typeof d === 'number' ? f(d) : undefined;
}

/** The more specific of two dims that must be equal (concat's non-axis dims, If branches that agree). */
export function unifyDim(a: Dim, b: Dim): Dim {
  if (typeof a === 'number') return a;
  if (typeof b === 'number') return b;
  return a ?? b;
}

/** Common part of two shapes that may differ (If branches, loop-carried values): equal dims stay. */
export function commonShape(a: readonly Dim[] | undefined, b: readonly Dim[] | undefined): Dim[] | undefined {
  if (!a || !b || a.length !== b.length) return undefined;
  return a.map((d, i) => (d === b[i] ? d : undefined));
}

/** The common type of two values that may each take either (If outputs, sequence elements). */
export function commonType(a: ValueType | undefined, b: ValueType | undefined): ValueType | undefined {
  if (!a || !b) return a ?? b;
  if (a.kind === 'tensor' && b.kind === 'tensor') {
    if (a.elemType !== b.elemType) return undefined;
    const shape = commonShape(a.shape, b.shape);
    return shape ? { kind: 'tensor', elemType: a.elemType, shape } : { kind: 'tensor', elemType: a.elemType };
  }
  if ((a.kind === 'sequence' && b.kind === 'sequence') || (a.kind === 'optional' && b.kind === 'optional')) {
    return { kind: a.kind, elem: commonType(a.elem, b.elem) };
  }
  return a.kind === b.kind ? a : undefined;
}

/**
 * Merges a type the model declared with the one inference found: per dim the more specific wins
 * (number > symbol > unknown). Where both are specific and disagree the declaration is kept and
 * `onConflict` hears about it, since a declaration is the model author's statement.
 */
export function mergeTypes(
  declared: ValueType | undefined,
  inferred: ValueType | undefined,
  onConflict?: (message: string) => void,
): ValueType | undefined {
  if (!declared || declared.kind === 'unknown') return inferred ?? declared;
  if (!inferred || inferred.kind === 'unknown') return declared;
  if (declared.kind === 'tensor' && inferred.kind === 'tensor') {
    if (declared.elemType !== inferred.elemType) {
      onConflict?.(`declared element type ${declared.elemType}, inferred ${inferred.elemType}`);
    }
    const shape = mergeShapes(declared.shape, inferred.shape, onConflict);
    return shape ? { kind: 'tensor', elemType: declared.elemType, shape } : { kind: 'tensor', elemType: declared.elemType };
  }
  if ((declared.kind === 'sequence' && inferred.kind === 'sequence') || (declared.kind === 'optional' && inferred.kind === 'optional')) {
    return { kind: declared.kind, elem: mergeTypes(declared.elem, inferred.elem, onConflict) };
  }
  if (declared.kind !== inferred.kind) onConflict?.(`declared a ${declared.kind}, inferred a ${inferred.kind}`);
  return declared;
}

function mergeShapes(
  declared: readonly Dim[] | undefined,
  inferred: readonly Dim[] | undefined,
  onConflict?: (message: string) => void,
): Dim[] | undefined {
  if (!declared) return inferred ? [...inferred] : undefined;
  if (!inferred) return [...declared];
  if (declared.length !== inferred.length) {
    onConflict?.(`declared rank ${declared.length}, inferred rank ${inferred.length}`);
    return [...declared];
  }
  return declared.map((d, i) => {
    const n = inferred[i];
    if (typeof d === 'number') {
      if (typeof n === 'number' && n !== d) onConflict?.(`declared dim ${i} = ${d}, inferred ${n}`);
      return d;
    }
    if (typeof n === 'number') return n;
    return d ?? n;
  });
}

/** `[a, b, ?]` for messages. */
export function formatShape(shape: readonly Dim[] | undefined): string {
  return shape ? `[${shape.map((d) => (d === undefined ? '?' : String(d))).join(', ')}]` : '(unknown rank)';
}
