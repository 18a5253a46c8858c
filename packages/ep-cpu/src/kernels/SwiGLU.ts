/**
 * ONNX SwiGLU (opset 28): Y = Swish_alpha(A) · B, A and B of one shape and type (no broadcasting).
 */
import { SwitchyardError, defineKernel, nodeLabel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { sigmoid } from '../math/special.js';
import { floatData, floatOutput } from '../nn/float-io.js';

export const swiGluKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'SwiGLU',
  sinceVersion: 28,
  typeConstraints: { T: FLOATS },
  create: ({ node, attrs }) => {
    const alpha = attrs.float('alpha', 1.0);
    return {
      run(ctx) {
        const a = ctx.input(0);
        const b = ctx.input(1);
        if (a.type !== b.type) throw new SwitchyardError('INVALID_ARGUMENT', `node '${nodeLabel(node)}' (SwiGLU): A is ${a.type} but B is ${b.type}`);
        if (a.dims.length !== b.dims.length || a.dims.some((d, i) => d !== b.dims[i])) {
          throw new SwitchyardError('INVALID_SHAPE', `node '${nodeLabel(node)}' (SwiGLU): A [${a.dims.join(', ')}] and B [${b.dims.join(', ')}] must have one shape (no broadcasting)`);
        }
        const x = floatData(a, 'SwiGLU A');
        const v = floatData(b, 'SwiGLU B');
        const y = floatOutput(ctx, 0, a.type, a.dims);
        const out = y.data;
        for (let i = 0; i < x.length; i++) out[i] = x[i] * sigmoid(alpha * x[i]) * v[i];
        return [y.commit()];
      },
    };
  },
});
