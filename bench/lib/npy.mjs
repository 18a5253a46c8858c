/**
 * A minimal NumPy .npy reader and writer for the reference inputs and outputs (float32, float64,
 * int64, int32, bool, uint8; little-endian, C order), for the CPU bench and the GPU-host scripts
 * (bench/gpu, scripts/gpu-host). Only node: imports, so it loads on the GPU host, which has no
 * node_modules. The bench keeps its own rather than importing @switchyard/cli, whose import pulls in
 * every EP package and would add their memory to the RSS numbers of both engines.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const TYPES = {
  '<f4': ['float32', Float32Array],
  '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array],
  '|b1': ['bool', Uint8Array],
  '|u1': ['uint8', Uint8Array],
};

/** @returns {{type: string, dims: number[], data: Float32Array | BigInt64Array | Int32Array | Uint8Array}} */
export function readNpy(path) {
  const bytes = readFileSync(path);
  if (bytes.length < 10 || bytes.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${path}: not a .npy file`);
  const major = bytes[6];
  const headerLen = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const headerStart = major === 1 ? 10 : 12;
  const header = bytes.toString('latin1', headerStart, headerStart + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || !TYPES[descr]) throw new Error(`${path}: unsupported dtype ${descr}`);
  if (fortran !== 'False') throw new Error(`${path}: Fortran order is not supported`);
  const dims = (shapeText ?? '').split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const [type, Ctor] = TYPES[descr];
  const count = dims.reduce((a, b) => a * b, 1);
  const offset = headerStart + headerLen;
  // Copy into a fresh, aligned buffer: the file's data offset need not be a multiple of 8.
  const data = new Ctor(count);
  new Uint8Array(data.buffer).set(bytes.subarray(offset, offset + count * Ctor.BYTES_PER_ELEMENT));
  return { type, dims, data };
}

/** Writes a typed array as a version-1 .npy file (C order, a dtype `readNpy` knows). */
export function writeNpy(path, type, dims, data) {
  const descr = Object.entries(TYPES).find(([, [t]]) => t === type)?.[0];
  if (!descr) throw new Error(`writeNpy: dtype ${type} is not supported`);
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims.join(', ')}${dims.length === 1 ? ',' : ''}), }`;
  // The header (with its 10-byte preamble and trailing newline) is padded to a multiple of 64 bytes.
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  writeFileSync(path, Buffer.concat([head, Buffer.from(header, 'latin1'), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}
