/** Adagrad (ai.onnx.preview.training, v1): X_new = X − r·G_reg / (√H_new + ε), r = R / (1 + T·decay_factor). */
import { optimizerKernel } from '../extra/optimizer.js';

export const adagradKernel = optimizerKernel({
  opType: 'Adagrad',
  inputGroups: 3, // X, G, H
  outputGroups: 2, // X_new, H_new
  rule(attrs) {
    const decay = attrs.float('decay_factor', 0);
    const epsilon = attrs.float('epsilon', 1e-6);
    const norm = attrs.float('norm_coefficient', 0);
    return (R, T, [x, g, h], out) => {
      const r = R / (1 + T * decay);
      const gReg = norm * x + g; // gradient of 0.5·norm·‖X‖² added
      const hNew = h + gReg * gReg;
      out[0] = x - (r * gReg) / (Math.sqrt(hNew) + epsilon);
      out[1] = hNew;
    };
  },
});
