/**
 * com.microsoft FusedConv (onnxruntime's contrib op): Y = activation(Conv(X, W, B) + Z), Z optional
 * and shaped like Y; the activations are onnxruntime's and those nn/fused-activation.ts adds. The TS path: the Conv kernel, then the sum and activation in place. oneDNN runs
 * the same node with post-ops when the addon loads (native/conv-native.ts).
 */
import { SwitchyardError, defineKernel, type Kernel, type KernelInit, type Node } from '@switchyard/core';
import { convKernel } from './Conv.js';
import { nodeActivation } from '../nn/fused-activation.js';

/** The node's activation as a function; an INVALID_MODEL error when it names none the EP knows. */
export function fusedActivationFn(node: Node): (v: number) => number {
  const a = nodeActivation(node);
  if (typeof a === 'string') throw new SwitchyardError('INVALID_MODEL', `node '${node.name}' (${node.opType}): ${a}`);
  return a.apply;
}

function createFusedConv(init: KernelInit): Kernel {
  const conv = convKernel.create(init);
  const activation = fusedActivationFn(init.node);
  const name = init.node.name;
  return {
    async run(ctx) {
      const [y] = await conv.run(ctx);
      if (!y || Array.isArray(y) || (y.type !== 'float32' && y.type !== 'float64')) {
        throw new SwitchyardError('INVALID_ARGUMENT', `node '${name}' (FusedConv): only float32 and float64 are served`);
      }
      const out = y.data as Float32Array | Float64Array;
      const z = ctx.optionalInput(3);
      if (z) {
        if (z.type !== y.type || z.dims.join() !== y.dims.join()) {
          throw new SwitchyardError('INVALID_ARGUMENT', `node '${name}' (FusedConv): Z must be ${y.type} [${y.dims.join(', ')}], got ${z.type} [${z.dims.join(', ')}]`);
        }
        const zd = z.data as Float32Array | Float64Array;
        for (let i = 0; i < out.length; i++) out[i] = activation(out[i] + zd[i]);
      } else {
        for (let i = 0; i < out.length; i++) out[i] = activation(out[i]);
      }
      return [y];
    },
  };
}

export const fusedConvKernel = defineKernel({
  ep: 'cpu',
  domain: 'com.microsoft',
  opType: 'FusedConv',
  sinceVersion: 1,
  create: createFusedConv,
});
