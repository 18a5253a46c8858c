export { parseNpy, readNpy } from './npy.js';
export { registerBundledProviders, parseEpList, DEFAULT_EPS } from './providers.js';
export { parseEpArgs, parseOptionValue, readEpOptionsFile, resolveEpSpecs, type EpSpec } from './ep-options.js';
export { loadProviderModules } from './load-ep.js';
export { explainNode, type NodeExplanation } from './explain-node.js';
export { findKnee, type BenchReport, type BatchResult, type LatencyStats } from './commands/bench.js';
