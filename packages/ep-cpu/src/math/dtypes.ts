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
