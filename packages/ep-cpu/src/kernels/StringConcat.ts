/** StringConcat (opset 20): elementwise `X + Y` over string tensors, with NumPy broadcasting. */
import { SwitchyardError } from '@switchyard/core';
import { broadcastIndex, broadcastShape } from '../math/broadcast.js';
import { allocOutput } from '../tensor-ops/elements.js';
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
      const dims = broadcastShape([x.dims, y.dims], OP);
      const out = allocOutput(ctx, 0, 'string', dims); // the size is checked before the index tables are built
      const [ix, iy] = [broadcastIndex(x.dims, dims, OP), broadcastIndex(y.dims, dims, OP)];
      const xs = x.data as string[];
      const ys = y.data as string[];
      const z = out.data as string[];
      for (let i = 0; i < z.length; i++) z[i] = xs[ix[i]] + ys[iy[i]];
      return [out];
    },
  }),
});
