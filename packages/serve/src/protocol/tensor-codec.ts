/**
 * Tensor data in the protocol's two encodings: JSON arrays (flat or nested, row-major) and the
 * binary-tensor extension (little-endian elements back to back; BYTES as a 4-byte length and the bytes).
 */
import {
  BYTES_PER_ELEMENT,
  Tensor,
  allocateData,
  bfloat16BitsToFloat32,
  float16BitsToFloat32,
  float32ToBfloat16Bits,
  float32ToFloat16Bits,
  viewData,
  type DataType,
  type NumericDataType,
} from '@switchyard/core';
import { badRequest } from './errors.js';

/** Nested JSON arrays deeper than this are refused rather than walked (a tensor has few dims). */
const MAX_NESTING = 32;

const INT_RANGES: Partial<Record<DataType, [number, number]>> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint8: [0, 255],
  uint16: [0, 65535],
  uint32: [0, 2 ** 32 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};

/** Row-major elements of a JSON `data` value, flat or nested. */
function flatten(data: unknown, what: string): unknown[] {
  if (!Array.isArray(data)) throw badRequest(`${what}: 'data' must be an array`);
  if (!data.some(Array.isArray)) return data;
  const out: unknown[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > MAX_NESTING) throw badRequest(`${what}: 'data' is nested deeper than ${MAX_NESTING} levels`);
    if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else out.push(v);
  };
  walk(data, 0);
  return out;
}

/** A host tensor from the JSON `data` of one input; `size` is the element count its shape needs. */
export function tensorFromJson(type: DataType, dims: readonly number[], size: number, data: unknown, what: string): Tensor {
  const values = flatten(data, what);
  if (values.length !== size) throw badRequest(`${what}: shape [${dims.join(', ')}] needs ${size} elements, 'data' has ${values.length}`);
  if (type === 'string') {
    if (!values.every((v) => typeof v === 'string')) throw badRequest(`${what}: BYTES data must be strings`);
    return new Tensor('string', values as string[], dims);
  }
  if (type === 'complex64' || type === 'complex128') throw badRequest(`${what}: complex tensors have no protocol datatype`);
  const out = allocateData(type, size);
  for (let i = 0; i < size; i++) {
    const v = values[i];
    if (type === 'bool') {
      if (typeof v !== 'boolean') throw badRequest(`${what}: BOOL data must be true or false, element ${i} is ${JSON.stringify(v)}`);
      (out as Uint8Array)[i] = v ? 1 : 0;
      continue;
    }
    if (typeof v !== 'number') {
      throw badRequest(`${what}: element ${i} is ${JSON.stringify(v)}, not a number`);
    }
    const range = INT_RANGES[type];
    if (range && (!Number.isInteger(v) || v < range[0] || v > range[1])) {
      throw badRequest(`${what}: element ${i} (${v}) is not a ${type} value`);
    }
    if (type === 'int64' || type === 'uint64') (out as BigInt64Array | BigUint64Array)[i] = BigInt(v);
    else if (type === 'float16') (out as Uint16Array)[i] = float32ToFloat16Bits(v);
    else if (type === 'bfloat16') (out as Uint16Array)[i] = float32ToBfloat16Bits(v);
    else (out as Float32Array)[i] = v;
  }
  return new Tensor(type, out, dims);
}

/** The number of bytes the binary extension uses for `size` elements of a fixed-size type. */
export function binaryByteLength(type: DataType, size: number): number {
  return BYTES_PER_ELEMENT[type] * size;
}

/** A host tensor from one input's bytes in the binary section. */
export function tensorFromBinary(type: DataType, dims: readonly number[], size: number, bytes: Uint8Array, what: string): Tensor {
  if (type === 'string') return new Tensor('string', decodeBytesElements(bytes, size, what), dims);
  const expected = binaryByteLength(type, size);
  if (bytes.byteLength !== expected) {
    throw badRequest(`${what}: binary_data_size is ${bytes.byteLength} bytes but shape [${dims.join(', ')}] of ${type} needs ${expected}`);
  }
  // Copy: the request buffer's offset need not be aligned for the element type, and it is reused.
  const copy = new Uint8Array(bytes);
  return new Tensor(type, viewData(type as NumericDataType, copy.buffer, 0, size), dims);
}

function decodeBytesElements(bytes: Uint8Array, size: number, what: string): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: string[] = [];
  const decoder = new TextDecoder();
  let at = 0;
  for (let i = 0; i < size; i++) {
    if (at + 4 > bytes.byteLength) throw badRequest(`${what}: binary BYTES data ends inside element ${i}'s length`);
    const n = view.getUint32(at, true);
    at += 4;
    if (at + n > bytes.byteLength) throw badRequest(`${what}: binary BYTES element ${i} claims ${n} bytes past the end of its data`);
    out.push(decoder.decode(bytes.subarray(at, at + n)));
    at += n;
  }
  if (at !== bytes.byteLength) throw badRequest(`${what}: binary BYTES data has ${bytes.byteLength - at} bytes after its ${size} elements`);
  return out;
}

/** A tensor's elements as JSON values (int64 as numbers: JSON has no wider integer). */
export function tensorToJson(tensor: Tensor): unknown[] {
  const data = tensor.data as ArrayLike<unknown> & Iterable<unknown>;
  switch (tensor.type) {
    case 'bool':
      return Array.from(data as Uint8Array, (v) => v !== 0);
    case 'int64':
    case 'uint64':
      return Array.from(data as BigInt64Array, (v) => Number(v));
    case 'float16':
      return Array.from(data as Uint16Array, float16BitsToFloat32);
    case 'bfloat16':
      return Array.from(data as Uint16Array, bfloat16BitsToFloat32);
    case 'string':
      return [...(data as string[])];
    default:
      return Array.from(data as Float32Array);
  }
}

/** A tensor's elements in the binary extension's encoding. */
export function tensorToBinary(tensor: Tensor): Uint8Array {
  if (tensor.type === 'string') {
    const encoded = (tensor.data as string[]).map((s) => Buffer.from(s, 'utf8'));
    const out = Buffer.allocUnsafe(encoded.reduce((n, b) => n + 4 + b.byteLength, 0));
    let at = 0;
    for (const b of encoded) {
      out.writeUInt32LE(b.byteLength, at);
      b.copy(out, at + 4);
      at += 4 + b.byteLength;
    }
    return out;
  }
  const data = tensor.data as Float32Array;
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}
