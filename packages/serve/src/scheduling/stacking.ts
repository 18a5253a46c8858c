/**
 * Stacking requests along the batch dimension and splitting the results. Two requests stack only
 * when they feed the same inputs with the same element types and the same dims after the first;
 * their `stackKey`s are then equal, and nothing with a different key is ever put in their batch.
 */
import { SwitchyardError, Tensor, allocateData } from '@switchyard/core';
import { isFixedDim, type ModelSignature } from '../protocol/signature.js';

export type Feeds = Record<string, Tensor>;

/**
 * Why a model cannot be batched, or undefined when it can: every input and every output must have
 * the same dynamic (symbolically named) first dim, so a stacked run's outputs split back by rows.
 */
export function whyNotBatchable(signature: ModelSignature): string | undefined {
  if (signature.optionalInputs.size > 0) return `inputs with defaults (${[...signature.optionalInputs].join(', ')}) could not be stacked`;
  const first = signature.inputs[0]?.shape?.[0];
  if (typeof first !== 'string') return `the first input's first dim is ${first === undefined ? 'unknown' : first} — batching needs a named dynamic first dim`;
  for (const v of [...signature.inputs, ...signature.outputs]) {
    const d = v.shape?.[0];
    if (d !== first) return `'${v.name}' has first dim ${d === undefined ? 'unknown' : isFixedDim(d) ? d : `'${d}'`}, not '${first}' like the first input`;
  }
  return undefined;
}

/** The stacking key and row count of one request, or undefined when its inputs disagree on rows. */
export function stackKeyOf(feeds: Feeds): { key: string; rows: number } | undefined {
  const names = Object.keys(feeds).sort();
  let rows = -1;
  const parts: string[] = [];
  for (const name of names) {
    const t = feeds[name];
    if (t.dims.length === 0) return undefined;
    if (rows === -1) rows = t.dims[0];
    else if (t.dims[0] !== rows) return undefined;
    parts.push(`${name}:${t.type}:${t.dims.slice(1).join('x')}`);
  }
  return rows > 0 ? { key: parts.join('|'), rows } : undefined;
}

/** One set of feeds holding every request's rows, in order. All must share a stack key. */
export function stackFeeds(requests: readonly Feeds[]): Feeds {
  const out: Feeds = {};
  for (const name of Object.keys(requests[0])) {
    const parts = requests.map((r) => r[name]);
    const first = parts[0];
    const rows = parts.reduce((n, t) => n + t.dims[0], 0);
    const dims = [rows, ...first.dims.slice(1)];
    if (first.type === 'string') {
      out[name] = new Tensor('string', parts.flatMap((t) => t.data as string[]), dims);
      continue;
    }
    const joined = allocateData(first.type, parts.reduce((n, t) => n + t.size, 0)) as Float32Array;
    let at = 0;
    for (const t of parts) {
      joined.set(t.data as Float32Array, at);
      at += (t.data as Float32Array).length;
    }
    out[name] = new Tensor(first.type, joined as never, dims);
  }
  return out;
}

/** Each request's share of a stacked run's outputs, `rows[i]` rows for request i. */
export function splitResults(results: Feeds, rows: readonly number[]): Feeds[] {
  const total = rows.reduce((a, b) => a + b, 0);
  const shares: Feeds[] = rows.map(() => ({}));
  for (const [name, t] of Object.entries(results)) {
    if (t.dims[0] !== total) {
      throw new SwitchyardError('INTERNAL', `stacked run: output '${name}' has ${t.dims[0]} rows for ${total} stacked input rows`);
    }
    const perRow = total === 0 ? 0 : (t.data as ArrayLike<unknown>).length / total;
    let at = 0;
    rows.forEach((r, i) => {
      const dims = [r, ...t.dims.slice(1)];
      const data = t.data as Float32Array | string[];
      const part = Array.isArray(data) ? data.slice(at * perRow, (at + r) * perRow) : data.subarray(at * perRow, (at + r) * perRow);
      shares[i][name] = new Tensor(t.type, part as never, dims);
      at += r;
    });
  }
  return shares;
}
