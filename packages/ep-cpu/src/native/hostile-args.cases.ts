/**
 * One valid call of every export in `binding.ts`, from which hostile-args.worker.ts derives the hostile
 * ones (missing, mistyped, too short or too long, negative or huge, released, another class's object).
 * The table is typed by `keyof NativeBinding`, so an export declared without a case fails `pnpm typecheck`;
 * the worker also fails on an export the addon has and the table lacks.
 */
import type { NativeBinding } from './binding.js';

/** A function export: its arguments for one valid call (fresh buffers each time). */
export interface FunctionCase {
  kind: 'function';
  args: (binding: NativeBinding) => unknown[];
  /** Arguments that may be longer than the call reads (copyStrided's source: the view reads part of it). */
  mayBeLonger?: readonly number[];
}

/** A class export: valid constructor options and valid run arguments for an object built from them. */
export interface ClassCase {
  kind: 'class';
  options: () => Record<string, unknown>;
  run: () => unknown[];
  /** Static methods taking the constructor's options (ConvPrimitive.algorithm). */
  statics?: readonly string[];
}

export type ExportCase = FunctionCase | ClassCase;

const f32 = (n: number) => Float32Array.from({ length: n }, (_, i) => ((i * 7) % 5) / 4 - 0.5);
const u8 = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 37) % 251);
const i32 = (n: number) => new Int32Array(n);

const lstmOptions = () => ({ seq: 2, batch: 1, input: 3, hidden: 2 });
const int8ConvOptions = () => ({ inputDims: [1, 2, 3, 3], weightDims: [2, 2, 2, 2], weights: u8(16) });
const int8MatMulOptions = () => ({ aDims: [2, 3], bDims: [3, 4], weights: u8(12) });
const quantizedAddArgs = () => [u8(4), Float32Array.of(0.5), Uint8Array.of(3), u8(4), Float32Array.of(0.25), Uint8Array.of(1), Float32Array.of(1), Uint8Array.of(2), new Uint8Array(4), false, 1];

export const EXPORT_CASES: { [K in keyof Required<NativeBinding>]: ExportCase } = {
  ConvPrimitive: {
    kind: 'class',
    options: () => ({ inputDims: [1, 2, 4, 4], weightDims: [3, 2, 3, 3], hasBias: true }),
    run: () => [f32(32), f32(54), f32(3), f32(12)],
    statics: ['algorithm'],
  },
  ConvDwPrimitive: {
    kind: 'class',
    options: () => ({ inputDims: [1, 2, 4, 4], channels: 3, stride: 1, weights: f32(6), dwWeights: f32(27) }),
    run: () => [f32(32), f32(48)],
  },
  MatMulPrimitive: { kind: 'class', options: () => ({ aDims: [2, 3], bDims: [3, 4] }), run: () => [f32(6), f32(12), f32(8)] },
  GemmPrimitive: { kind: 'class', options: () => ({ aDims: [2, 3], bDims: [3, 4], cDims: [4] }), run: () => [f32(6), f32(12), f32(4), f32(8)] },
  PoolPrimitive: {
    kind: 'class',
    options: () => ({ inputDims: [1, 2, 4, 4], kind: 'max', kernel: [2, 2], strides: [2, 2] }),
    run: () => [f32(32), f32(8)],
  },
  StridedMatMulPrimitive: { kind: 'class', options: () => ({ aDims: [2, 3], bDims: [3, 4] }), run: () => [f32(6), f32(12), null, f32(8)] },
  ReorderPrimitive: { kind: 'class', options: () => ({ dims: [1, 8, 2, 2], fromBlock: 0, toBlock: 8 }), run: () => [f32(32), f32(32)] },
  ConvTransposePrimitive: {
    kind: 'class',
    options: () => ({ inputDims: [1, 2, 3, 3], weightDims: [2, 3, 2, 2] }),
    run: () => [f32(18), f32(24), null, f32(48)],
  },
  ResizePrimitive: {
    kind: 'class',
    options: () => ({ inputDims: [1, 1, 2, 2], outputDims: [1, 1, 4, 4], scales: [1, 1, 2, 2], mode: 'linear' }),
    run: () => [f32(4), f32(16)],
  },
  ElementwisePrimitive: {
    kind: 'class',
    options: () => ({ inputs: [{ dims: [2, 3] }, { dims: [3] }], program: [{ op: 'add', args: [0, 1] }] }),
    run: () => [[f32(6), f32(3)], f32(6)],
  },
  ConvIntegerPrimitive: { kind: 'class', options: int8ConvOptions, run: () => [u8(18), null, i32(8)] },
  QLinearConvPrimitive: {
    kind: 'class',
    options: int8ConvOptions,
    run: () => [u8(18), Uint8Array.of(3), i32(2), Float32Array.of(0.01, 0.02), Uint8Array.of(5), new Uint8Array(8)],
  },
  DynamicQuantizedConvPrimitive: { kind: 'class', options: int8ConvOptions, run: () => [f32(18), Float32Array.of(0.1, 0.2), null, f32(8)] },
  MatMulIntegerPrimitive: { kind: 'class', options: int8MatMulOptions, run: () => [u8(6), null, i32(8)] },
  QLinearMatMulPrimitive: {
    kind: 'class',
    options: int8MatMulOptions,
    run: () => [u8(6), Uint8Array.of(3), null, f32(4), Uint8Array.of(5), new Uint8Array(8)],
  },
  DynamicQuantizedMatMulPrimitive: { kind: 'class', options: int8MatMulOptions, run: () => [f32(6), f32(4), null, f32(8)] },
  lstmForward: {
    kind: 'function',
    args: () => [lstmOptions(), f32(6), f32(24), f32(16), f32(16), f32(2), f32(2), f32(4), f32(2), f32(2)],
  },
  gruForward: {
    kind: 'function',
    args: () => [{ seq: 2, batch: 1, input: 3, hidden: 2 }, f32(6), f32(18), f32(12), f32(12), f32(2), f32(4), f32(2)],
  },
  rnnForward: {
    kind: 'function',
    args: () => [{ seq: 2, batch: 1, input: 3, hidden: 2, activation: 'relu' }, f32(6), f32(6), f32(4), f32(4), f32(2), f32(4), f32(2)],
  },
  lstmPack: { kind: 'function', args: () => [lstmOptions(), f32(24), f32(16), f32(16)] },
  lstmForwardPacked: {
    kind: 'function',
    args: (b) => [lstmOptions(), f32(6), b.lstmPack!(lstmOptions(), f32(24), f32(16), f32(16)), f32(2), f32(2), f32(4), f32(2), f32(2)],
  },
  geluErf: { kind: 'function', args: () => [f32(6), f32(6), 1] },
  layerNormRows: { kind: 'function', args: () => [f32(6), f32(3), f32(3), f32(6), 2, 3, 1e-5, 1] },
  rmsNormRows: { kind: 'function', args: () => [f32(6), f32(3), f32(6), 2, 3, 1e-6, 1] },
  skipLayerNormRows: { kind: 'function', args: () => [f32(6), f32(6), f32(3), f32(3), f32(6), f32(6), 2, 3, 1e-5, 1] },
  copyStrided: { kind: 'function', args: () => [f32(6), 0, [1, 3], [3, 2], f32(6), 1], mayBeLonger: [0] },
  concat: { kind: 'function', args: () => [[f32(2), f32(4)], f32(6), 1, [2, 4], 1] },
  split: { kind: 'function', args: () => [f32(6), [f32(2), f32(4)], 1, [2, 4], 1] },
  gather: { kind: 'function', args: () => [f32(6), Int32Array.of(2, 0), f32(4), 1, 3, 2, 1] },
  gatherElements: { kind: 'function', args: () => [f32(6), [2, 3], Int32Array.of(0, 2, 1, 1), [2, 2], 1, f32(4), 1] },
  trilu: { kind: 'function', args: () => [f32(12), f32(12), 2, 3, -1, true, 1] },
  scatterElements: { kind: 'function', args: () => [f32(6), [2, 3], Int32Array.of(0, 2, 1, 1), [2, 2], f32(4), 1, 'add', f32(6), 1] },
  pad: { kind: 'function', args: () => [f32(6), [2, 3], f32(20), [1, 1, 1, 1], 'constant', null, 1] },
  cast: { kind: 'function', args: () => [f32(4), 'float32', i32(4), 'int32', 1] },
  reduce: { kind: 'function', args: () => [f32(6), [2, 3], [1], 'sum', f32(2), 1] },
  nonZeroCount: { kind: 'function', args: () => [f32(6), 'float32', [2, 3]] },
  nonZeroFill: { kind: 'function', args: () => [f32(6), 'float32', [2, 3], new BigInt64Array(2 * 5)] },
  topK: { kind: 'function', args: () => [f32(6), 2, 3, 1, 2, true, f32(4), new BigInt64Array(4), 1] },
  argReduce: { kind: 'function', args: () => [f32(6), 2, 3, 1, true, false, new BigInt64Array(2), 1] },
  softmax: { kind: 'function', args: () => [f32(6), f32(6), 2, 3, 1, 'softmax', 1] },
  normalizeGroups: { kind: 'function', args: () => [f32(6), f32(6), 2, 3, 1e-5, f32(3), f32(3), 1, 1, f32(2), f32(2), 1] },
  batchNorm: { kind: 'function', args: () => [f32(12), f32(12), 2, 3, 2, f32(3), f32(3), f32(3), Float32Array.of(1, 2, 3), 1e-5, 1] },
  lpNormalize: { kind: 'function', args: () => [f32(6), f32(6), 2, 3, 1, 2, 1] },
  meanVariance: { kind: 'function', args: () => [f32(24), f32(24), [2, 3, 4], [0, 2], 1] },
  lrn: { kind: 'function', args: () => [f32(24), f32(24), 2, 3, 4, 3, 1e-4, 0.75, 1, 1] },
  gridSample: { kind: 'function', args: () => [f32(24), f32(12), f32(12), 1, 2, 3, 4, 2, 3, 0, 0, false, 1] },
  nmsSelect: { kind: 'function', args: () => [Float64Array.of(0, 0, 1, 1, 0, 0, 1, 1), Float64Array.of(1, 1), Int32Array.of(1, 0), Int32Array.of(0, 2), 2, 1, 2, 0.5, new Int32Array(2), new Int32Array(1)] },
  roiAlign: { kind: 'function', args: () => [f32(24), Float32Array.of(0, 0, 2, 1, 1, 0, 3, 2), Int32Array.of(0, 0), f32(16), 1, 2, 3, 4, 2, 2, 2, 1, false, true, 1] },
  vectorIsa: { kind: 'function', args: () => [] },
  preferredChannelBlock: { kind: 'function', args: () => [] },
  elementwiseOps: { kind: 'function', args: () => [] },
  dynamicQuantizeLinear: { kind: 'function', args: () => [f32(4), new Uint8Array(4), new Float32Array(1), new Uint8Array(1), 1] },
  dynamicQuantizeLinearAsync: { kind: 'function', args: () => [f32(4), new Uint8Array(4), new Float32Array(1), new Uint8Array(1), 1] },
  quantizeLinear: { kind: 'function', args: () => [f32(6), Float32Array.of(0.1, 0.2, 0.3), Uint8Array.of(1, 2, 3), new Uint8Array(6), 3, 2, 1] },
  quantizeLinearAsync: { kind: 'function', args: () => [f32(6), Float32Array.of(0.1, 0.2, 0.3), Uint8Array.of(1, 2, 3), new Uint8Array(6), 3, 2, 1] },
  dequantizeLinear: { kind: 'function', args: () => [u8(6), Float32Array.of(0.1, 0.2, 0.3), Uint8Array.of(1, 2, 3), f32(6), 3, 2, 1] },
  dequantizeLinearAsync: { kind: 'function', args: () => [u8(6), Float32Array.of(0.1, 0.2, 0.3), Uint8Array.of(1, 2, 3), f32(6), 3, 2, 1] },
  quantizedAdd: { kind: 'function', args: quantizedAddArgs },
  quantizedAddAsync: { kind: 'function', args: quantizedAddArgs },
  runtimeInfo: { kind: 'function', args: () => [] },
  hostBuffer: { kind: 'function', args: () => [65_536, true] },
  hostBufferStats: { kind: 'function', args: () => [] },
  releaseHostBuffer: { kind: 'function', args: () => [new ArrayBuffer(16)] },
  trimHostBuffers: { kind: 'function', args: () => [] },
};
