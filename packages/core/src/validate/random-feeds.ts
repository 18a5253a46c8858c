/** Seeded random feeds shaped from a session's input metadata, for validation and benchmarks. */
import { SwitchyardError } from '../errors.js';
import { allocateData, type DataType } from '../tensor/data-type.js';
import { float32ToBfloat16Bits, float32ToFloat16Bits } from '../tensor/float16.js';
import { Tensor } from '../tensor/tensor.js';
import type { ValueMetadata } from '../session/inference-session.js';

/** A small, fast, seedable generator (mulberry32): the same seed gives the same feeds everywhere. */
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

export interface RandomShapeOptions {
  /** Size of a symbolic or unknown first dim (the batch). Default 1. */
  batch?: number;
}

/**
 * Floats uniform in [-1, 1), integers in [0, 10) (valid indices and token ids for most models), bools
 * half true. Symbolic or unknown dims become 1, except a leading one, which becomes `batch`.
 */
export function randomTensor(meta: ValueMetadata, rand: () => number, options: RandomShapeOptions = {}): Tensor {
  if (!meta.isTensor || !meta.type) throw new SwitchyardError('INVALID_ARGUMENT', `input '${meta.name}' is not a tensor; give its value`);
  const type = meta.type as DataType;
  const dims = (meta.shape ?? []).map((d, i) => (typeof d === 'number' && d >= 0 ? d : i === 0 ? (options.batch ?? 1) : 1));
  const size = dims.reduce((a, b) => a * b, 1);
  const data = allocateData(type, size);
  for (let i = 0; i < size; i++) {
    const u = rand();
    if (type === 'float16') (data as Uint16Array)[i] = float32ToFloat16Bits(u * 2 - 1);
    else if (type === 'bfloat16') (data as Uint16Array)[i] = float32ToBfloat16Bits(u * 2 - 1);
    else if (data instanceof Float32Array || data instanceof Float64Array) data[i] = u * 2 - 1;
    else if (data instanceof BigInt64Array || data instanceof BigUint64Array) data[i] = BigInt(Math.floor(u * 10));
    else if (Array.isArray(data)) data[i] = String(Math.floor(u * 10));
    else if (type === 'bool') (data as Uint8Array)[i] = u < 0.5 ? 0 : 1;
    else (data as Int32Array)[i] = Math.floor(u * 10);
  }
  return new Tensor(type, data as never, dims);
}

/** Feeds for every input: `given` ones as they are, the rest random from `seed`, in input order. */
export function randomFeeds(
  inputs: readonly ValueMetadata[],
  given: Readonly<Record<string, Tensor>> = {},
  seed = 42,
  options: RandomShapeOptions = {},
): Record<string, Tensor> {
  for (const name of Object.keys(given)) {
    if (!inputs.some((m) => m.name === name)) {
      throw new SwitchyardError('INVALID_ARGUMENT', `the model has no input '${name}' (inputs: ${inputs.map((m) => m.name).join(', ')})`);
    }
  }
  const rand = seededRandom(seed);
  const feeds: Record<string, Tensor> = {};
  for (const meta of inputs) feeds[meta.name] = given[meta.name] ?? randomTensor(meta, rand, options);
  return feeds;
}
