/**
 * One valid call of every export of `switchyard_hip.node` (binding.ts, binding-runtime.ts and the plan
 * exports ep-rocm declares) and of the test addon's `kernelsJs.run`, from which hostile-args.calls.ts derives the hostile ones. A valid call may
 * need a GPU (or a vendor library seam): without one it must fail with a coded error instead (the GPU
 * runtime's status, or INVALID_ARGUMENT for a zero-byte stand-in buffer that is too small), never crash.
 * The table is typed by the binding's keys, so an export declared without a case fails `pnpm typecheck`;
 * the worker also fails on an export the addon has and the table lacks.
 */
import type { ArgumentCallOptions } from '@switchyard/native-toolkit/testing';
import type { DeviceBuffer, NativeHipBinding } from './binding.js';
import type { NativeHipTestBinding } from './load-test-addon.js';

/** What a valid call needs beyond the addon: a device, and for the seams their vendor library. */
export type Need = 'nothing' | 'device' | 'blas' | 'dnn';

/** What the cases build their arguments from. */
export interface HipContext {
  /** The test addon: every export of switchyard_hip.node, and kernelsJs. */
  binding: NativeHipTestBinding & Record<string, unknown>;
  hasDevice: boolean;
  /** A DeviceBuffer of `bytes` on device 0; without a device a zero-byte one (constructible anywhere, too small for any use). */
  buffer(bytes: number): DeviceBuffer;
  /** Two recorded, finished Events on device 0; without a device, objects of another class in their place. */
  recordedEvents(): [object, object];
}

export interface FunctionCase {
  kind: 'function';
  needs: Need;
  args: (ctx: HipContext) => unknown[];
  /** How the arguments may differ from `args` and still be valid (optional ones, any-length arrays). */
  accepts?: ArgumentCallOptions;
}

export interface MethodCase {
  needs: Need;
  args: (ctx: HipContext) => unknown[];
  accepts?: ArgumentCallOptions;
  /** The valid call may also throw a coded error where what it needs is there (poll() with no run begun). */
  mayThrow?: boolean;
}

export interface ClassCase {
  kind: 'class';
  /** Constructing needs a device (DeviceBuffer's zero-byte form does not). */
  needs: Need;
  ctorArgs: (ctx: HipContext) => unknown[];
  ctorAccepts?: ArgumentCallOptions;
  methods: Record<string, MethodCase>;
  statics?: Record<string, MethodCase>;
  /** The method that frees the object; methods after it throw RELEASED. */
  release?: string;
  /** Methods that stay callable after `release` (free() itself, idempotent). */
  afterRelease?: readonly string[];
}

export type ExportCase = FunctionCase | ClassCase;

/** Exports of the addon's plan part, declared by ep-rocm (plan/native-plan.ts) rather than binding.ts. */
type PlanExports = 'ExecutionPlan' | 'planStepOps' | 'planDeviceMemory' | 'planSplitTf32' | 'nativeEnums';
/** Nested exports, named by their path, and the Stream class (made by getStream, also exported). */
type OtherExports = 'testing.FakeArena' | 'kernelsJs.run' | 'Stream';
export type ExportName = Exclude<keyof NativeHipBinding, 'testing'> | PlanExports | OtherExports;

const f32 = (n: number) => Float32Array.from({ length: n }, (_, i) => ((i * 7) % 5) / 4 - 0.5);
const tensor = (dims: number[]) => ({ data: f32(dims.reduce((a, b) => a * b, 1)), dims, dtype: 'float32' });
/** ONNX TensorProto.FLOAT, the plan's float32 type code. */
const PLAN_FLOAT32 = 1;

const gemm = (ctx: HipContext) => ({ a: ctx.buffer(24), b: ctx.buffer(24), c: ctx.buffer(16), m: 2, n: 2, k: 3, transA: false, transB: false, alpha: 1, beta: 0, dtype: 'float32' });

const conv = (ctx: HipContext) => ({
  x: ctx.buffer(64),
  w: ctx.buffer(36),
  b: ctx.buffer(4),
  y: ctx.buffer(16),
  dtype: 'float32',
  inputShape: [1, 1, 4, 4],
  outputChannels: 1,
  kernelShape: [3, 3],
  pads: [0, 0, 0, 0],
  strides: [1, 1],
  dilations: [1, 1],
  group: 1,
  activation: 'none',
  algoSearch: 'heuristic',
  cacheDir: '-',
});

const planDescription = () => ({
  deviceId: 0,
  arenaBytes: 256,
  captureGraph: false,
  tuning: 0,
  buffers: [
    { offset: 0, bytes: 16, dtype: PLAN_FLOAT32, dims: [4] },
    { offset: 128, bytes: 16, dtype: PLAN_FLOAT32, dims: [4] },
  ],
  inputs: [0],
  outputs: [1],
  constants: [],
  steps: [{ op: 'Relu', attrs: [], inputs: [0], outputs: [1] }],
});

export const EXPORT_CASES: { [K in ExportName]: ExportCase } = {
  deviceCount: { kind: 'function', needs: 'nothing', args: () => [] },
  deviceProperties: { kind: 'function', needs: 'device', args: () => [0] },
  runtimeInfo: { kind: 'function', needs: 'nothing', args: () => [] },
  elementwise: { kind: 'function', needs: 'device', args: (ctx) => ['Add', ctx.buffer(16), ctx.buffer(16), ctx.buffer(16), 4] },
  defaultArenaStats: { kind: 'function', needs: 'nothing', args: () => [0] },
  getStream: { kind: 'function', needs: 'device', args: () => [0] },
  stagingBuffersCached: { kind: 'function', needs: 'nothing', args: () => [0] },
  idlePlanStreams: { kind: 'function', needs: 'nothing', args: () => [0] },
  libraryHandleBytes: { kind: 'function', needs: 'nothing', args: () => [0] },
  blasInfo: { kind: 'function', needs: 'nothing', args: () => [] },
  blasGemm: { kind: 'function', needs: 'blas', args: (ctx) => [gemm(ctx)] },
  blasPreparedGemm: { kind: 'function', needs: 'blas', args: (ctx) => [{ ...gemm(ctx), bias: ctx.buffer(8), cacheDir: '-' }] },
  dnnInfo: { kind: 'function', needs: 'nothing', args: () => [] },
  dnnConv2d: { kind: 'function', needs: 'dnn', args: (ctx) => [{ ...conv(ctx), residual: null }] },
  dnnConvTranspose2d: {
    kind: 'function',
    needs: 'dnn',
    args: (ctx) => [{ ...conv(ctx), x: ctx.buffer(16), y: ctx.buffer(64), inputShape: [1, 1, 2, 2], outputPadding: [0, 0], activation: undefined }],
  },
  dnnPool2d: {
    kind: 'function',
    needs: 'dnn',
    args: (ctx) => [{ x: ctx.buffer(64), y: ctx.buffer(16), dtype: 'float32', mode: 'max', countIncludePad: false, inputShape: [1, 1, 4, 4], kernelShape: [2, 2], pads: [0, 0, 0, 0], strides: [2, 2] }],
  },
  dnnBatchNorm: {
    kind: 'function',
    needs: 'dnn',
    args: (ctx) => [{ x: ctx.buffer(32), y: ctx.buffer(32), scale: ctx.buffer(8), bias: ctx.buffer(8), mean: ctx.buffer(8), var: ctx.buffer(8), dtype: 'float32', n: 1, c: 2, spatial: 4, epsilon: 1e-5 }],
  },
  dnnAlgoCacheStats: { kind: 'function', needs: 'nothing', args: () => ['conv'], accepts: { optional: [0] } },
  planStepOps: { kind: 'function', needs: 'nothing', args: () => [] },
  nativeEnums: { kind: 'function', needs: 'nothing', args: () => [] },
  planDeviceMemory: { kind: 'function', needs: 'device', args: () => [0] },
  planSplitTf32: { kind: 'function', needs: 'nothing', args: () => [f32(5)], accepts: { anyLength: [0] } },
  'kernelsJs.run': {
    kind: 'function',
    needs: 'device',
    args: () => ['binary', { inputs: [tensor([2, 3]), tensor([3])], outputs: [{ dims: [2, 3], dtype: 'float32' }], attrs: { op: 'Add' }, device: 0 }],
  },
  DeviceBuffer: {
    kind: 'class',
    needs: 'nothing',
    ctorArgs: (ctx) => [0, ctx.hasDevice ? 16 : 0],
    methods: {
      // Any TypedArray or DataView whose bytes fit at the offset is valid: on a GPU, shorter views and other
      // element types return normally, longer ones throw.
      upload: { needs: 'device', args: () => [f32(4), 0], accepts: { optional: [1], lenient: [0] } },
      download: { needs: 'device', args: () => [new Float32Array(4), 0], accepts: { optional: [1], lenient: [0] } },
      uploadAsync: { needs: 'device', args: () => [f32(4), 0], accepts: { optional: [1], lenient: [0] } },
      downloadAsync: { needs: 'device', args: () => [new Float32Array(4), 0], accepts: { optional: [1], lenient: [0] } },
      free: { needs: 'nothing', args: () => [] },
    },
    release: 'free',
    afterRelease: ['free'],
  },
  DeviceArena: {
    kind: 'class',
    needs: 'device',
    ctorArgs: () => [0, { gpuMemLimit: 0, arenaExtendStrategy: 'nextPowerOfTwo', initialChunkBytes: 1 << 20 }],
    ctorAccepts: { optional: [1] },
    methods: {
      allocate: { needs: 'device', args: () => [256] },
      stats: { needs: 'nothing', args: () => [] },
      shrink: { needs: 'nothing', args: () => [] },
    },
  },
  Stream: {
    kind: 'class',
    needs: 'device',
    ctorArgs: () => [0],
    methods: {
      synchronize: { needs: 'device', args: () => [] },
      synchronizeAsync: { needs: 'device', args: () => [] },
      query: { needs: 'device', args: () => [] },
    },
  },
  Event: {
    kind: 'class',
    needs: 'device',
    ctorArgs: () => [0],
    methods: {
      record: { needs: 'device', args: () => [] },
      synchronize: { needs: 'device', args: () => [] },
      query: { needs: 'device', args: () => [] },
    },
    statics: { elapsedMs: { needs: 'device', args: (ctx) => ctx.recordedEvents() } },
  },
  'testing.FakeArena': {
    kind: 'class',
    needs: 'nothing',
    ctorArgs: () => [{ gpuMemLimit: 1 << 20, arenaExtendStrategy: 'sameAsRequested', initialChunkBytes: 4096, deviceCapacity: 1 << 22 }],
    ctorAccepts: { optional: [0] },
    methods: {
      allocate: { needs: 'nothing', args: () => [256] },
      free: { needs: 'nothing', args: () => [4294967296] },
      stats: { needs: 'nothing', args: () => [] },
      shrink: { needs: 'nothing', args: () => [] },
      backingStats: { needs: 'nothing', args: () => [] },
    },
  },
  ExecutionPlan: {
    kind: 'class',
    needs: 'device',
    ctorArgs: () => [planDescription()],
    methods: {
      // Inputs and outputs are host views of the slot's bytes, or DeviceBuffers: validity depends on bytes.
      run: { needs: 'device', args: () => [[f32(4)], [new Float32Array(4)]], accepts: { lenient: [0, 1] } },
      start: { needs: 'device', args: () => [[f32(4)], [new Float32Array(4)]], accepts: { lenient: [0, 1] } },
      poll: { needs: 'device', args: () => [], mayThrow: true },
      dispose: { needs: 'nothing', args: () => [] },
    },
    release: 'dispose',
    afterRelease: ['dispose'],
  },
};

/**
 * More valid specs for kernelsJs.run (one per kernel family it parses on the host before touching a
 * device), each made hostile like an export of its own.
 */
export const KERNEL_RUN_CASES: Record<string, () => unknown[]> = {
  unary: () => ['unary', { inputs: [tensor([2, 3])], outputs: [{ dims: [2, 3], dtype: 'float32' }], attrs: { op: 'Clip', min: 0, max: 1 } }],
  reduce: () => ['reduce', { inputs: [tensor([2, 3, 4])], outputs: [{ dims: [2, 4], dtype: 'float32' }], attrs: { op: 'Sum', axisBegin: 1, axisEnd: 2 } }],
  softmax: () => ['softmax', { inputs: [tensor([2, 3])], outputs: [{ dims: [2, 3], dtype: 'float32' }], attrs: { log: true } }],
  gather: () => [
    'gather',
    { inputs: [tensor([3, 2]), { data: Int32Array.of(2, 0), dims: [2], dtype: 'int32' }], outputs: [{ dims: [2, 2], dtype: 'float32' }], attrs: { axis: 0 } },
  ],
  concat: () => ['concat', { inputs: [tensor([2, 1]), tensor([2, 2])], outputs: [{ dims: [2, 3], dtype: 'float32' }], attrs: { axis: 1 } }],
  slice: () => ['slice', { inputs: [tensor([4, 3])], outputs: [{ dims: [2, 3], dtype: 'float32' }], attrs: { starts: [3, 0], steps: [-2, 1] } }],
  transpose: () => ['transpose', { inputs: [tensor([2, 3, 4])], outputs: [{ dims: [4, 2, 3], dtype: 'float32' }], attrs: { perm: [2, 0, 1] } }],
  expand: () => ['expand', { inputs: [tensor([3, 1])], outputs: [{ dims: [2, 3, 4], dtype: 'float32' }] }],
  pad: () => ['pad', { inputs: [tensor([2, 3])], outputs: [{ dims: [4, 4], dtype: 'float32' }], attrs: { padsBegin: [1, 0], mode: 'reflect' } }],
  where: () => [
    'where',
    { inputs: [{ data: Uint8Array.of(1, 0, 1), dims: [3], dtype: 'bool' }, tensor([2, 3]), tensor([3])], outputs: [{ dims: [2, 3], dtype: 'float32' }] },
  ],
  layerNorm: () => [
    'layerNorm',
    { inputs: [tensor([2, 3]), null, tensor([3]), tensor([3])], outputs: [{ dims: [2, 3], dtype: 'float32' }, null, { dims: [2], dtype: 'float32' }, null], attrs: { epsilon: 1e-5 } },
  ],
};
