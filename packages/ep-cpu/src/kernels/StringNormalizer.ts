/**
 * StringNormalizer (opset 10): drops stop words from a [C] or [1, C] string tensor, then optionally
 * lower- or upper-cases what is left. An all-dropped input gives one empty string ([1] or [1, 1]).
 */
import { SwitchyardError, Tensor } from '@switchyard/core';
import { tensorKernel } from '../tensor-ops/define.js';

const OP = 'StringNormalizer';

/** The `locale` attribute as a BCP 47 tag (ONNX models write POSIX style, e.g. `en_US`); undefined = default. */
function parseLocale(locale: string): string | undefined {
  if (locale === '') return undefined;
  try {
    return Intl.getCanonicalLocales(locale.replace(/_/g, '-').replace(/\..*$/, ''))[0];
  } catch {
    throw new SwitchyardError('INVALID_MODEL', `${OP}: locale '${locale}' is not a valid locale name`);
  }
}

export const stringNormalizerKernel = tensorKernel({
  opType: OP,
  sinceVersion: 10,
  create({ attrs }) {
    const action = attrs.string('case_change_action', 'NONE');
    if (action !== 'NONE' && action !== 'LOWER' && action !== 'UPPER') {
      throw new SwitchyardError('INVALID_MODEL', `${OP}: case_change_action must be NONE, LOWER or UPPER, got '${action}'`);
    }
    const caseSensitive = attrs.int('is_case_sensitive', 0) !== 0;
    const locale = parseLocale(attrs.string('locale', ''));
    // Case-insensitive matching compares lower-cased forms in the node's locale.
    const key = (s: string) => (caseSensitive ? s : s.toLocaleLowerCase(locale));
    const stopwords = new Set(attrs.strings('stopwords', []).map(key));
    const change = (s: string) => (action === 'LOWER' ? s.toLocaleLowerCase(locale) : action === 'UPPER' ? s.toLocaleUpperCase(locale) : s);
    return {
      run(ctx) {
        const x = ctx.input(0);
        if (x.type !== 'string') throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: input must be a string tensor, got ${x.type}`);
        const twoD = x.dims.length === 2;
        if (!(x.dims.length === 1 || (twoD && x.dims[0] === 1))) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: input must be [C] or [1, C], got [${x.dims.join(', ')}]`);
        }
        const kept = (x.data as string[]).filter((s) => !stopwords.has(key(s))).map(change);
        if (kept.length === 0) kept.push('');
        return [new Tensor('string', kept, twoD ? [1, kept.length] : [kept.length])];
      },
    };
  },
});
