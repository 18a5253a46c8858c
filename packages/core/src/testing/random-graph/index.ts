/** Seeded random models and the differential test of optimization levels built on them. */
export { randomModel, type RandomModel, type RandomModelOptions } from './random-model.js';
export { compareOptimizationLevels, compareOutput, type DifferentialOptions, type DifferentialResult } from './differential.js';
