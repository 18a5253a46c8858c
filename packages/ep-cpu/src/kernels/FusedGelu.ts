/**
 * com.microsoft Gelu: y = x · Φ(x) = 0.5 · x · (1 + erf(x / √2)), the erf form PyTorch's nn.GELU()
 * exports as five nodes (math/special.ts's gelu: relative error < 1e-6 everywhere).
 */
import { SwitchyardError, defineKernel, simpleKernel } from '@switchyard/core';
import { gelu } from '../math/special.js';

export { gelu } from '../math/special.js';

export const fusedGeluKernel = defineKernel({
  ep: 'cpu',
  domain: 'com.microsoft',
  opType: 'Gelu',
  sinceVersion: 1,
  create: simpleKernel((ctx) => {
    const x = ctx.input(0);
    if (x.type !== 'float32' && x.type !== 'float64') {
      throw new SwitchyardError('INVALID_ARGUMENT', `node '${ctx.node.name}' (Gelu): only float32 and float64 are served, got ${x.type}`);
    }
    const y = ctx.output(0, x.type, x.dims);
    const src = x.data as Float32Array | Float64Array;
    const dst = y.data as Float32Array | Float64Array;
    for (let i = 0; i < src.length; i++) dst[i] = gelu(src[i]);
    return [y];
  }),
});
