/**
 * The elementwise kernel factory: an op file states its expression(s) and dtypes, and gets a kernel
 * that dispatches on dtype, broadcasts, and picks the numeric path:
 *
 * - float32/float64 and integers up to 32 bits compute straight on the tensor's typed array (typed
 *   array stores give C's truncation and wrap-around for the integer types);
 * - float16/bfloat16 widen to float32, compute, and narrow back;
 * - int64/uint64 compute in doubles when every input and result is exact (|v| < 2^53), and redo the
 *   op with BigInt arithmetic otherwise, so large values stay correct without paying for BigInt always.
 */
import { SwitchyardError, Tensor, type DataType, type Kernel, type KernelInit, type KernelRunContext } from '@switchyard/core';
import { broadcastPlan, broadcastShape, type BroadcastPlan } from './broadcast.js';
import { binaryLoop, unaryLoop, type BinaryLoop, type Param, type StoreKind, type UnaryLoop } from './codegen.js';
import { allSafeIntegers, int64ToNumbers, narrowHalf, numbersToInt64, widenHalf } from './numeric.js';

/** Expressions for one op, per kind of element (see codegen.ts for the variables they may use). */
export interface ElementExprs {
  /** For float types (float16/bfloat16 are computed as float32). */
  float?: string;
  /** For integers up to 32 bits, and int64/uint64 values exact as doubles. Defaults to `float`. */
  int?: string;
  /** For int64/uint64 values computed as exact doubles, when `int` relies on 32-bit tricks. Defaults to `int`. */
  wide?: string;
  /** BigInt expression for int64/uint64 beyond 2^53; without it such inputs are refused. */
  big?: string;
  /** Use the BigInt path for int64/uint64 always (ops whose double form is never exact, e.g. shifts). */
  bigOnly?: boolean;
  /** For bool elements. Defaults to `int`. */
  bool?: string;
}

export interface ElementwiseSpec extends ElementExprs {
  opType: string;
  /** Element types served. */
  types: readonly DataType[];
  /** `bool` for predicates and comparisons; otherwise the output has the input's type. */
  output?: 'same' | 'bool';
  /** Names of numeric parameters the expressions use (e.g. `alpha`). */
  params?: readonly string[];
  /** Reads the parameters' values from the node, in `params` order. */
  readParams?: (init: KernelInit) => Param[];
}

type Lane = 'float' | 'half' | 'int' | 'bool' | 'int64';
/** Which expression a lane uses: int64 values take `wide` when computed as doubles, `big` otherwise. */
type ExprKind = Lane | 'big';

function laneOf(type: DataType): Lane {
  switch (type) {
    case 'float32':
    case 'float64':
      return 'float';
    case 'float16':
    case 'bfloat16':
      return 'half';
    case 'int64':
    case 'uint64':
      return 'int64';
    case 'bool':
      return 'bool';
    default:
      return 'int';
  }
}

function exprFor(spec: ElementExprs, lane: ExprKind, opType: string, type: DataType): string {
  const int = spec.int ?? spec.float;
  let e: string | undefined;
  if (lane === 'float' || lane === 'half') e = spec.float;
  else if (lane === 'bool') e = spec.bool ?? int;
  else if (lane === 'big') e = spec.big;
  else if (lane === 'int64') e = spec.wide ?? int;
  else e = int;
  if (e === undefined) throw new SwitchyardError('UNSUPPORTED', `${opType}: element type '${type}' is not implemented`);
  return e;
}

function checkType(spec: ElementwiseSpec, type: DataType): void {
  if (!spec.types.includes(type)) {
    throw new SwitchyardError('UNSUPPORTED', `${spec.opType}: element type '${type}' is not supported (serves ${spec.types.join(', ')})`);
  }
}

/** Runs a BigInt loop, turning BigInt's RangeError (division by zero) into a clear error. */
function guardBig(opType: string, run: () => void): void {
  try {
    run();
  } catch (e) {
    if (e instanceof RangeError) throw new SwitchyardError('RUNTIME', `${opType}: ${e.message} (integer division by zero?)`, { cause: e });
    throw e;
  }
}

/**
 * The straight-on-the-typed-array loops (the common path) per spec and dtype, resolved once: the
 * codegen cache's string keys cost more to build and hash than a tiny op's arithmetic.
 */
const directUnary = new WeakMap<ElementwiseSpec, Map<DataType, UnaryLoop>>();
const directBinary = new WeakMap<ElementwiseSpec, Map<DataType, BinaryLoop>>();

function directLoop<L>(memo: WeakMap<ElementwiseSpec, Map<DataType, L>>, spec: ElementwiseSpec, type: DataType, build: () => L): L {
  let byType = memo.get(spec);
  if (!byType) memo.set(spec, (byType = new Map()));
  let loop = byType.get(type);
  if (!loop) byType.set(type, (loop = build()));
  return loop;
}

/** Computes `out = f(x)` elementwise; `out` has x's dims and the spec's output type. */
export function computeUnary(spec: ElementwiseSpec, x: Tensor, out: Tensor, params: readonly Param[] = []): void {
  checkType(spec, x.type);
  const n = x.size;
  if (n === 0) return;
  const kind: StoreKind = spec.output === 'bool' ? 'bool' : 'value';
  const names = spec.params ?? [];
  const lane = laneOf(x.type);
  if (lane === 'half') {
    const a = widenHalf(x.type as 'float16' | 'bfloat16', x.data as Uint16Array);
    const loop = unaryLoop(exprFor(spec, lane, spec.opType, x.type), kind, 'f32', names);
    if (kind === 'bool') return loop(a, out.data, n, params);
    const tmp = new Float32Array(n);
    loop(a, tmp, n, params);
    return narrowHalf(x.type as 'float16' | 'bfloat16', tmp, out.data as Uint16Array);
  }
  if (lane === 'int64') {
    const a = spec.bigOnly ? undefined : int64ToNumbers(x.data as BigInt64Array);
    if (a) {
      const loop = unaryLoop(exprFor(spec, lane, spec.opType, x.type), kind, 'f64', names);
      if (kind === 'bool') return loop(a, out.data, n, params);
      const tmp = new Float64Array(n);
      loop(a, tmp, n, params);
      if (allSafeIntegers(tmp)) return numbersToInt64(tmp, out.data as BigInt64Array);
    }
    const big = unaryLoop(exprFor(spec, 'big', spec.opType, x.type), kind, x.type, names);
    return guardBig(spec.opType, () => big(x.data, out.data, n, params));
  }
  directLoop(directUnary, spec, x.type, () => unaryLoop(exprFor(spec, lane, spec.opType, x.type), kind, x.type, names))(x.data, out.data, n, params);
}

/** Computes `out = f(a, b)` with broadcasting; `out` must have the broadcast dims. */
export function computeBinary(
  spec: ElementwiseSpec,
  a: Tensor,
  b: Tensor,
  out: Tensor,
  params: readonly Param[] = [],
  plan: BroadcastPlan = broadcastPlan([a.dims, b.dims], spec.opType),
): void {
  checkType(spec, a.type);
  if (a.type !== b.type) {
    throw new SwitchyardError('INVALID_ARGUMENT', `${spec.opType}: inputs must have one element type, got ${a.type} and ${b.type}`);
  }
  if (plan.size === 0) return;
  const kind: StoreKind = spec.output === 'bool' ? 'bool' : 'value';
  const names = spec.params ?? [];
  const lane = laneOf(a.type);
  const { outer, inner, offsets, innerStrides } = plan;
  const run = (loopLane: string, expr: string, av: unknown, bv: unknown, ov: unknown) =>
    binaryLoop(expr, kind, loopLane, names)(av, bv, ov, outer, inner, offsets[0], offsets[1], innerStrides[0], innerStrides[1], params);

  if (lane === 'half') {
    const t = a.type as 'float16' | 'bfloat16';
    const av = widenHalf(t, a.data as Uint16Array);
    const bv = b === a ? av : widenHalf(t, b.data as Uint16Array);
    const expr = exprFor(spec, lane, spec.opType, a.type);
    if (kind === 'bool') return run('f32', expr, av, bv, out.data);
    const tmp = new Float32Array(plan.size);
    run('f32', expr, av, bv, tmp);
    return narrowHalf(t, tmp, out.data as Uint16Array);
  }
  if (lane === 'int64') {
    const av = spec.bigOnly ? undefined : int64ToNumbers(a.data as BigInt64Array);
    const bv = av && (b === a ? av : int64ToNumbers(b.data as BigInt64Array));
    if (av && bv) {
      const expr = exprFor(spec, lane, spec.opType, a.type);
      if (kind === 'bool') return run('f64', expr, av, bv, out.data);
      const tmp = new Float64Array(plan.size);
      run('f64', expr, av, bv, tmp);
      if (allSafeIntegers(tmp)) return numbersToInt64(tmp, out.data as BigInt64Array);
    }
    const expr = exprFor(spec, 'big', spec.opType, a.type);
    return guardBig(spec.opType, () => run(a.type, expr, a.data, b.data, out.data));
  }
  const loop = directLoop(directBinary, spec, a.type, () => binaryLoop(exprFor(spec, lane, spec.opType, a.type), kind, a.type, names));
  loop(a.data, b.data, out.data, outer, inner, offsets[0], offsets[1], innerStrides[0], innerStrides[1], params);
}

function outputType(spec: ElementwiseSpec, input: DataType): DataType {
  return spec.output === 'bool' ? 'bool' : input;
}

/** computeUnary/computeBinary store every output element, so arena memory needs no zeroing first. */
const WRITES_ALL = { uninitialized: true } as const;

/** `create` for a unary elementwise op. */
export function unaryKernel(spec: ElementwiseSpec): (init: KernelInit) => Kernel {
  return (init) => {
    const params = spec.readParams?.(init) ?? [];
    return {
      run(ctx: KernelRunContext) {
        const x = ctx.input(0);
        const out = ctx.output(0, outputType(spec, x.type), x.dims, WRITES_ALL);
        computeUnary(spec, x, out, params);
        return [out];
      },
    };
  };
}

/**
 * Before opset 7, binary ops broadcast only B onto A, and only with `broadcast=1`; `axis` says where
 * B's dims line up in A. Padding B with trailing ones expresses that as numpy broadcasting.
 */
function legacyShapeOfB(init: KernelInit, a: Tensor, b: Tensor): readonly number[] {
  if (init.opset >= 7 || init.attrs.int('broadcast', 0) === 0 || !init.attrs.has('axis')) return b.dims;
  return legacyDimsOfB(init.node.opType, init.attrs.int('axis'), a.dims, b.dims);
}

/** B's dims padded with trailing ones so that numpy broadcasting places B at `axis` of A (pre-opset-7 `broadcast=1`). */
export function legacyDimsOfB(opType: string, axisAttr: number, aDims: readonly number[], bDims: readonly number[]): number[] {
  const axis = axisAttr < 0 ? axisAttr + aDims.length : axisAttr;
  const trailing = aDims.length - axis - bDims.length;
  if (axis < 0 || trailing < 0) {
    throw new SwitchyardError('INVALID_SHAPE', `${opType}: axis ${axis} does not place B [${bDims.join(', ')}] inside A [${aDims.join(', ')}]`);
  }
  return [...bDims, ...new Array<number>(trailing).fill(1)];
}

/** `create` for a binary elementwise op with numpy broadcasting. */
export function binaryKernel(spec: ElementwiseSpec): (init: KernelInit) => Kernel {
  return (init) => {
    const params = spec.readParams?.(init) ?? [];
    // Legacy (pre-opset-7) broadcasting is decided by attributes: settled here, not per run.
    const legacy = init.opset < 7 && init.attrs.int('broadcast', 0) !== 0 && init.attrs.has('axis');
    // The last shapes seen and their plan. Tensor dims are frozen arrays, often the very same ones
    // run after run (a constant's, the previous node's output), so identity settles most lookups
    // without hashing; immutable, so sharing it between concurrent runs is safe.
    let lastA: readonly number[] | undefined;
    let lastB: readonly number[] | undefined;
    let lastPlan: BroadcastPlan | undefined;
    return {
      run(ctx: KernelRunContext) {
        const a = ctx.input(0);
        let b = ctx.input(1);
        if (legacy) {
          const bDims = legacyShapeOfB(init, a, b);
          if (bDims !== b.dims) b = b.reshape(bDims);
        }
        let plan = lastPlan;
        if (!plan || a.dims !== lastA || b.dims !== lastB) {
          // The (cached) plan carries the broadcast shape; computeBinary loops over it.
          plan = broadcastPlan([a.dims, b.dims], spec.opType);
          [lastA, lastB, lastPlan] = [a.dims, b.dims, plan];
        }
        const out = ctx.output(0, outputType(spec, a.type), plan.dims, WRITES_ALL);
        computeBinary(spec, a, b, out, params, plan);
        return [out];
      },
    };
  };
}

/**
 * `create` for the variadic ops (Max, Min, Sum, Mean): a left fold of the binary op, with the last
 * step written straight into the output. `finish` post-processes the result (Mean divides).
 */
export function variadicKernel(spec: ElementwiseSpec, finish?: (out: Tensor, count: number) => void): (init: KernelInit) => Kernel {
  return () => ({
    run(ctx: KernelRunContext) {
      const inputs: Tensor[] = [];
      for (let i = 0; i < ctx.node.inputs.length; i++) inputs.push(ctx.input(i));
      if (inputs.length === 0) throw new SwitchyardError('INVALID_MODEL', `${spec.opType}: needs at least one input`);
      const first = inputs[0];
      checkType(spec, first.type);
      const dims = broadcastShape(
        inputs.map((t) => t.dims),
        spec.opType,
      );
      const out = ctx.output(0, first.type, dims);
      if (inputs.length === 1) {
        copyInto(first, out);
      } else {
        let acc = first;
        for (let i = 1; i < inputs.length; i++) {
          const last = i === inputs.length - 1;
          const target = last ? out : Tensor.zeros(first.type, broadcastShape([acc.dims, inputs[i].dims], spec.opType));
          computeBinary(spec, acc, inputs[i], target);
          acc = target;
        }
      }
      finish?.(out, inputs.length);
      return [out];
    },
  });
}

/** Copies `src` into `dst` of the same type, broadcasting `src` when its shape is smaller. */
function copyInto(src: Tensor, dst: Tensor): void {
  if (src.size === dst.size) {
    (dst.data as { set(a: ArrayLike<unknown>): void }).set(src.data as ArrayLike<unknown>);
    return;
  }
  const plan = broadcastPlan([dst.dims, src.dims]);
  const s = src.data as ArrayLike<unknown>;
  const d = dst.data as unknown[];
  let k = 0;
  for (let r = 0; r < plan.outer; r++) {
    const base = plan.offsets[1][r];
    for (let j = 0; j < plan.inner; j++) d[k++] = s[base + j * plan.innerStrides[1]];
  }
}
