/**
 * com.microsoft FusedConv (onnxruntime's contrib op): Y = activation(Conv(X, W, B) + Z), Z optional
 * and shaped like Y. The TS path: the Conv kernel, then the sum and activation in place. oneDNN runs
 * the same node with post-ops when the addon loads (native/conv-native.ts).
 */
import { SwitchyardError, defineKernel, type Kernel, type KernelInit, type Node } from '@switchyard/core';
import { convKernel } from './Conv.js';

type Activation = (v: number) => number;

/** onnxruntime's FusedConv activations, with `activation_params` as it defines them. */
export function fusedActivation(node: Node): Activation {
  const attr = node.attributes.get('activation');
  const name = attr?.type === 'string' ? attr.value : '';
  const paramsAttr = node.attributes.get('activation_params');
  const p = paramsAttr?.type === 'floats' ? paramsAttr.value : [];
  const fail = (why: string) => new SwitchyardError('INVALID_MODEL', `node '${node.name}' (FusedConv): ${why}`);
  switch (name) {
    case '':
      return (v) => v;
    case 'Relu':
      return (v) => (v < 0 ? 0 : v);
    case 'LeakyRelu': {
      const alpha = p[0] ?? 0.01;
      return (v) => (v < 0 ? v * alpha : v);
    }
    case 'Clip': {
      if (p.length !== 2) throw fail('Clip needs activation_params [min, max]');
      const [lo, hi] = p;
      return (v) => (v < lo ? lo : v > hi ? hi : v);
    }
    case 'Sigmoid':
      return (v) => 1 / (1 + Math.exp(-v));
    case 'Tanh':
      return Math.tanh;
    case 'HardSigmoid': {
      const [alpha = 0.2, beta = 0.5] = p;
      return (v) => Math.max(0, Math.min(1, alpha * v + beta));
    }
    default:
      throw fail(`unknown activation '${name}' (Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid are served)`);
  }
}

function createFusedConv(init: KernelInit): Kernel {
  const conv = convKernel.create(init);
  const activation = fusedActivation(init.node);
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
