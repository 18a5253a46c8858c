/** Conv (opsets 1 and 11 share semantics): N-D convolution with groups, dilations, pads/auto_pad and bias. */
import { SwitchyardError, defineKernel, simpleKernel } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput } from '../nn/float-io.js';
import { convForward, convShape } from '../nn/conv.js';

export const convKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Conv',
  sinceVersion: 1,
  typeConstraints: { T: FLOAT_KERNEL_TYPES },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    const W = ctx.input(1);
    const B = ctx.optionalInput(2);
    if (W.type !== X.type || (B && B.type !== X.type)) {
      throw new SwitchyardError('INVALID_ARGUMENT', `Conv: X, W and B must share one type (got ${X.type}, ${W.type}${B ? `, ${B.type}` : ''})`);
    }
    const shape = convShape('Conv', X.dims, W.dims, init.attrs);
    if (B && B.size !== shape.outChannels) {
      throw new SwitchyardError('INVALID_SHAPE', `Conv: bias has ${B.size} elements, expected ${shape.outChannels}`);
    }
    const y = floatOutput(ctx, 0, X.type, shape.outDims);
    convForward(shape, floatData(X), floatData(W), B ? floatData(B) : undefined, y.data);
    return [y.commit()];
  }),
});
