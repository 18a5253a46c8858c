/**
 * Adam (ai.onnx.preview.training, v1): exponential averages V (gradient) and H (squared gradient);
 * the step R is bias-corrected by √(1 − β^T)/(1 − α^T) from T > 0; X is finally scaled by
 * (1 − norm_coefficient_post).
 */
import { optimizerKernel } from '../extra/optimizer.js';

export const adamKernel = optimizerKernel({
  opType: 'Adam',
  inputGroups: 4, // X, G, V, H
  outputGroups: 3, // X_new, V_new, H_new
  rule(attrs) {
    const alpha = attrs.float('alpha', 0.9);
    const beta = attrs.float('beta', 0.999);
    const epsilon = attrs.float('epsilon', 1e-6);
    const norm = attrs.float('norm_coefficient', 0);
    const normPost = attrs.float('norm_coefficient_post', 0);
    return (R, T, [x, g, v, h], out) => {
      const gReg = norm * x + g;
      const vNew = alpha * v + (1 - alpha) * gReg;
      const hNew = beta * h + (1 - beta) * gReg * gReg;
      const r = T > 0 ? (R * Math.sqrt(1 - beta ** T)) / (1 - alpha ** T) : R;
      const xNew = x - (r * vNew) / (Math.sqrt(hNew) + epsilon);
      out[0] = (1 - normPost) * xNew;
      out[1] = vNew;
      out[2] = hNew;
    };
  },
});
