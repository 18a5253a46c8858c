/**
 * ONNX Where: `condition ? X : Y` with three-way broadcasting. It only copies elements, so one loop
 * serves every element type (raw float16 bits, BigInts and strings alike).
 */
import { SwitchyardError, defineKernel } from '@switchyard/core';
import { broadcastPlan } from '../math/broadcast.js';
import { NUMERIC } from '../math/dtypes.js';

const TYPES = [...NUMERIC, 'bool', 'string'] as const;

type Elements = { readonly [i: number]: unknown; length: number };

export const whereKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Where',
  sinceVersion: 9,
  typeConstraints: { B: ['bool'], T: TYPES },
  create: () => ({
    run(ctx) {
      const c = ctx.input(0);
      const x = ctx.input(1);
      const y = ctx.input(2);
      if (c.type !== 'bool') throw new SwitchyardError('INVALID_ARGUMENT', `Where: condition must be bool, got ${c.type}`);
      if (x.type !== y.type) throw new SwitchyardError('INVALID_ARGUMENT', `Where: X is ${x.type} but Y is ${y.type}`);
      const plan = broadcastPlan([c.dims, x.dims, y.dims], 'Where');
      const out = ctx.output(0, x.type, plan.dims);
      const cd = c.data as Uint8Array;
      const xd = x.data as Elements;
      const yd = y.data as Elements;
      const od = out.data as { [i: number]: unknown };
      const [co, xo, yo] = plan.offsets;
      const [cs, xs, ys] = plan.innerStrides;
      let k = 0;
      for (let r = 0; r < plan.outer; r++) {
        const ic = co[r];
        const ix = xo[r];
        const iy = yo[r];
        for (let j = 0; j < plan.inner; j++) od[k++] = cd[ic + j * cs] ? xd[ix + j * xs] : yd[iy + j * ys];
      }
      return [out];
    },
  }),
});
