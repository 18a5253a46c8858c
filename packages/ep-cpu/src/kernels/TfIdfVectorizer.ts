/**
 * TfIdfVectorizer (opset 9): counts, per row of a [C] or [N, C] int/string input, the occurrences of
 * the pool's n-grams (n in [min_gram_length, max_gram_length]), where an n-gram's tokens may be spaced
 * by up to max_skip_count skipped tokens; counts are then weighted by mode (TF, IDF, TFIDF).
 */
import { SwitchyardError } from '@switchyard/core';
import { allocOutput } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { buildNgramPool, countNgrams, type NgramPool } from '../extra/ngrams.js';

const OP = 'TfIdfVectorizer';

export const tfIdfVectorizerKernel = tensorKernel({
  opType: OP,
  sinceVersion: 9,
  typeConstraints: { T: ['int32', 'int64', 'string'], T1: ['float32'] },
  create({ attrs }) {
    const mode = attrs.string('mode');
    if (mode !== 'TF' && mode !== 'IDF' && mode !== 'TFIDF') throw new SwitchyardError('INVALID_MODEL', `${OP}: mode must be TF, IDF or TFIDF, got '${mode}'`);
    const pool: NgramPool = buildNgramPool({
      op: OP,
      minGram: attrs.int('min_gram_length'),
      maxGram: attrs.int('max_gram_length'),
      maxSkip: attrs.int('max_skip_count'),
      ngramCounts: attrs.ints('ngram_counts'),
      ngramIndexes: attrs.ints('ngram_indexes'),
      poolInts: attrs.has('pool_int64s') ? attrs.ints('pool_int64s') : undefined,
      poolStrings: attrs.has('pool_strings') ? attrs.strings('pool_strings') : undefined,
      weights: attrs.has('weights') ? attrs.floats('weights') : undefined,
    });
    return {
      run(ctx) {
        const x = ctx.input(0);
        if ((x.type === 'string') !== pool.strings) {
          throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: input is ${x.type} but the pool holds ${pool.strings ? 'strings' : 'integers'}`);
        }
        if (x.dims.length !== 1 && x.dims.length !== 2) throw new SwitchyardError('INVALID_SHAPE', `${OP}: input must be [C] or [N, C], got [${x.dims.join(', ')}]`);
        const rows = x.dims.length === 2 ? x.dims[0] : 1;
        const C = x.dims[x.dims.length - 1];
        const dims = x.dims.length === 2 ? [rows, pool.outputSize] : [pool.outputSize];
        const out = allocOutput(ctx, 0, 'float32', dims);
        const tokens = Array.from(x.data as ArrayLike<number | bigint | string>, (t) => String(t));
        const counts = new Float64Array(pool.weights.length);
        for (let r = 0; r < rows; r++) {
          countNgrams(pool, tokens, r * C, C, counts);
          const row = out.data.subarray(r * pool.outputSize, (r + 1) * pool.outputSize);
          for (let i = 0; i < counts.length; i++) {
            const c = counts[i];
            if (c === 0) continue;
            row[pool.outputIndex[i]] = mode === 'TF' ? c : mode === 'IDF' ? pool.weights[i] : c * pool.weights[i];
          }
        }
        return [out];
      },
    };
  },
});
