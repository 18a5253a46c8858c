/** HannWindow: 0.5 − 0.5·cos(2πk/N). */
import { windowKernel } from '../extra/windows.js';

export const hannWindowKernel = windowKernel('HannWindow', [0.5, -0.5]);
