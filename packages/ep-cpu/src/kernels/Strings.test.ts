import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { plain } from '../tensor-ops/test-util.js';
import { stringSplitKernel } from './StringSplit.js';
import { regexFullMatchKernel } from './RegexFullMatch.js';
import { compileRe2FullMatch } from './re2-pattern.js';

const str = (data: string[], dims = [data.length]) => new Tensor('string', data, dims);

describe('StringSplit', () => {
  it('splits on whitespace as Python str.split does, keeping trailing space in the unsplit rest', async () => {
    // Python: '  a \t b  c  '.split(maxsplit=1) == ['a', 'b  c  ']; ''.split() == []
    const [y, z] = await runKernel(stringSplitKernel, [str(['  a \t b  c  ', ''])], { opset: 20, outputs: 2, attributes: { maxsplit: 1 } });
    expect(plain(y)).toEqual({ dims: [2, 2], data: ['a', 'b  c  ', '', ''] });
    expect(plain(z)).toEqual({ dims: [2], data: [2, 0] });
  });

  it('keeps empty parts between repeated delimiters', async () => {
    const [y, z] = await runKernel(stringSplitKernel, [str(['a,,b', ','])], { opset: 20, outputs: 2, attributes: { delimiter: ',' } });
    expect(plain(y)).toEqual({ dims: [2, 3], data: ['a', '', 'b', '', '', ''] });
    expect(plain(z).data).toEqual([3, 2]);
  });

  it('refuses a negative maxsplit and non-string input', async () => {
    await expect(runKernel(stringSplitKernel, [str(['a'])], { opset: 20, outputs: 2, attributes: { maxsplit: -1 } })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
    const f = new Tensor('float32', new Float32Array(1), [1]);
    await expect(runKernel(stringSplitKernel, [f], { opset: 20, outputs: 2 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('RegexFullMatch RE2 translation', () => {
  const full = (pattern: string, s: string) => compileRe2FullMatch(pattern, 'test').test(s);

  it('keeps RE2 meanings where JavaScript differs', () => {
    expect(full('a.b', 'a\rb')).toBe(true); // RE2's . excludes only \n
    expect(full('a.b', 'a\nb')).toBe(false);
    expect(full('(?s)a.b', 'a\nb')).toBe(true);
    expect(full('a\\sb', 'a\u00a0b')).toBe(false); // RE2's \s is ASCII only
    expect(full('a\\sb', 'a\tb')).toBe(true);
    expect(full('(?i)abc', 'ABC')).toBe(true);
    expect(full('\\pL+', 'héllo')).toBe(true);
    expect(full('(?P<w>\\w+)@x\\.com', 'me@x.com')).toBe(true);
    expect(full('[]a]+', 'a]a')).toBe(true); // a leading ] is a literal in RE2
    expect(full('\\@\\#', '@#')).toBe(true); // escaped punctuation is a literal
    expect(full('ab', 'xab')).toBe(false); // whole-string match only
  });

  it('refuses what RE2 lacks or JavaScript would match differently', () => {
    for (const p of ['(a)\\1', 'a(?=b)', '(?<!a)b', '\\Aab\\z', '[[:alpha:]]', 'a(?i)b', '(?m)^a$', '\\Qa.b\\E', '(a']) {
      expect(() => compileRe2FullMatch(p, 'test'), p).toThrow(expect.objectContaining({ code: 'UNSUPPORTED' }));
    }
  });

  it('runs over a string tensor and requires the pattern', async () => {
    const [y] = await runKernel(regexFullMatchKernel, [str(['ab', 'abc'], [1, 2])], { opset: 20, attributes: { pattern: 'a[b-c]+' } });
    expect(plain(y)).toEqual({ dims: [1, 2], data: [1, 1] });
    await expect(runKernel(regexFullMatchKernel, [str(['a'])], { opset: 20 })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
  });
});
