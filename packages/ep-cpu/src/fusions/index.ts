/**
 * The CPU EP's graph fusions for graphOptimizationLevel 'extended' and 'all', in the order they run:
 * BatchNormalization folds into Conv weights before Conv+Add+activation fuses, and the transformer
 * patterns (LayerNorm, GELU) are matched before MatMul+Add so no pass breaks another's chain.
 */
import type { GraphPass } from '@switchyard/core';
import { convBatchNormFolding } from './conv-batchnorm-folding.js';
import { convActivationFusion } from './conv-activation-fusion.js';
import { layerNormFusion } from './layer-norm-fusion.js';
import { geluFusion } from './gelu-fusion.js';
import { matMulAddFusion } from './matmul-add-fusion.js';

export const cpuGraphPasses: GraphPass[] = [convBatchNormFolding, convActivationFusion, layerNormFusion, geluFusion, matMulAddFusion];

export { convBatchNormFolding, convActivationFusion, layerNormFusion, geluFusion, matMulAddFusion };
