/** Every shape rule of the default ONNX domain, by op type. */
import type { ShapeRule } from '../context.js';
import { controlFlowRules } from './control-flow.js';
import { convPoolRules } from './conv-pool.js';
import { elementwiseRules } from './elementwise.js';
import { generatorRules } from './generators.js';
import { indexingRules } from './indexing.js';
import { matmulRules } from './matmul.js';
import { normalizationRules } from './normalization.js';
import { recurrentRules } from './recurrent.js';
import { reduceRules } from './reduce.js';
import { reshapeRules } from './reshape.js';
import { selectRules } from './select.js';
import { sequenceRules } from './sequence.js';
import { signalTextRules } from './signal-text.js';
import { transformerRules } from './transformer.js';

export const SHAPE_RULES: ReadonlyMap<string, ShapeRule> = new Map(
  Object.entries({
    ...elementwiseRules,
    ...normalizationRules,
    ...convPoolRules,
    ...matmulRules,
    ...reshapeRules,
    ...indexingRules,
    ...selectRules,
    ...reduceRules,
    ...generatorRules,
    ...recurrentRules,
    ...signalTextRules,
    ...controlFlowRules,
    ...sequenceRules,
    ...transformerRules,
  }),
);
