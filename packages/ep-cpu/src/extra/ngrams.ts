/** The n-gram pool of TfIdfVectorizer and the skip-gram counting over one row of tokens. */
import { SwitchyardError } from '@switchyard/core';

export interface NgramPoolSpec {
  op: string;
  minGram: number;
  maxGram: number;
  maxSkip: number;
  /** Start offset (in tokens) of the 1-grams, 2-grams, … inside the pool. */
  ngramCounts: number[];
  /** Output coordinate of each pool n-gram. */
  ngramIndexes: number[];
  poolInts?: number[];
  poolStrings?: string[];
  weights?: number[];
}

export interface NgramPool {
  strings: boolean;
  minGram: number;
  maxGram: number;
  maxSkip: number;
  /** The longest n-gram in the pool: longer ones can never match, whatever max_gram_length says. */
  longest: number;
  /** Pool n-gram ids by key (see `gramKey`); a repeated n-gram lists every id. */
  ids: Map<string, number[]>;
  outputIndex: number[];
  weights: number[];
  outputSize: number;
}

/** An unambiguous key for a token sequence (JSON keeps strings with any characters apart). */
function gramKey(tokens: readonly string[]): string {
  return JSON.stringify(tokens);
}

export function buildNgramPool(spec: NgramPoolSpec): NgramPool {
  const { op, minGram, maxGram, maxSkip, ngramCounts, ngramIndexes } = spec;
  const bad = (msg: string) => new SwitchyardError('INVALID_MODEL', `${op}: ${msg}`);
  if (!(minGram >= 1 && maxGram >= minGram)) throw bad(`need 1 ≤ min_gram_length ≤ max_gram_length, got ${minGram} and ${maxGram}`);
  if (maxSkip < 0) throw bad(`max_skip_count must be ≥ 0, got ${maxSkip}`);
  if ((spec.poolInts === undefined) === (spec.poolStrings === undefined)) throw bad('exactly one of pool_int64s and pool_strings must be set');
  const pool = spec.poolStrings ?? spec.poolInts!.map(String);
  const grams: string[][] = [];
  for (let k = 0; k < ngramCounts.length; k++) {
    const start = ngramCounts[k];
    const end = k + 1 < ngramCounts.length ? ngramCounts[k + 1] : pool.length;
    const n = k + 1;
    if (!(start >= 0 && start <= end && end <= pool.length) || (end - start) % n !== 0) {
      throw bad(`ngram_counts [${ngramCounts.join(', ')}] do not split a pool of ${pool.length} tokens into ${n}-grams at entry ${k}`);
    }
    for (let p = start; p < end; p += n) grams.push(pool.slice(p, p + n));
  }
  if (ngramIndexes.length !== grams.length) throw bad(`ngram_indexes has ${ngramIndexes.length} entries for ${grams.length} pool n-grams`);
  if (ngramIndexes.some((i) => !(Number.isInteger(i) && i >= 0))) throw bad('ngram_indexes must be non-negative');
  const weights = spec.weights ?? new Array<number>(grams.length).fill(1);
  if (weights.length !== grams.length) throw bad(`weights has ${weights.length} entries for ${grams.length} pool n-grams`);
  const ids = new Map<string, number[]>();
  grams.forEach((g, i) => {
    const key = gramKey(g);
    const list = ids.get(key);
    if (list) list.push(i);
    else ids.set(key, [i]);
  });
  return {
    strings: spec.poolStrings !== undefined,
    minGram,
    maxGram,
    maxSkip,
    longest: ngramCounts.length,
    ids,
    outputIndex: ngramIndexes,
    weights,
    outputSize: ngramIndexes.length === 0 ? 0 : Math.max(...ngramIndexes) + 1,
  };
}

/**
 * Counts pool n-gram occurrences in tokens[offset, offset + length) into `counts` (by pool id).
 * An n-gram with skip s takes every (s + 1)-th token; a 1-gram is the same for every skip, so it is
 * counted once.
 */
export function countNgrams(pool: NgramPool, tokens: readonly string[], offset: number, length: number, counts: Float64Array): void {
  counts.fill(0);
  // Only n-grams the pool holds and skips that fit in the row can match: a model's extreme
  // max_gram_length or max_skip_count must not turn into billions of empty iterations.
  const last = Math.min(pool.maxGram, pool.longest, length);
  for (let n = pool.minGram; n <= last; n++) {
    const maxSkip = n === 1 ? 0 : Math.min(pool.maxSkip, Math.floor((length - 1) / (n - 1)) - 1);
    for (let skip = 0; skip <= maxSkip; skip++) {
      const step = skip + 1;
      const span = (n - 1) * step + 1;
      for (let start = 0; start + span <= length; start++) {
        const gram: string[] = [];
        for (let j = 0; j < n; j++) gram.push(tokens[offset + start + j * step]);
        const hit = pool.ids.get(gramKey(gram));
        if (hit) for (const id of hit) counts[id]++;
      }
    }
  }
}
