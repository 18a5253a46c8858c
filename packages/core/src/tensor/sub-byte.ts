/**
 * ONNX's packed layout of the 4-bit (uint4, int4, float4e2m1) and 2-bit (uint2, int2) types, and the
 * one-element-per-byte form Switchyard holds them in. Packing goes from the least significant bits
 * up: two 4-bit elements per byte (first in bits 0–3), four 2-bit elements per byte (first in bits
 * 0–1); a last partial byte is zero-padded.
 */
import { SwitchyardError } from '../errors.js';
import { type DataType, SUB_BYTE_RANGE, bitsPerElement } from './data-type.js';

/** The packed bytes (raw_data, or int32_data's low bytes) of `size` elements → one element per byte. */
export function unpackSubByte(type: DataType, packed: ArrayLike<number>, size: number, out: Uint8Array | Int8Array): void {
  const bits = bitsPerElement(type as Exclude<DataType, 'string'>);
  const perByte = 8 / bits;
  const mask = (1 << bits) - 1;
  const signed = type === 'int4' || type === 'int2';
  const signBit = 1 << (bits - 1);
  for (let i = 0; i < size; i++) {
    const v = (packed[Math.floor(i / perByte)] >>> ((i % perByte) * bits)) & mask;
    out[i] = signed && v & signBit ? v - (1 << bits) : v;
  }
}

/** One element per byte → packed bytes (`ceil(size · bits / 8)` of them). */
export function packSubByte(type: DataType, values: ArrayLike<number>): Uint8Array {
  const bits = bitsPerElement(type as Exclude<DataType, 'string'>);
  const perByte = 8 / bits;
  const mask = (1 << bits) - 1;
  const out = new Uint8Array(Math.ceil(values.length / perByte));
  for (let i = 0; i < values.length; i++) out[Math.floor(i / perByte)] |= (values[i] & mask) << ((i % perByte) * bits);
  return out;
}

/** Throws when an element of a sub-byte type lies outside its range (the bytes hold more than it can). */
export function checkSubByteRange(type: DataType, data: ArrayLike<number>, what: string): void {
  const range = SUB_BYTE_RANGE[type];
  if (!range) return;
  const [lo, hi] = range;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!(v >= lo && v <= hi)) {
      throw new SwitchyardError('INVALID_ARGUMENT', `${what}: element ${i} is ${v}, outside ${type}'s range ${lo}..${hi}`);
    }
  }
}
