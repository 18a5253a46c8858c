/**
 * com.microsoft FastGelu: y = x/2 · (1 + tanh(√(2/π) (x + 0.044715 x³))) of x (+ bias, broadcast), the
 * GELU approximation ONNX Runtime's transformer optimizer writes. Evaluated as x·σ(2u), the same value
 * without the cancellation of 1 + tanh for negative x.
 */
import { SwitchyardError, defineKernel, nodeLabel } from '@switchyard/core';
import { broadcastPlan } from '../math/broadcast.js';
import { geluTanh } from '../math/special.js';

export const fastGeluKernel = defineKernel({
  ep: 'cpu',
  domain: 'com.microsoft',
  opType: 'FastGelu',
  sinceVersion: 1,
  typeConstraints: { T: ['float32', 'float64'] },
  create: ({ node }) => ({
    run(ctx) {
      const x = ctx.input(0);
      const bias = ctx.optionalInput(1);
      if ((x.type !== 'float32' && x.type !== 'float64') || (bias && bias.type !== x.type)) {
        throw new SwitchyardError('INVALID_ARGUMENT', `node '${nodeLabel(node)}' (FastGelu): X and bias must be float32 or float64 alike`);
      }
      const plan = broadcastPlan(bias ? [x.dims, bias.dims] : [x.dims], 'FastGelu');
      const y = ctx.output(0, x.type, plan.dims, { uninitialized: true });
      const xs = x.data as Float32Array | Float64Array;
      const bs = (bias?.data ?? xs) as Float32Array | Float64Array;
      const ys = y.data as Float32Array | Float64Array;
      // The biased input is rounded to X's type first, as a separate Add would store it.
      const round = x.type === 'float32' ? Math.fround : (v: number) => v;
      let k = 0;
      for (let r = 0; r < plan.outer; r++) {
        const xo = plan.offsets[0][r];
        const bo = bias ? plan.offsets[1][r] : 0;
        for (let j = 0; j < plan.inner; j++) {
          const v = xs[xo + j * plan.innerStrides[0]];
          ys[k++] = geluTanh(bias ? round(v + bs[bo + j * plan.innerStrides[1]]) : v);
        }
      }
      return [y];
    },
  }),
});
