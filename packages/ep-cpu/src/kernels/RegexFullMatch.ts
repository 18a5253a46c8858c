/** RegexFullMatch (opset 20): true where a string matches the RE2 `pattern` as a whole. */
import { SwitchyardError } from '@switchyard/core';
import { tensorKernel } from '../tensor-ops/define.js';
import { compileRe2FullMatch } from './re2-pattern.js';

const OP = 'RegexFullMatch';

export const regexFullMatchKernel = tensorKernel({
  opType: OP,
  sinceVersion: 20,
  typeConstraints: { T1: ['string'], T2: ['bool'] },
  create({ attrs }) {
    if (!attrs.has('pattern')) throw new SwitchyardError('INVALID_MODEL', `${OP}: the pattern attribute is required`);
    const regex = compileRe2FullMatch(attrs.string('pattern'), OP);
    return {
      run(ctx) {
        const x = ctx.input(0);
        if (x.type !== 'string') throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: input must be a string tensor, got ${x.type}`);
        const y = ctx.output(0, 'bool', x.dims);
        const xs = x.data as string[];
        for (let i = 0; i < xs.length; i++) y.data[i] = regex.test(xs[i]) ? 1 : 0;
        return [y];
      },
    };
  },
});
