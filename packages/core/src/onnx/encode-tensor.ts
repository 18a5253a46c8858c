/** Tensor → TensorProto: numeric data as little-endian raw_data (4-/2-bit types packed), strings as string_data. */
import { SwitchyardError } from '../errors.js';
import { ONNX_DATA_TYPE, SUB_BYTE_RANGE } from '../tensor/data-type.js';
import { packSubByte } from '../tensor/sub-byte.js';
import type { Tensor } from '../tensor/tensor.js';
import { TENSOR } from './fields.js';
import { ProtoWriter } from './wire-writer.js';

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Writes the fields of a TensorProto for `t` into `w`. */
export function writeTensorProto(w: ProtoWriter, t: Tensor, name?: string): void {
  if (t.location !== 'cpu') {
    throw new SwitchyardError('INVALID_ARGUMENT', `tensor '${name ?? ''}' is on '${t.location}'; download it before encoding`);
  }
  for (const d of t.dims) w.int64(TENSOR.dims, d);
  w.int64(TENSOR.dataType, ONNX_DATA_TYPE[t.type]);
  if (name) w.string(TENSOR.name, name);
  const data = t.data;
  if (Array.isArray(data)) {
    for (const s of data) w.string(TENSOR.stringData, s);
    return;
  }
  if (!HOST_LITTLE_ENDIAN && data.BYTES_PER_ELEMENT > 1) {
    throw new SwitchyardError('UNSUPPORTED', 'encoding tensors on big-endian hosts is not supported');
  }
  // 4-bit and 2-bit types are one element per byte in memory, packed in files.
  if (SUB_BYTE_RANGE[t.type]) w.bytes(TENSOR.rawData, packSubByte(t.type, data as Uint8Array | Int8Array));
  else w.bytes(TENSOR.rawData, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
}

/** A standalone TensorProto (the format of the ONNX backend tests' input_N.pb / output_N.pb). */
export function encodeTensor(t: Tensor, name?: string): Uint8Array {
  const w = new ProtoWriter();
  writeTensorProto(w, t, name);
  return w.finish();
}
