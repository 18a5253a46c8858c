/**
 * Reads the `.npy` files models/generate.py writes (NumPy format 1.0, little-endian, C order).
 * The CLI has a complete reader, but the CLI depends on this package, so tests here cannot import it;
 * this one knows only the dtypes the generator writes.
 */
import { readFileSync } from 'node:fs';
import { SwitchyardError, Tensor } from '@switchyard/core';

export function readNpy(path: string): Tensor {
  const bytes = readFileSync(path);
  const fail = (why: string) => new SwitchyardError('INVALID_ARGUMENT', `${path}: ${why}`);
  if (bytes.length < 10 || bytes.toString('latin1', 0, 6) !== '\x93NUMPY') throw fail('not a .npy file');
  if (bytes[6] !== 1) throw fail(`format version ${bytes[6]}; the generator writes 1.0`);
  const headerEnd = 10 + bytes.readUInt16LE(8);
  const header = bytes.toString('latin1', 10, headerEnd);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || shape === undefined) throw fail(`unreadable header ${header.trim()}`);
  if (/'fortran_order':\s*True/.test(header)) throw fail('Fortran order is not supported');
  const dims = shape.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  // Copy into a fresh, aligned buffer: the file's data offset need not be a multiple of 8.
  const body = bytes.subarray(headerEnd);
  const take = (bytesPerElement: number) => {
    if (body.length !== count * bytesPerElement) throw fail(`${body.length} data bytes for shape [${dims}] of ${descr}`);
    return new Uint8Array(body).buffer;
  };
  if (descr === '<f4') return new Tensor('float32', new Float32Array(take(4)), dims);
  if (descr === '<i8') return new Tensor('int64', new BigInt64Array(take(8)), dims);
  throw fail(`dtype ${descr} is not one the generator writes (<f4, <i8)`);
}
