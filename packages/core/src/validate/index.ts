export { validateProviders, type ValidateProvidersOptions, type ValidationReport, type ValidatedSide } from './validate-providers.js';
export { tensorDifference, valueDifferences, type OutputDifference, type WorstElement, type ToleranceOverride } from './output-difference.js';
export { toleranceFor, precisionOfType, FLOAT_TOLERANCES, type Precision, type ValidationTolerance } from './tolerance.js';
export { randomFeeds, randomTensor, seededRandom, type RandomShapeOptions } from './random-feeds.js';
