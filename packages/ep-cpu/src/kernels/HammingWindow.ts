/** HammingWindow: α − β·cos(2πk/N) with ONNX's α = 25/46, β = 1 − α. */
import { windowKernel } from '../extra/windows.js';

export const hammingWindowKernel = windowKernel('HammingWindow', [25 / 46, -(1 - 25 / 46)]);
