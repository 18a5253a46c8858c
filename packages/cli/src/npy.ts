/** Reading and writing NumPy .npy files (format versions 1–3), for `--input name=file.npy`. */
import { readFileSync } from 'node:fs';
import { Tensor, SwitchyardError, allocateData, type DataType } from '@switchyard/core';

const DTYPES: Record<string, DataType> = {
  f4: 'float32',
  f8: 'float64',
  f2: 'float16',
  i1: 'int8',
  i2: 'int16',
  i4: 'int32',
  i8: 'int64',
  u1: 'uint8',
  u2: 'uint16',
  u4: 'uint32',
  u8: 'uint64',
  b1: 'bool',
};

export function parseNpy(bytes: Uint8Array, what = 'npy'): Tensor {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || magic.some((m, i) => bytes[i] !== m)) throw new SwitchyardError('INVALID_ARGUMENT', `${what}: not a .npy file`);
  const major = bytes[6];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const headerStart = major === 1 ? 10 : 12;
  if (headerStart + headerLen > bytes.length) throw new SwitchyardError('INVALID_ARGUMENT', `${what}: truncated header`);
  const header = new TextDecoder().decode(bytes.subarray(headerStart, headerStart + headerLen));
  const descr = /'descr':\s*'([<>|=])(\w+)'/.exec(header);
  const shapeMatch = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shapeMatch) throw new SwitchyardError('INVALID_ARGUMENT', `${what}: unreadable header ${header.trim()}`);
  if (/'fortran_order':\s*True/.test(header)) throw new SwitchyardError('INVALID_ARGUMENT', `${what}: Fortran-ordered arrays are not supported`);
  if (descr[1] === '>') throw new SwitchyardError('INVALID_ARGUMENT', `${what}: big-endian arrays are not supported`);
  const type = DTYPES[descr[2]];
  if (!type) throw new SwitchyardError('INVALID_ARGUMENT', `${what}: dtype '${descr[2]}' is not supported`);
  const dims = shapeMatch[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const size = dims.reduce((a, b) => a * b, 1);
  const data = allocateData(type, size);
  const body = bytes.subarray(headerStart + headerLen);
  const need = (data as Uint8Array).byteLength;
  if (body.length < need) throw new SwitchyardError('INVALID_ARGUMENT', `${what}: data has ${body.length} bytes, shape [${dims}] of ${type} needs ${need}`);
  new Uint8Array((data as Uint8Array).buffer).set(body.subarray(0, need));
  return new Tensor(type, data as never, dims);
}

export function readNpy(path: string): Tensor {
  return parseNpy(readFileSync(path), path);
}
