/**
 * StringSplit (opset 20): splits each string on `delimiter` (or, when that is unset or empty, on runs
 * of whitespace with the ends trimmed, as Python's `str.split()` does), at most `maxsplit` times.
 * Y gains a last axis as long as the most parts any element has; shorter rows are padded with "".
 * Z holds each element's part count.
 */
import { SwitchyardError } from '@switchyard/core';
import { allocOutput } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';

const OP = 'StringSplit';

/** Python's `str.isspace` code points: the set the whitespace split uses. */
const WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
  0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

function isSpace(s: string, i: number): boolean {
  return WHITESPACE.has(s.charCodeAt(i));
}

/** Splits on runs of whitespace; leading whitespace never makes an empty part, nor does trailing. */
export function splitOnWhitespace(s: string, maxsplit: number): string[] {
  const parts: string[] = [];
  let i = 0;
  const n = s.length;
  while (i < n) {
    while (i < n && isSpace(s, i)) i++;
    if (i >= n) break;
    if (parts.length === maxsplit) {
      // Out of splits: the rest, from its first non-space, is the last part (trailing space kept).
      parts.push(s.slice(i));
      break;
    }
    const start = i;
    while (i < n && !isSpace(s, i)) i++;
    parts.push(s.slice(start, i));
  }
  return parts;
}

/** Splits on every `delimiter` (empty parts kept), at most `maxsplit` times. */
export function splitOnDelimiter(s: string, delimiter: string, maxsplit: number): string[] {
  const parts: string[] = [];
  let start = 0;
  while (parts.length < maxsplit) {
    const at = s.indexOf(delimiter, start);
    if (at < 0) break;
    parts.push(s.slice(start, at));
    start = at + delimiter.length;
  }
  parts.push(s.slice(start));
  return parts;
}

export const stringSplitKernel = tensorKernel({
  opType: OP,
  sinceVersion: 20,
  typeConstraints: { T1: ['string'], T2: ['string'], T3: ['int64'] },
  create({ attrs }) {
    const delimiter = attrs.string('delimiter', '');
    const maxsplit = attrs.has('maxsplit') ? attrs.int('maxsplit') : Infinity;
    if (maxsplit < 0) throw new SwitchyardError('INVALID_MODEL', `${OP}: maxsplit must be non-negative, got ${maxsplit}`);
    const split = delimiter === '' ? (s: string) => splitOnWhitespace(s, maxsplit) : (s: string) => splitOnDelimiter(s, delimiter, maxsplit);
    return {
      run(ctx) {
        const x = ctx.input(0);
        if (x.type !== 'string') throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: input must be a string tensor, got ${x.type}`);
        const rows = (x.data as string[]).map(split);
        const width = rows.reduce((m, r) => Math.max(m, r.length), 0);
        const dims = [...x.dims, width];
        const out = allocOutput(ctx, 0, 'string', dims); // filled with '' (the padding)
        const y = out.data as string[];
        const z = ctx.output(1, 'int64', x.dims);
        rows.forEach((r, i) => {
          for (let j = 0; j < r.length; j++) y[i * width + j] = r[j];
          z.data[i] = BigInt(r.length);
        });
        return [out, z];
      },
    };
  },
});
