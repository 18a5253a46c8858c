/**
 * Momentum (ai.onnx.preview.training, v1): SGD with standard or Nesterov momentum. The gradient's
 * coefficient is 1 at the first step (T = 0) and beta afterwards.
 */
import { SwitchyardError } from '@switchyard/core';
import { optimizerKernel } from '../extra/optimizer.js';

export const momentumKernel = optimizerKernel({
  opType: 'Momentum',
  inputGroups: 3, // X, G, V
  outputGroups: 2, // X_new, V_new
  rule(attrs) {
    const alpha = attrs.float('alpha');
    const beta = attrs.float('beta');
    const norm = attrs.float('norm_coefficient');
    const mode = attrs.string('mode');
    if (mode !== 'standard' && mode !== 'nesterov') throw new SwitchyardError('INVALID_MODEL', `Momentum: mode must be 'standard' or 'nesterov', got '${mode}'`);
    const nesterov = mode === 'nesterov';
    return (R, T, [x, g, v], out) => {
      const gReg = norm * x + g;
      const vNew = alpha * v + (T > 0 ? beta : 1) * gReg;
      out[0] = nesterov ? x - R * (gReg + alpha * vNew) : x - R * vNew;
      out[1] = vNew;
    };
  },
});
