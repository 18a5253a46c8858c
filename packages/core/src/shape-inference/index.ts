/**
 * Shape and type inference over the graph IR, and per-node FLOP estimates that build on it.
 */
export { inferShapes, type InferShapesOptions } from './infer.js';
export { estimateFlops, estimateFlopsOrUnknown, type ShapeSource } from './flops.js';
export type { KnownValue } from './known-values.js';
export { broadcastShapes, broadcastDim, dimProduct, isStaticShape, mergeTypes, formatShape } from './dims.js';
