/**
 * The shape of `switchyard_cpu.node` (packages/ep-cpu/native): the only place the TS side states what
 * the addon exports. Every method says whether it blocks the calling thread ([sync]) or runs on the
 * libuv pool and returns a Promise ([async]). All tensors cross as dense row-major Float32Arrays;
 * the addon writes outputs into the caller's buffer (no copy back).
 *
 * Argument errors (wrong dtype, length, missing buffer) throw synchronously, also from [async]
 * methods, as Node's own APIs do; failures during execution reject the Promise.
 * Errors thrown or rejected by the addon are `Error`/`TypeError` objects with a `code` that is one of
 * core's `ErrorCode`s: 'INVALID_ARGUMENT' (wrong dtype, length, option), 'UNSUPPORTED' (oneDNN has no
 * implementation for this configuration), 'OUT_OF_MEMORY', 'RELEASED' (used after dispose), 'RUNTIME'.
 */

/** Options of `new ConvPrimitive(...)`: ONNX Conv semantics, with shapes fixed at construction. */
export interface ConvPrimitiveOptions {
  /** X: [N, C, ...spatial], spatial rank 1–3. */
  inputDims: readonly number[];
  /** W: [M, C / group, ...kernel]. */
  weightDims: readonly number[];
  /** Default 1. */
  group?: number;
  /** One per spatial axis; default all 1. */
  strides?: readonly number[];
  /** ONNX counting (1 = dense; the addon converts to oneDNN's gap count); default all 1. */
  dilations?: readonly number[];
  /** Explicit pads per spatial axis (auto_pad resolved by the caller); default 0. */
  padsBegin?: readonly number[];
  padsEnd?: readonly number[];
  /** Whether the convolution adds a bias of M elements. Default false. */
  hasBias?: boolean;
  /** Fuses max(0, y) into the convolution (Conv+Relu). Default false. */
  fuseRelu?: boolean;
  /** OpenMP team size for this primitive, at creation and every run; 0 or absent = OpenMP's default. */
  threads?: number;
  /** Constant weights, packed now into oneDNN's preferred layout; then `run` takes `w = null`. */
  weights?: Float32Array;
  /** Constant bias (needs `hasBias`); then `run` takes `b = null`. */
  bias?: Float32Array;
}

export interface ConvPrimitive {
  /** [async] Convolves `x` into `y`; buffers stay referenced until the Promise settles. */
  run(x: Float32Array, w: Float32Array | null, b: Float32Array | null, y: Float32Array): Promise<void>;
  /** [sync] Same, on the calling thread: for convolutions too small to be worth a thread hop. */
  runSync(x: Float32Array, w: Float32Array | null, b: Float32Array | null, y: Float32Array): void;
  /** [sync] Frees the primitive and packed weights (after in-flight runs finish). */
  dispose(): void;
  /** [sync] [N, M, ...outSpatial]. */
  readonly outputDims: number[];
  /** [sync] oneDNN's implementation name, e.g. `jit:avx2`, `gemm:jit`. */
  readonly implementation: string;
  /** [sync] The OpenMP team size the primitive was built for (the default resolved). */
  readonly threads: number;
  /** [sync] Whether weights were packed at construction. */
  readonly weightsPacked: boolean;
}

/** Options of `new MatMulPrimitive(...)`: ONNX MatMul for operands of rank >= 2 (batch dims broadcast). */
export interface MatMulPrimitiveOptions {
  aDims: readonly number[];
  bDims: readonly number[];
  /** Fuses max(0, y). Default false. */
  fuseRelu?: boolean;
  /** As for Conv. */
  threads?: number;
  /** Constant B, packed now; then `run` takes `b = null`. */
  b?: Float32Array;
}

export interface MatMulPrimitive {
  /** [async] y = a × b (batched, broadcast); buffers stay referenced until the Promise settles. */
  run(a: Float32Array, b: Float32Array | null, y: Float32Array): Promise<void>;
  /** [sync] Same, on the calling thread. */
  runSync(a: Float32Array, b: Float32Array | null, y: Float32Array): void;
  /** [sync] Frees the primitive and packed B (after in-flight runs finish). */
  dispose(): void;
  /** [sync] [...broadcast batch, M, N]. */
  readonly outputDims: number[];
  /** [sync] */
  readonly implementation: string;
  /** [sync] */
  readonly threads: number;
  /** [sync] Whether B was packed at construction. */
  readonly weightsPacked: boolean;
}

/** [sync] What the loaded library is. */
export interface NativeRuntimeInfo {
  /** e.g. '2.6.3'. */
  onednnVersion: string;
  /** oneDNN's CPU threading runtime: Debian's build is 'omp' (libgomp). */
  threadingRuntime: 'omp' | 'tbb' | 'seq' | 'threadpool' | 'unknown';
  /** OpenMP's default team size (OMP_NUM_THREADS or the core count). */
  defaultThreads: number;
  /** The instruction set oneDNN dispatches to, e.g. 'avx2'. */
  cpuIsa: string;
}

/** The addon's exports. */
export interface NativeBinding {
  /** [sync] constructor: builds the primitive (and packs constant weights); throws a coded Error. */
  ConvPrimitive: new (options: ConvPrimitiveOptions) => ConvPrimitive;
  /** [sync] constructor. */
  MatMulPrimitive: new (options: MatMulPrimitiveOptions) => MatMulPrimitive;
  /** [sync] */
  runtimeInfo(): NativeRuntimeInfo;
}

/** Checks that a loaded module has the binding's exports (a stale build may not). */
export function isNativeBinding(value: unknown): value is NativeBinding {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.ConvPrimitive === 'function' && typeof v.MatMulPrimitive === 'function' && typeof v.runtimeInfo === 'function';
}
