/**
 * The runtime half of `switchyard_hip.node`'s shape: device arena, streams, events, async copies,
 * and the BLAS/DNN seams' test entries. `binding.ts` folds these into `NativeHipBinding`.
 * [sync] methods block the JS thread; [async] ones return a Promise settled from a worker thread.
 */
import type { DeviceBuffer } from './binding.js';

export type ArenaExtendStrategy = 'nextPowerOfTwo' | 'sameAsRequested';

/** Options of a DeviceArena, named like ORT's ROCm/CUDA EP options. */
export interface DeviceArenaOptions {
  /** Bytes the arena may reserve from the driver in all; 0 (default) = no limit. */
  gpuMemLimit?: number;
  /** 'nextPowerOfTwo' (default): chunks start at `initialChunkBytes` and double; 'sameAsRequested': each chunk fits one request. */
  arenaExtendStrategy?: ArenaExtendStrategy;
  /** First chunk size for 'nextPowerOfTwo'; default 1 MiB. */
  initialChunkBytes?: number;
}

export interface DeviceArenaStats {
  /** Bytes in live allocations (each rounded up to 256). */
  inUse: number;
  /** Bytes held from the driver (cached + in use). */
  reserved: number;
  /** Highest `inUse` seen. */
  peak: number;
  allocations: number;
  frees: number;
  chunks: number;
  /** Biggest cached block: what one allocation can get without growing. */
  largestFree: number;
}

/**
 * A caching allocator for one device. `allocate()` throws an Error with `code: 'OUT_OF_MEMORY'`
 * (plus `requestedBytes`, `limitBytes`, `reason: 'limit' | 'device'`) and stays usable afterwards.
 */
export interface DeviceArena {
  readonly deviceId: number;
  readonly gpuMemLimit: number;
  /** [sync] A block of the arena; `free()` (or GC) returns it to the cache, not to the driver. */
  allocate(byteLength: number): DeviceBuffer;
  stats(): DeviceArenaStats;
  /** [sync] Releases chunks with no live allocation to the driver; returns the bytes released. */
  shrink(): number;
}

export interface DeviceArenaConstructor {
  new (deviceId: number, options?: DeviceArenaOptions): DeviceArena;
}

/** The device's one stream (all copies, GEMMs and DNN calls of this addon are queued on it). */
export interface Stream {
  readonly deviceId: number;
  /** [sync] Waits for all queued work. */
  synchronize(): void;
  /** [async] Waits on a worker thread. */
  synchronizeAsync(): Promise<void>;
  /** [sync] True when all queued work has finished. */
  query(): boolean;
}

export interface Event {
  /** [sync] Marks the current end of the device's stream. */
  record(): void;
  /** [sync] Waits for the work before `record()`. */
  synchronize(): void;
  /** [sync] True when the work before `record()` has finished. */
  query(): boolean;
}

export interface EventConstructor {
  new (deviceId: number): Event;
  /** Milliseconds between two recorded, completed events. */
  elapsedMs(start: Event, end: Event): number;
}

/** The test hook over the arena's bookkeeping (arena_core.h) with a pretend driver: no GPU needed. */
export interface FakeArena {
  /** Returns a fake address (a number); throws like DeviceArena.allocate. */
  allocate(byteLength: number): number;
  /** False when `address` is not a live allocation. */
  free(address: number): boolean;
  stats(): DeviceArenaStats;
  shrink(): number;
  /** What the pretend driver saw. */
  backingStats(): { reserves: number; releases: number; liveBytes: number; liveChunks: number };
}

export interface FakeArenaConstructor {
  /** `deviceCapacity`: the pretend driver's memory (0 = unlimited); beyond it it reports out of memory. */
  new (options?: DeviceArenaOptions & { deviceCapacity?: number }): FakeArena;
}

/** Whether a vendor library seam works in this build, and if not, why ("built without <…> headers"). */
export interface SeamInfo {
  available: boolean;
  /** 'cuBLAS' | 'rocBLAS' | 'cuDNN' | 'none'. */
  backend: string;
  reason?: string;
}

export type GemmDataType = 'float32' | 'float16';

/** Row-major C[m,n] = alpha·op(A)·op(B) + beta·C; float16 accumulates in float32. */
export interface BlasGemmOptions {
  a: DeviceBuffer;
  b: DeviceBuffer;
  c: DeviceBuffer;
  m: number;
  n: number;
  k: number;
  transA?: boolean;
  transB?: boolean;
  alpha?: number;
  beta?: number;
  dtype?: GemmDataType;
  /** Leading dimensions in elements; default packed. */
  lda?: number;
  ldb?: number;
  ldc?: number;
  /** > 1: strided-batched; strides in elements (0 broadcasts one matrix). */
  batch?: number;
  strideA?: number;
  strideB?: number;
  strideC?: number;
}

export interface BlasPreparedGemmOptions extends BlasGemmOptions {
  /** n values added to every row of C (needs batch 1 and beta 0), as a plan's MatMulBias. */
  bias?: DeviceBuffer;
  /** Algorithm cache folder for the GEMM choice; default as the convolution cache's; '-' = memory only. */
  cacheDir?: string;
}

export interface BlasPreparedGemmResult {
  /** What was chosen ("cublasLt algo … over cublasGemmEx …"; " (cached)" when read from the cache file). */
  choice: string;
  biasFused: boolean;
}

/** 'convform': the Conv steps' chosen forms (library call or im2col + GEMM). */
export type AlgoCacheKind = 'conv' | 'gemm' | 'convform';

export type ConvAlgoSearch = 'exhaustive' | 'heuristic' | 'default';

export interface DnnConvOptions {
  x: DeviceBuffer;
  /** Conv: [k, c/group, kh, kw]; ConvTranspose: [c, k/group, kh, kw]. */
  w: DeviceBuffer;
  /** [k], optional. */
  b?: DeviceBuffer | null;
  /** Added before the activation; same shape as the output (Conv only). May be `y` itself. */
  residual?: DeviceBuffer | null;
  y: DeviceBuffer;
  dtype?: GemmDataType;
  inputShape: [number, number, number, number];
  outputChannels: number;
  kernelShape: [number, number];
  /** [top, left, bottom, right] (ONNX order); cuDNN needs top == bottom and left == right. */
  pads?: [number, number, number, number];
  strides?: [number, number];
  dilations?: [number, number];
  group?: number;
  /** ConvTranspose only. */
  outputPadding?: [number, number];
  /** Conv only. */
  activation?: 'relu' | 'none';
  /** Default 'heuristic'. */
  algoSearch?: ConvAlgoSearch;
  /** Algorithm cache folder; default ~/.cache/switchyard/conv-algos (or SWITCHYARD_CONV_ALGO_CACHE); '-' = memory only. */
  cacheDir?: string;
}

export interface DnnPoolOptions {
  x: DeviceBuffer;
  y: DeviceBuffer;
  dtype?: GemmDataType;
  mode: 'max' | 'average';
  countIncludePad?: boolean;
  inputShape: [number, number, number, number];
  kernelShape: [number, number];
  pads?: [number, number, number, number];
  strides?: [number, number];
}

export interface DnnBatchNormOptions {
  x: DeviceBuffer;
  y: DeviceBuffer;
  /** float32 [c] each, for both data types. */
  scale: DeviceBuffer;
  bias: DeviceBuffer;
  mean: DeviceBuffer;
  var: DeviceBuffer;
  dtype?: GemmDataType;
  n: number;
  c: number;
  /** Product of the spatial dimensions. */
  spatial: number;
  /** Default 1e-5 (cuDNN's minimum). */
  epsilon?: number;
}

export interface AlgoCacheStats {
  searches: number;
  memoryHits: number;
  diskHits: number;
  /** The cache file last read or written ('' when none). */
  file: string;
}

/** Errors these entries throw carry `code`: 'BLAS_UNAVAILABLE' | 'DNN_UNAVAILABLE' | 'DNN_UNSUPPORTED' | 'DNN_ERROR' | a GPU status name. */
export interface NativeHipRuntimeBinding {
  DeviceArena: DeviceArenaConstructor;
  Event: EventConstructor;
  /** [sync] The device's stream (created on first use). */
  getStream(deviceId: number): Stream;
  /**
   * The stats of the device's default arena, which holds the BLAS/DNN libraries' workspaces (absent
   * in older builds). Touches no device.
   */
  defaultArenaStats?(deviceId: number): DeviceArenaStats;
  /** Pinned staging buffers cached for reuse by async copies. */
  stagingBuffersCached(deviceId: number): number;
  /** Streams of disposed execution plans kept (with their library handles) for the next plan; at most 2 per device. */
  idlePlanStreams(deviceId: number): number;
  /** Device memory the last cuDNN/MIOpen (`dnn`) and cuBLAS (`blas`) handle made on the device kept of its own; 0 before one was made. */
  libraryHandleBytes(deviceId: number): { dnn: number; blas: number; created: number };
  testing: { FakeArena: FakeArenaConstructor };
  blasInfo(): SeamInfo;
  /** [sync] Test entry: queues the GEMM and waits for it. */
  blasGemm(options: BlasGemmOptions): void;
  /** [sync] Test entry of the plans' GEMM path: prepare (algorithm search or cached choice), run, wait. */
  blasPreparedGemm(options: BlasPreparedGemmOptions): BlasPreparedGemmResult;
  dnnInfo(): SeamInfo & { version: number };
  /** [sync] Returns the output shape [n, k, oh, ow]; waits for the GPU. */
  dnnConv2d(options: DnnConvOptions): number[];
  dnnConvTranspose2d(options: DnnConvOptions): number[];
  dnnPool2d(options: DnnPoolOptions): number[];
  dnnBatchNorm(options: DnnBatchNormOptions): void;
  /** The algorithm cache's counters: convolutions (default) or cublasLt GEMM choices. */
  dnnAlgoCacheStats(kind?: AlgoCacheKind): AlgoCacheStats;
}
