/** Seeded random feeds for `--input name=random`, shaped from the model's metadata. */
import { Tensor, allocateData, SwitchyardError, type DataType, type ValueMetadata } from '@switchyard/core';

/** A small, fast, seedable generator (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Symbolic or unknown dims become 1. */
export function randomTensor(meta: ValueMetadata, rand: () => number): Tensor {
  if (!meta.isTensor || !meta.type) throw new SwitchyardError('INVALID_ARGUMENT', `input '${meta.name}' is not a tensor; pass it as a .npy file`);
  const type = meta.type as DataType;
  const dims = (meta.shape ?? []).map((d) => (typeof d === 'number' && d >= 0 ? d : 1));
  const size = dims.reduce((a, b) => a * b, 1);
  const data = allocateData(type, size);
  for (let i = 0; i < size; i++) {
    if (data instanceof Float32Array || data instanceof Float64Array) data[i] = rand() * 2 - 1;
    else if (data instanceof BigInt64Array || data instanceof BigUint64Array) data[i] = BigInt(Math.floor(rand() * 10));
    else if (Array.isArray(data)) data[i] = String(Math.floor(rand() * 10));
    else if (type === 'bool') (data as Uint8Array)[i] = rand() < 0.5 ? 0 : 1;
    else (data as Int32Array)[i] = Math.floor(rand() * 10);
  }
  return new Tensor(type, data as never, dims);
}
