/**
 * FusedMatMul (Switchyard's own domain): Y = activation(MatMul(A, B) + bias), with bias 1-D of Y's last
 * dim and the activation in `activation` / `activation_params` (nn/fused-activation.ts; none when absent).
 * The MatMul+Add fusion creates it for N-D products and for any product with an activation (2-D ones
 * without become Gemm). Not onnxruntime's com.microsoft FusedMatMul, which has no bias; hence the
 * private domain.
 */
import { SwitchyardError, defineKernel, type Kernel, type KernelInit } from '@switchyard/core';
import { matMulKernel } from './MatMul.js';
import { nodeActivation } from '../nn/fused-activation.js';

/** The domain of ops only Switchyard's passes create (and only its CPU EP runs). */
export const FUSED_DOMAIN = 'com.switchyard';

function createFusedMatMul(init: KernelInit): Kernel {
  const matmul = matMulKernel.create(init);
  const name = init.node.name;
  const activation = nodeActivation(init.node);
  if (typeof activation === 'string') throw new SwitchyardError('INVALID_MODEL', `node '${name}' (FusedMatMul): ${activation}`);
  return {
    async run(ctx) {
      const [y] = await matmul.run(ctx);
      const bias = ctx.optionalInput(2);
      if (!bias && activation.native === 'none') return [y];
      if (!y || Array.isArray(y) || (y.type !== 'float32' && y.type !== 'float64')) {
        throw new SwitchyardError('INVALID_ARGUMENT', `node '${name}' (FusedMatMul): only float32 and float64 are served`);
      }
      if (!bias) {
        const out = y.data as Float32Array | Float64Array;
        for (let i = 0; i < out.length; i++) out[i] = activation.apply(out[i]);
        return [y];
      }
      const n = y.dims.length ? y.dims[y.dims.length - 1] : 1;
      if (bias.dims.length !== 1 || bias.dims[0] !== n || bias.type !== y.type) {
        throw new SwitchyardError('INVALID_ARGUMENT', `node '${name}' (FusedMatMul): bias must be ${y.type} [${n}], got ${bias.type} [${bias.dims.join(', ')}]`);
      }
      const out = y.data as Float32Array | Float64Array;
      const b = bias.data as Float32Array | Float64Array;
      for (let i = 0; i < out.length; i += n) for (let j = 0; j < n; j++) out[i + j] = activation.apply(out[i + j] + b[j]);
      return [y];
    },
  };
}

export const fusedMatMulKernel = defineKernel({
  ep: 'cpu',
  domain: FUSED_DOMAIN,
  opType: 'FusedMatMul',
  sinceVersion: 1,
  create: createFusedMatMul,
});
