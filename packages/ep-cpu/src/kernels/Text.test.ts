import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { i64, plain } from '../tensor-ops/test-util.js';
import { stringNormalizerKernel } from './StringNormalizer.js';
import { tfIdfVectorizerKernel } from './TfIdfVectorizer.js';

const strings = (v: string[], dims = [v.length]) => new Tensor('string', v, dims);

describe('StringNormalizer', () => {
  it('drops stop words case-insensitively by default, then changes case', async () => {
    const x = strings(['Monday', 'tuesday', 'MONDAY', 'Straße'], [1, 4]);
    const [y] = await runKernel(stringNormalizerKernel, [x], { attributes: { stopwords: ['monday'], case_change_action: 'UPPER' } });
    expect(plain(y)).toEqual({ dims: [1, 2], data: ['TUESDAY', 'STRASSE'] });
    const [z] = await runKernel(stringNormalizerKernel, [x], { attributes: { stopwords: ['MONDAY'], is_case_sensitive: 1, case_change_action: 'LOWER' } });
    expect(plain(z)).toEqual({ dims: [1, 3], data: ['monday', 'tuesday', 'straße'] });
  });

  it('gives one empty string when everything is dropped, keeping the input rank', async () => {
    const opts = { attributes: { stopwords: ['a'] } };
    expect(plain((await runKernel(stringNormalizerKernel, [strings(['a', 'A'])], opts))[0])).toEqual({ dims: [1], data: [''] });
    expect(plain((await runKernel(stringNormalizerKernel, [strings(['a'], [1, 1])], opts))[0])).toEqual({ dims: [1, 1], data: [''] });
  });

  it('uses the locale for case changes and rejects bad shapes and attributes', async () => {
    const [y] = await runKernel(stringNormalizerKernel, [strings(['istanbul'])], { attributes: { case_change_action: 'UPPER', locale: 'tr_TR' } });
    expect(plain(y).data).toEqual(['İSTANBUL']);
    await expect(runKernel(stringNormalizerKernel, [strings(['a', 'b'], [2, 1])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(stringNormalizerKernel, [strings(['a'])], { attributes: { case_change_action: 'TITLE' } })).rejects.toMatchObject({
      code: 'INVALID_MODEL',
    });
    await expect(runKernel(stringNormalizerKernel, [strings(['a'])], { attributes: { locale: 'not a locale!' } })).rejects.toMatchObject({
      code: 'INVALID_MODEL',
    });
  });
});

describe('TfIdfVectorizer', () => {
  // Pool: 1-grams [2], [3], [5], [4]; 2-grams [5, 6], [7, 8], [6, 7]; output coordinates 0–6 in that order.
  const pool = { ngram_counts: [0, 4], ngram_indexes: [0, 1, 2, 3, 4, 5, 6], pool_int64s: [2, 3, 5, 4, 5, 6, 7, 8, 6, 7] };
  const x = i64([1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8], [2, 6]);

  it('counts 1- and 2-grams per row (TF), with no skips', async () => {
    const [y] = await runKernel(tfIdfVectorizerKernel, [x], { attributes: { ...pool, mode: 'TF', min_gram_length: 1, max_gram_length: 2, max_skip_count: 0 } });
    // Row 0 [1 1 3 3 3 7]: 3 appears 3×. Row 1 [8 6 7 5 6 8]: 5 once; bigrams (6,7) and (5,6) once each.
    expect(plain(y)).toEqual({ dims: [2, 7], data: [0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1] });
  });

  it('counts skip-grams up to max_skip_count, each unigram once', async () => {
    const [y] = await runKernel(tfIdfVectorizerKernel, [i64([5, 9, 6, 7, 1, 8])], {
      attributes: { ...pool, mode: 'TF', min_gram_length: 1, max_gram_length: 2, max_skip_count: 2 },
    });
    // Bigrams with skip 0: (5,9)(9,6)(6,7)(7,1)(1,8); skip 1: (5,6)(9,7)(6,1)(7,8); skip 2: (5,7)(9,1)(6,8).
    expect(plain(y)).toEqual({ dims: [7], data: [0, 0, 1, 0, 1, 1, 1] });
  });

  it('weights by mode (IDF caps counts at 1), and matches string pools', async () => {
    const attrs = { ...pool, min_gram_length: 1, max_gram_length: 1, max_skip_count: 0, weights: [1, 0.5, 2, 3, 1, 1, 1] };
    const row = i64([3, 3, 5]);
    expect(plain((await runKernel(tfIdfVectorizerKernel, [row], { attributes: { ...attrs, mode: 'IDF' } }))[0]).data).toEqual([0, 0.5, 2, 0, 0, 0, 0]);
    expect(plain((await runKernel(tfIdfVectorizerKernel, [row], { attributes: { ...attrs, mode: 'TFIDF' } }))[0]).data).toEqual([0, 1, 2, 0, 0, 0, 0]);
    const [s] = await runKernel(tfIdfVectorizerKernel, [strings(['to', 'be', 'or', 'not', 'to', 'be'])], {
      attributes: { mode: 'TF', min_gram_length: 2, max_gram_length: 2, max_skip_count: 0, ngram_counts: [0, 0], ngram_indexes: [1, 0], pool_strings: ['to', 'be', 'or', 'not'] },
    });
    expect(plain(s)).toEqual({ dims: [2], data: [1, 2] }); // 'or not' once → coordinate 0; 'to be' twice → 1
  });

  it('gives the same counts, at once, when max_gram_length and max_skip_count are far beyond the pool and the row', async () => {
    const row = i64([5, 9, 6, 7, 1, 8]);
    const sane = { ...pool, mode: 'TF', min_gram_length: 1, max_gram_length: 2, max_skip_count: 5 };
    const [expected] = await runKernel(tfIdfVectorizerKernel, [row], { attributes: sane });
    const started = performance.now();
    const [y] = await runKernel(tfIdfVectorizerKernel, [row], { attributes: { ...sane, max_gram_length: 2 ** 40, max_skip_count: 2 ** 50 } });
    expect(plain(y)).toEqual(plain(expected));
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('rejects inconsistent pools and mismatched input types', async () => {
    const base = { mode: 'TF', min_gram_length: 1, max_gram_length: 1, max_skip_count: 0 };
    await expect(runKernel(tfIdfVectorizerKernel, [i64([1])], { attributes: { ...base, ngram_counts: [0, 1], ngram_indexes: [0], pool_int64s: [1, 2] } })).rejects.toMatchObject({
      code: 'INVALID_MODEL',
    });
    await expect(runKernel(tfIdfVectorizerKernel, [strings(['a'])], { attributes: { ...base, ngram_counts: [0], ngram_indexes: [0], pool_int64s: [1] } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(runKernel(tfIdfVectorizerKernel, [i64([1])], { attributes: { ...base, mode: 'BM25', ngram_counts: [0], ngram_indexes: [0], pool_int64s: [1] } })).rejects.toMatchObject({
      code: 'INVALID_MODEL',
    });
  });
});
