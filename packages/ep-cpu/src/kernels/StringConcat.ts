/** StringConcat (opset 20): elementwise `X + Y` over string tensors, with NumPy broadcasting. */
import { SwitchyardError, Tensor } from '@switchyard/core';
import { broadcastPair } from '../math/broadcast.js';
import { tensorKernel } from '../tensor-ops/define.js';

const OP = 'StringConcat';

export const stringConcatKernel = tensorKernel({
  opType: OP,
  sinceVersion: 20,
  typeConstraints: { T: ['string'] },
  create: () => ({
    run(ctx) {
      const x = ctx.input(0);
      const y = ctx.input(1);
      if (x.type !== 'string' || y.type !== 'string') {
        throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: inputs must be string tensors, got ${x.type} and ${y.type}`);
      }
      const { dims, ia, ib } = broadcastPair(x.dims, y.dims, OP);
      const xs = x.data as string[];
      const ys = y.data as string[];
      const out = new Array<string>(ia.length);
      for (let i = 0; i < ia.length; i++) out[i] = xs[ia[i]] + ys[ib[i]];
      return [new Tensor('string', out, dims)];
    },
  }),
});
