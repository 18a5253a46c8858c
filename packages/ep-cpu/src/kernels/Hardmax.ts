/** Hardmax: opset 1–12 normalizes the input coerced to 2-D at axis; opset 13+ along one axis. */
import { softmaxFamilyKernels } from '../nn/softmax.js';

export const hardmaxKernels = softmaxFamilyKernels('Hardmax', 'hardmax');
