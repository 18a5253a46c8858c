/**
 * Dtype-agnostic element access for data-movement kernels: one element type covers every
 * TypedArray and string[], so copies and gathers need no per-dtype code.
 */
import {
  ALL_DATA_TYPES,
  isSmallFloatType,
  isSubByteIntType,
  SwitchyardError,
  Tensor,
  allocateData,
  elementCount,
  type DataType,
  type Kernel,
  type KernelInit,
  type KernelRunContext,
  type TensorData,
  bfloat16BitsToFloat32,
  float16BitsToFloat32,
  float32ToBfloat16Bits,
  float32ToFloat16Bits,
} from '@switchyard/core';

/** Read/write view of any tensor's elements (numbers, bigints or strings by dtype). */
export type Elements = { [index: number]: number | bigint | string; readonly length: number };

/** The float8/float4 codes and 4-/2-bit integers: one byte per element, but not numbers a kernel may compute on. */
const CODED_TYPES: readonly DataType[] = ALL_DATA_TYPES.filter((t) => isSmallFloatType(t) || isSubByteIntType(t));

/**
 * Every dtype the data-movement kernels serve: all but complex (which needs two slots per element) and
 * the coded narrow types, whose values (zero, one, order, sums) are not their bytes' values.
 */
export const TENSOR_TYPES: readonly DataType[] = ALL_DATA_TYPES.filter((t) => t !== 'complex64' && t !== 'complex128' && !CODED_TYPES.includes(t));

/** TENSOR_TYPES plus the coded narrow types: for kernels that only move or reinterpret elements, never read their values. */
export const LAYOUT_TYPES: readonly DataType[] = [...TENSOR_TYPES, ...CODED_TYPES];

export const INDEX_TYPES: readonly DataType[] = ['int32', 'int64'];

export const NUMERIC_TYPES: readonly DataType[] = TENSOR_TYPES.filter((t) => t !== 'string' && t !== 'bool');

type NumericData = Exclude<TensorData, string[]>;

/** Rejects complex tensors, which these kernels cannot move element by element. */
export function checkMovable(t: Tensor, op: string): void {
  if (t.type === 'complex64' || t.type === 'complex128') {
    throw new SwitchyardError('UNSUPPORTED', `${op}: ${t.type} tensors are not supported by the CPU data-movement kernels`);
  }
}

/**
 * Allocates output `i`. Numeric outputs come from the run's planner via `ctx.output`; strings are plain
 * arrays the planner does not manage. The size is checked first so a bad shape never allocates.
 */
export function allocOutput<T extends DataType>(ctx: KernelRunContext, i: number, type: T, dims: readonly number[]): Tensor<T> {
  elementCount(dims, `${ctx.node.opType} output ${i}`);
  // Strings too: the context enforces the session's maxTensorBytes (a string counts as 8 bytes), so
  // Tile or Expand of a string tensor cannot ask V8 for a billion-element array.
  return ctx.output(i, type, dims);
}

/** A tensor outside the planner's arena (for values kept inside sequences, whose lifetime the planner does not see). */
export function cloneTensor<T extends DataType>(t: Tensor<T>): Tensor<T> {
  const d = t.data;
  const copy = (Array.isArray(d) ? d.slice() : (d as NumericData).slice()) as typeof d;
  return new Tensor(t.type, copy, t.dims);
}

/** Copies `n` consecutive elements; TypedArray.set when the run is long enough to pay for the view. */
export function copyRun(src: Elements, srcOffset: number, dst: Elements, dstOffset: number, n: number): void {
  if (n >= 16 && !Array.isArray(src)) {
    // Same dtype on both sides (callers guarantee it), so the narrowing only picks `set`'s signature.
    (dst as Float32Array).set((src as Float32Array).subarray(srcOffset, srcOffset + n), dstOffset);
    return;
  }
  for (let j = 0; j < n; j++) dst[dstOffset + j] = src[srcOffset + j];
}

/** Fills `n` elements with one value. */
export function fillRun(dst: Elements, offset: number, n: number, value: number | bigint | string): void {
  for (let j = 0; j < n; j++) dst[offset + j] = value;
}

/**
 * What a kernel that only gives its input other dims declares (`Kernel.inPlace`): the memory planner may
 * then put the output in the input's arena slot, and copyToOutput finds nothing to move. Without it a
 * Reshape copied its whole input (GroupNorm's Reshape → InstanceNormalization → Reshape on a [1, 256, L]
 * audio feature map: 0.27 ms for the second Reshape, 4 µs in place). Floating-point inputs only: integer
 * ones are shape arithmetic (Gather → Unsqueeze → Concat), tiny, and a value a later kernel may overwrite
 * in place can no longer be memoized per input shape (core's shape memo), which is what saves them.
 */
export function sameElementsInPlace(init: KernelInit): Kernel['inPlace'] {
  const t = init.inputTypes[0];
  return t?.kind === 'tensor' && FLOAT_TYPES.has(t.elemType) ? { input: 0, output: 0 } : undefined;
}

const FLOAT_TYPES: ReadonlySet<DataType> = new Set(['float32', 'float16', 'float64', 'bfloat16']);

/** Whether two typed arrays are views of the same memory (an output given its input's slot). */
function sameMemory(a: Elements, b: Elements): boolean {
  return !Array.isArray(a) && !Array.isArray(b) && (a as NumericData).buffer === (b as NumericData).buffer && (a as NumericData).byteOffset === (b as NumericData).byteOffset;
}

/**
 * Copies a whole tensor's elements into an output allocated with other dims (Reshape, Squeeze, Flatten, …);
 * nothing moves when the planner gave the output the input's memory (sameElementsInPlace).
 */
export function copyToOutput<T extends DataType>(ctx: KernelRunContext, i: number, input: Tensor<T>, dims: readonly number[]): Tensor<T> {
  checkMovable(input, ctx.node.opType);
  elementCount(dims, `${ctx.node.opType} output ${i}`);
  // Every element is written below (or already there): no zeroing, which in place would wipe the input.
  const out = ctx.output(i, input.type, dims, { uninitialized: true });
  if (out.size !== input.size) {
    throw new SwitchyardError('INVALID_SHAPE', `${ctx.node.opType}: cannot give [${input.dims.join(', ')}] the shape [${dims.join(', ')}]`);
  }
  if (!sameMemory(input.data, out.data)) copyRun(input.data, 0, out.data, 0, input.size);
  return out;
}

/** The zero of a dtype, as its array stores it. */
export function zeroOf(type: DataType): number | bigint | string {
  if (type === 'string') return '';
  return type === 'int64' || type === 'uint64' ? 0n : 0;
}

/** A JS number as `type` stores it (float16 bits, bigint for 64-bit ints, 0/1 for bool). */
export function storageValue(type: DataType, v: number): number | bigint | string {
  switch (type) {
    case 'float16':
      return float32ToFloat16Bits(v);
    case 'bfloat16':
      return float32ToBfloat16Bits(v);
    case 'int64':
    case 'uint64':
      return BigInt(Math.trunc(v));
    case 'bool':
      return v ? 1 : 0;
    case 'string':
      return String(v);
    default:
      return v;
  }
}

/** An element as a JS number (float16/bfloat16 decoded, bigints converted). */
export function numberValue(type: DataType, v: number | bigint | string): number {
  if (type === 'float16') return float16BitsToFloat32(v as number);
  if (type === 'bfloat16') return bfloat16BitsToFloat32(v as number);
  return Number(v);
}
