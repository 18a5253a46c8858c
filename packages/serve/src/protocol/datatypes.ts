/**
 * The protocol's tensor datatypes (`FP32`, `INT64`, `BYTES`, …) against Switchyard's element types,
 * and the size of one element in the binary-tensor extension's encoding.
 */
import type { DataType } from '@switchyard/core';

const TO_SWITCHYARD: Readonly<Record<string, DataType>> = {
  BOOL: 'bool',
  UINT8: 'uint8',
  UINT16: 'uint16',
  UINT32: 'uint32',
  UINT64: 'uint64',
  INT8: 'int8',
  INT16: 'int16',
  INT32: 'int32',
  INT64: 'int64',
  FP16: 'float16',
  BF16: 'bfloat16',
  FP32: 'float32',
  FP64: 'float64',
  BYTES: 'string',
};

const TO_PROTOCOL = new Map<DataType, string>(Object.entries(TO_SWITCHYARD).map(([p, s]) => [s, p]));

/** The element type for a protocol datatype name, or undefined for a name the protocol does not define. */
export function elementTypeOf(datatype: string): DataType | undefined {
  return Object.prototype.hasOwnProperty.call(TO_SWITCHYARD, datatype) ? TO_SWITCHYARD[datatype] : undefined;
}

/** The protocol's name for an element type; complex types have none. */
export function datatypeOf(type: DataType | string | undefined): string | undefined {
  return type === undefined ? undefined : TO_PROTOCOL.get(type as DataType);
}

export const PROTOCOL_DATATYPES: readonly string[] = Object.keys(TO_SWITCHYARD);
