/**
 * Specialised elementwise loops, compiled once per (expression, loop shape).
 *
 * Why generate code: a shared loop that calls a per-op callback runs 5–7× slower in V8 than a
 * hand-written loop, because the one call site sees every op and goes megamorphic (measured: 16 ms vs
 * 2.5 ms for a 1M-element float32 add). A loop built with `new Function` around the op's expression
 * is its own function with its own type feedback, and runs within ~20% of hand-written code.
 *
 * Only expressions written in this package's op files reach `new Function`; nothing from a model does.
 * Expressions use `x` (and `y` for binary ops), the op's named parameters, and the helpers below.
 */
import { erf, floorMod, floorModBig, gelu, geluTanh, intPow, intPowBig, roundHalfEven, sigmoid, softplus } from './special.js';

/** Functions generated expressions may call by name. */
const HELPERS = { erf, floorMod, floorModBig, gelu, geluTanh, intPow, intPowBig, roundHalfEven, sigmoid, softplus };
const HELPER_PRELUDE = Object.keys(HELPERS)
  .map((name) => `const ${name} = H.${name};`)
  .join('\n');

// Element containers are typed arrays, or a BigInt64Array for the BigInt path; kept loose on purpose.
type Elements = any;

/** Values of an expression's named parameters: numbers, or BigInts for the int64 BigInt path. */
export type Param = number | bigint;

/** `out[i] = f(a[i])` for i < n. */
export type UnaryLoop = (a: Elements, out: Elements, n: number, params: readonly Param[]) => void;

/** `out[r*inner + j] = f(a[aOff[r] + j*sa], b[bOff[r] + j*sb])`, the shape of a `BroadcastPlan`. */
export type BinaryLoop = (
  a: Elements,
  b: Elements,
  out: Elements,
  outer: number,
  inner: number,
  aOff: Int32Array,
  bOff: Int32Array,
  sa: number,
  sb: number,
  params: readonly Param[],
) => void;

/** How a computed value is stored: as is, or as a 0/1 byte for boolean results. */
export type StoreKind = 'value' | 'bool';

const cache = new Map<string, unknown>();

function paramPrelude(names: readonly string[]): string {
  return names.map((n, i) => `const ${n} = P[${i}];`).join('\n');
}

function store(expr: string, kind: StoreKind): string {
  return kind === 'bool' ? `((${expr}) ? 1 : 0)` : `(${expr})`;
}

function compile<T>(key: string, body: string, args: string[]): T {
  let fn = cache.get(key) as T | undefined;
  if (!fn) {
    // The outer function binds helpers once; the inner one is the loop V8 optimises.
    fn = new Function('H', `${HELPER_PRELUDE}\nreturn function (${args.join(', ')}) {\n${body}\n};`)(HELPERS) as T;
    cache.set(key, fn);
  }
  return fn;
}

/**
 * A unary loop for `expr` (in `x`). `lane` only separates the cache entries of different element
 * containers, so each compiled loop stays monomorphic.
 */
export function unaryLoop(expr: string, kind: StoreKind, lane: string, params: readonly string[] = []): UnaryLoop {
  // Looked up before the body is built: kernels ask for their loop on every run.
  const key = `u|${lane}|${kind}|${params.join(',')}|${expr}`;
  const hit = cache.get(key) as UnaryLoop | undefined;
  if (hit) return hit;
  const body = `${paramPrelude(params)}
for (let i = 0; i < n; i++) { const x = a[i]; out[i] = ${store(expr, kind)}; }`;
  return compile<UnaryLoop>(key, body, ['a', 'out', 'n', 'P']);
}

/** A broadcasting binary loop for `expr` (in `x`, `y`), with fast paths for stride patterns. */
export function binaryLoop(expr: string, kind: StoreKind, lane: string, params: readonly string[] = []): BinaryLoop {
  const key = `b|${lane}|${kind}|${params.join(',')}|${expr}`;
  const hit = cache.get(key) as BinaryLoop | undefined;
  if (hit) return hit;
  const s = store(expr, kind);
  const body = `${paramPrelude(params)}
let k = 0;
for (let r = 0; r < outer; r++) {
  const ia = aOff[r], ib = bOff[r];
  if (sa === 1 && sb === 1) {
    for (let j = 0; j < inner; j++) { const x = a[ia + j], y = b[ib + j]; out[k++] = ${s}; }
  } else if (sb === 0 && sa === 1) {
    const y = b[ib];
    for (let j = 0; j < inner; j++) { const x = a[ia + j]; out[k++] = ${s}; }
  } else if (sa === 0 && sb === 1) {
    const x = a[ia];
    for (let j = 0; j < inner; j++) { const y = b[ib + j]; out[k++] = ${s}; }
  } else {
    for (let j = 0; j < inner; j++) { const x = a[ia + j * sa], y = b[ib + j * sb]; out[k++] = ${s}; }
  }
}`;
  return compile<BinaryLoop>(key, body, [
    'a',
    'b',
    'out',
    'outer',
    'inner',
    'aOff',
    'bOff',
    'sa',
    'sb',
    'P',
  ]);
}
