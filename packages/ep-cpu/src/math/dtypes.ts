/** Dtype lists the math kernels declare in their type constraints. */
import type { DataType } from '@switchyard/core';

export const FLOATS: readonly DataType[] = ['float32', 'float64', 'float16', 'bfloat16'];
export const SIGNED_INTS: readonly DataType[] = ['int8', 'int16', 'int32', 'int64'];
export const UNSIGNED_INTS: readonly DataType[] = ['uint8', 'uint16', 'uint32', 'uint64'];
export const INTS: readonly DataType[] = [...SIGNED_INTS, ...UNSIGNED_INTS];
/** Every real number type: floats and integers. */
export const NUMERIC: readonly DataType[] = [...FLOATS, ...INTS];
/** Numeric types whose negation is meaningful. */
export const SIGNED_NUMERIC: readonly DataType[] = [...FLOATS, ...SIGNED_INTS];
export const NUMERIC_AND_BOOL: readonly DataType[] = [...NUMERIC, 'bool'];
/** The float8/float4 formats, held as codes (see core's small-floats.ts). */
export const SMALL_FLOATS: readonly DataType[] = ['float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz', 'float8e8m0', 'float4e2m1'];
/** The 4- and 2-bit integers, one element per byte. */
export const SUB_BYTE_INTS: readonly DataType[] = ['uint4', 'int4', 'uint2', 'int2'];
/** Everything Cast converts between. */
export const CAST_TYPES: readonly DataType[] = [...NUMERIC, 'bool', 'string', ...SMALL_FLOATS, ...SUB_BYTE_INTS];
