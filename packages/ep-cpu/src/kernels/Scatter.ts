/** Scatter (opset 9–10): the deprecated name of ScatterElements without reduction. */
import { scatterElementsDef } from './ScatterElements.js';

export const scatterKernel = scatterElementsDef('Scatter', 9, 10);
