/** Graph optimization (onnxruntime's `graphOptimizationLevel`): core's `basic` passes and hooks for more. */
export { optimizeGraph, countNodes, DEFAULT_MAX_FOLD_BYTES, BASIC_PASSES, type BasicPassName } from './optimize-graph.js';
export type {
  GraphOptimizationLevel,
  EvaluateNode,
  EvaluateNodeContext,
  OptimizeOptions,
  OptimizeReport,
  PassReport,
  GraphPass,
  GraphPassContext,
} from './types.js';
export { foldConstants, constantNodeValue, type FoldOptions } from './constant-folding.js';
export { eliminateDeadCode } from './dead-code-elimination.js';
export { eliminateIdentities } from './identity-elimination.js';
export { eliminateCommonSubexpressions } from './common-subexpression.js';
export { attributesEqual, attributeValuesEqual, tensorsEqual } from './attribute-equality.js';
export { isPure, hasSubgraphs, tensorBytes, normalizeDomain } from './node-traits.js';
export { estimateFoldBytes } from './fold-size.js';
export { emptyResult, changedGraph, type PassResult } from './pass-result.js';
export { localNames, outerReads, valuesReadBy, constantLookup, opsetIn, UseIndex, type Scope } from './scope.js';
