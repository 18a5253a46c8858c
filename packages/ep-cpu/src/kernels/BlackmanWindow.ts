/** BlackmanWindow: 0.42 − 0.5·cos(2πk/N) + 0.08·cos(4πk/N). */
import { windowKernel } from '../extra/windows.js';

export const blackmanWindowKernel = windowKernel('BlackmanWindow', [0.42, -0.5, 0.08]);
