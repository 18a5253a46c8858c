/** Ordering of tensor elements for TopK and Unique: half floats decoded, NaN after every number. */
import type { Tensor } from '@switchyard/core';
import { numberValue } from './elements.js';

export type Key = number | bigint | string;

/** The elements of `t` as comparable keys (half floats decoded to numbers; others as stored). */
export function sortKeys(t: Tensor): ArrayLike<Key> {
  if (t.type === 'float16' || t.type === 'bfloat16') {
    const d = t.data as Uint16Array;
    const out = new Float64Array(d.length);
    for (let i = 0; i < d.length; i++) out[i] = numberValue(t.type, d[i]);
    return out;
  }
  return t.data;
}

/** Ascending order; NaN sorts after everything (as numpy does) and equals itself. */
export function compareKeys(a: Key, b: Key): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  const an = a !== a; // eslint-disable-line no-self-compare -- NaN test that works for every key type
  const bn = b !== b; // eslint-disable-line no-self-compare
  return an === bn ? 0 : an ? 1 : -1;
}
