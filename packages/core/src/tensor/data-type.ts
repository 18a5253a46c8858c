/**
 * ONNX element types, their names as onnxruntime-node spells them, and the TypedArray that holds each.
 */

/** Element type names, as onnxruntime-node's `Tensor.Type`. */
export type DataType =
  | 'float32'
  | 'float16'
  | 'bfloat16'
  | 'float64'
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'bool'
  | 'string'
  | 'complex64'
  | 'complex128'
  | 'float8e4m3fn'
  | 'float8e4m3fnuz'
  | 'float8e5m2'
  | 'float8e5m2fnuz'
  | 'float8e8m0'
  | 'float4e2m1'
  | 'uint4'
  | 'int4'
  | 'uint2'
  | 'int2';

/** The array type that holds a tensor's elements for each data type. */
export interface DataTypeMap {
  float32: Float32Array;
  /** IEEE half floats as raw bits. */
  float16: Uint16Array;
  /** bfloat16 as raw bits (the upper half of a float32). */
  bfloat16: Uint16Array;
  float64: Float64Array;
  int8: Int8Array;
  int16: Int16Array;
  int32: Int32Array;
  int64: BigInt64Array;
  uint8: Uint8Array;
  uint16: Uint16Array;
  uint32: Uint32Array;
  uint64: BigUint64Array;
  /** One byte per element, 0 or 1. */
  bool: Uint8Array;
  string: string[];
  /** Interleaved real, imaginary. */
  complex64: Float32Array;
  complex128: Float64Array;
  /**
   * The 8-bit float formats, one code (the format's bit pattern) per element; see small-floats.ts
   * for their values. ONNX's 4-bit and 2-bit types are packed in files but unpacked in memory, one
   * element per byte, so every kernel can index them like any other typed array.
   */
  float8e4m3fn: Uint8Array;
  float8e4m3fnuz: Uint8Array;
  float8e5m2: Uint8Array;
  float8e5m2fnuz: Uint8Array;
  /** Exponent-only scale (2^(code − 127)), one code per element. */
  float8e8m0: Uint8Array;
  /** One 4-bit code (0..15) per byte. */
  float4e2m1: Uint8Array;
  /** One value 0..15 per byte. */
  uint4: Uint8Array;
  /** One value −8..7 per byte. */
  int4: Int8Array;
  /** One value 0..3 per byte. */
  uint2: Uint8Array;
  /** One value −2..1 per byte. */
  int2: Int8Array;
}

export type TensorData = DataTypeMap[DataType];
export type NumericDataType = Exclude<DataType, 'string'>;

/** ONNX `TensorProto.DataType` numbers. */
export const ONNX_DATA_TYPE: Readonly<Record<DataType, number>> = {
  float32: 1,
  uint8: 2,
  int8: 3,
  uint16: 4,
  int16: 5,
  int32: 6,
  int64: 7,
  string: 8,
  bool: 9,
  float16: 10,
  float64: 11,
  uint32: 12,
  uint64: 13,
  complex64: 14,
  complex128: 15,
  bfloat16: 16,
  float8e4m3fn: 17,
  float8e4m3fnuz: 18,
  float8e5m2: 19,
  float8e5m2fnuz: 20,
  uint4: 21,
  int4: 22,
  float4e2m1: 23,
  float8e8m0: 24,
  uint2: 25,
  int2: 26,
};

const BY_ONNX_NUMBER = new Map<number, DataType>(
  Object.entries(ONNX_DATA_TYPE).map(([name, num]) => [num, name as DataType]),
);

/** The data type for an ONNX element-type number, or undefined when Switchyard has none. */
export function dataTypeFromOnnx(elemType: number): DataType | undefined {
  return BY_ONNX_NUMBER.get(elemType);
}

/**
 * Bytes per element in memory (complex types count both parts; strings have no fixed size). The
 * sub-byte types take one byte each in memory; `packedByteLength` gives their size in a file.
 */
export const BYTES_PER_ELEMENT: Readonly<Record<DataType, number>> = {
  float32: 4,
  float16: 2,
  bfloat16: 2,
  float64: 8,
  int8: 1,
  int16: 2,
  int32: 4,
  int64: 8,
  uint8: 1,
  uint16: 2,
  uint32: 4,
  uint64: 8,
  bool: 1,
  string: 0,
  complex64: 8,
  complex128: 16,
  float8e4m3fn: 1,
  float8e4m3fnuz: 1,
  float8e5m2: 1,
  float8e5m2fnuz: 1,
  float8e8m0: 1,
  float4e2m1: 1,
  uint4: 1,
  int4: 1,
  uint2: 1,
  int2: 1,
};

/** Bits per element in ONNX's serialized form (raw_data), where 4-bit and 2-bit types are packed. */
export function bitsPerElement(type: NumericDataType): number {
  if (type === 'float4e2m1' || type === 'uint4' || type === 'int4') return 4;
  if (type === 'uint2' || type === 'int2') return 2;
  return BYTES_PER_ELEMENT[type] * 8;
}

/** Bytes `size` elements of `type` take in raw_data (packed for the sub-byte types, last byte padded). */
export function packedByteLength(type: NumericDataType, size: number): number {
  const bits = bitsPerElement(type);
  return bits >= 8 ? size * (bits / 8) : Math.ceil((size * bits) / 8);
}

/** The valid element values (codes) of the sub-byte types; other types take any value their array holds. */
export const SUB_BYTE_RANGE: Readonly<Partial<Record<DataType, readonly [number, number]>>> = {
  float4e2m1: [0, 15],
  uint4: [0, 15],
  int4: [-8, 7],
  uint2: [0, 3],
  int2: [-2, 1],
};

type ArrayCtor = new (lengthOrBuffer: number | ArrayBufferLike, byteOffset?: number, length?: number) => Exclude<TensorData, string[]>;

const CTORS: Record<NumericDataType, { ctor: ArrayCtor; perElement: number }> = {
  float32: { ctor: Float32Array, perElement: 1 },
  float16: { ctor: Uint16Array, perElement: 1 },
  bfloat16: { ctor: Uint16Array, perElement: 1 },
  float64: { ctor: Float64Array, perElement: 1 },
  int8: { ctor: Int8Array, perElement: 1 },
  int16: { ctor: Int16Array, perElement: 1 },
  int32: { ctor: Int32Array, perElement: 1 },
  int64: { ctor: BigInt64Array, perElement: 1 },
  uint8: { ctor: Uint8Array, perElement: 1 },
  uint16: { ctor: Uint16Array, perElement: 1 },
  uint32: { ctor: Uint32Array, perElement: 1 },
  uint64: { ctor: BigUint64Array, perElement: 1 },
  bool: { ctor: Uint8Array, perElement: 1 },
  complex64: { ctor: Float32Array, perElement: 2 },
  complex128: { ctor: Float64Array, perElement: 2 },
  float8e4m3fn: { ctor: Uint8Array, perElement: 1 },
  float8e4m3fnuz: { ctor: Uint8Array, perElement: 1 },
  float8e5m2: { ctor: Uint8Array, perElement: 1 },
  float8e5m2fnuz: { ctor: Uint8Array, perElement: 1 },
  float8e8m0: { ctor: Uint8Array, perElement: 1 },
  float4e2m1: { ctor: Uint8Array, perElement: 1 },
  uint4: { ctor: Uint8Array, perElement: 1 },
  int4: { ctor: Int8Array, perElement: 1 },
  uint2: { ctor: Uint8Array, perElement: 1 },
  int2: { ctor: Int8Array, perElement: 1 },
};

/** A zeroed array for `size` elements of `type`. */
export function allocateData<T extends DataType>(type: T, size: number): DataTypeMap[T] {
  if (type === 'string') return new Array<string>(size).fill('') as DataTypeMap[T];
  const { ctor, perElement } = CTORS[type as NumericDataType];
  return new ctor(size * perElement) as DataTypeMap[T];
}

/** A view of `size` elements of `type` over `buffer` at `byteOffset` (which must be aligned). */
export function viewData<T extends NumericDataType>(
  type: T,
  buffer: ArrayBufferLike,
  byteOffset: number,
  size: number,
): DataTypeMap[T] {
  const { ctor, perElement } = CTORS[type];
  return new ctor(buffer, byteOffset, size * perElement) as DataTypeMap[T];
}

/** Whether `data` is the right container for `type`. */
export function isDataOfType(type: DataType, data: unknown): boolean {
  if (type === 'string') return Array.isArray(data) && data.every((s) => typeof s === 'string');
  return data instanceof CTORS[type].ctor;
}

/** Number of array slots per element (2 for complex types). */
export function slotsPerElement(type: DataType): number {
  return type === 'string' ? 1 : CTORS[type].perElement;
}

export const ALL_DATA_TYPES: readonly DataType[] = Object.keys(ONNX_DATA_TYPE) as DataType[];

export function isDataType(name: string): name is DataType {
  return Object.prototype.hasOwnProperty.call(ONNX_DATA_TYPE, name);
}

export const FLOAT_TYPES: readonly DataType[] = ['float32', 'float16', 'bfloat16', 'float64'];
export const INT_TYPES: readonly DataType[] = ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64'];
/** The 8-bit and 4-bit float formats (stored as codes, see small-floats.ts). */
export const SMALL_FLOAT_TYPES = ['float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz', 'float8e8m0', 'float4e2m1'] as const satisfies readonly DataType[];
export type SmallFloatType = (typeof SMALL_FLOAT_TYPES)[number];
/** The integer types narrower than a byte (unpacked in memory). */
export const SUB_BYTE_INT_TYPES = ['uint4', 'int4', 'uint2', 'int2'] as const satisfies readonly DataType[];
export type SubByteIntType = (typeof SUB_BYTE_INT_TYPES)[number];

export function isSmallFloatType(type: DataType): type is SmallFloatType {
  return (SMALL_FLOAT_TYPES as readonly DataType[]).includes(type);
}

export function isSubByteIntType(type: DataType): type is SubByteIntType {
  return (SUB_BYTE_INT_TYPES as readonly DataType[]).includes(type);
}
