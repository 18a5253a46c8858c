/** ai.onnx.ml Binarizer: 1 where X > threshold, else 0, in X's type. */
import { SwitchyardError, defineKernel } from '@switchyard/core';

const OP = 'Binarizer';
const TYPES = ['float32', 'float64', 'int64', 'int32'] as const;

export const binarizerKernel = defineKernel({
  ep: 'cpu',
  domain: 'ai.onnx.ml',
  opType: OP,
  sinceVersion: 1,
  implementation: 'ts',
  typeConstraints: { T: TYPES },
  create({ attrs }) {
    const threshold = attrs.float('threshold', 0);
    return {
      run(ctx) {
        const x = ctx.input(0);
        if (!(TYPES as readonly string[]).includes(x.type)) throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: X must be one of ${TYPES.join(', ')}, got ${x.type}`);
        const out = ctx.output(0, x.type, x.dims);
        const src = x.data as ArrayLike<number | bigint>;
        const dst = out.data as unknown as (number | bigint)[];
        const big = x.type === 'int64';
        for (let i = 0; i < x.size; i++) {
          const above = Number(src[i]) > threshold;
          dst[i] = big ? (above ? 1n : 0n) : above ? 1 : 0;
        }
        return [out];
      },
    };
  },
});
