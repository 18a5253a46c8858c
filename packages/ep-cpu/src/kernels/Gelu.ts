/**
 * ONNX Gelu (opset 20): x · Φ(x), or with `approximate="tanh"` the tanh form
 * x/2 · (1 + tanh(√(2/π)(x + 0.044715x³))). Same math as the com.microsoft Gelu / FastGelu kernels.
 */
import { SwitchyardError, defineKernel, nodeLabel, type KernelInit } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

function readApproximate({ attrs, node }: KernelInit): number[] {
  const approximate = attrs.string('approximate', 'none');
  if (approximate !== 'none' && approximate !== 'tanh') {
    throw new SwitchyardError('INVALID_ARGUMENT', `node '${nodeLabel(node)}' (Gelu): approximate must be "none" or "tanh", got "${approximate}"`);
  }
  return [approximate === 'tanh' ? 1 : 0];
}

export const onnxGeluKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Gelu',
  sinceVersion: 20,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Gelu',
    types: FLOATS,
    float: 'useTanh ? geluTanh(x) : gelu(x)',
    params: ['useTanh'],
    readParams: readApproximate,
  }),
});
