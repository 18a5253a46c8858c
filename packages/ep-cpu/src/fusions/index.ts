/**
 * The CPU EP's graph fusions for graphOptimizationLevel 'extended' and 'all', in the order they run:
 * float16 nodes first move to float32 (the oneDNN kernels and every fusion below serve float32) and
 * the Cast pairs that leaves collapse; a zero Pad becomes the padding of the Conv or AveragePool after it, and a
 * ReduceMean over every spatial axis a GlobalAveragePool; then BatchNormalization folds into Conv weights and GELU's erf form becomes one node before
 * Conv+Add+activation fuses, and the transformer patterns (LayerNorm, RMSNorm, GELU) are matched before
 * MatMul+Add so no pass breaks another's chain.
 */
import type { GraphPass } from '@switchyard/core';
import { float16InFloat32 } from './float16-in-float32.js';
import { castPairCollapse } from './cast-pair-collapse.js';
import { convBatchNormFolding } from './conv-batchnorm-folding.js';
import { padFusion } from './pad-fusion.js';
import { spatialMeanPool } from './spatial-mean-pool.js';
import { convActivationFusion } from './conv-activation-fusion.js';
import { layerNormFusion } from './layer-norm-fusion.js';
import { rmsNormFusion } from './rms-norm-fusion.js';
import { geluFusion } from './gelu-fusion.js';
import { matMulAddFusion } from './matmul-add-fusion.js';
import { blockedLayoutPass } from './blocked-layout.js';
import { blockedConvDwFusion } from './blocked-conv-dw-fusion.js';
import { blockedConvConcatFusion } from './blocked-conv-concat-fusion.js';
import { attentionMatMulFusion } from './attention-matmul-fusion.js';
import { einsumMatMul } from './einsum-matmul.js';
import { skipLayerNormFusion } from './skip-layer-norm-fusion.js';
import { elementwiseFusion } from './elementwise-fusion.js';
import { batchNormAffinePass } from './batchnorm-affine.js';
import { dynamicQuantizeFusion } from './dynamic-quantize-fusion.js';
import { qdqFusion } from './qdq-fusion.js';
import type { NativeBinding } from '../native/binding.js';
import { supportsBlockedLayout } from '../native/blocked-native.js';
import { isChannelBlock } from '../native/channel-blocked.js';
import { supportsStridedMatMulOp } from '../native/strided-matmul-native.js';
import { supportsSkipLayerNorm } from '../native/norm-native.js';

// GELU's erf form becomes one Gelu node before the conv fusion, which then takes it as a conv's activation.
export const cpuGraphPasses: GraphPass[] = [float16InFloat32, castPairCollapse, padFusion, spatialMeanPool, convBatchNormFolding, geluFusion, convActivationFusion, layerNormFusion, rmsNormFusion, matMulAddFusion];

/**
 * The passes for a CPU EP with (or without) the oneDNN addon: with it, activations also stay
 * channel-blocked between convolutions (last, once Conv+Add+activation chains are fused; then a 1x1
 * conv and the depthwise conv after it fuse into one primitive, and convs feeding a Concat write into
 * it), and the elementwise chains left over fuse into one native pass each. The blocked ops only have
 * oneDNN kernels, so without the addon those passes are left out.
 */
export function cpuGraphPassesFor(binding: NativeBinding | undefined): GraphPass[] {
  if (!binding) return cpuGraphPasses;
  // Elementwise chains fuse last, into what every pass before left unfused (a native engine op).
  const last = binding.ElementwisePrimitive ? [elementwiseFusion] : [];
  const passes = [...quantizedPasses(binding), ...cpuGraphPasses, ...oneDnnOnlyPasses(binding)];
  if (!supportsBlockedLayout(binding)) return [...passes, ...last];
  const block = binding.preferredChannelBlock!();
  if (!isChannelBlock(block)) return [...passes, ...last];
  // Once convs are BlockedConv: 1x1 + depthwise pairs fuse, and convs write straight into a Concat of them.
  const convDw = blockedConvDwFusion(binding);
  return [...passes, blockedLayoutPass(block), ...(convDw ? [convDw] : []), blockedConvConcatFusion, ...last];
}

/**
 * The quantized fusions (level 'all'), first: the QDQ pattern must see Conv → Relu → QuantizeLinear before
 * the conv fusions turn Conv + Relu into FusedConv. Their ops have TS kernels too, but only the addon runs
 * them faster than the unfused graph, so they are left out without it.
 */
function quantizedPasses(binding: NativeBinding): GraphPass[] {
  const passes: GraphPass[] = [];
  if (binding.DynamicQuantizedConvPrimitive && binding.DynamicQuantizedMatMulPrimitive) passes.push(dynamicQuantizeFusion);
  if (binding.QLinearConvPrimitive && binding.QLinearMatMulPrimitive) passes.push(qdqFusion);
  return passes;
}

/**
 * Fusions whose ops only the addon runs fast (the transformer's attention matmuls, residual Add +
 * LayerNorm): after MatMul+Add, so the bias Adds are taken first; left out without the addon.
 */
function oneDnnOnlyPasses(binding: NativeBinding): GraphPass[] {
  const passes: GraphPass[] = [];
  // A BatchNormalization no Conv absorbed becomes Mul + Add, which stay blocked and fuse with what follows.
  if (binding.ElementwisePrimitive) passes.push(batchNormAffinePass);
  if (supportsStridedMatMulOp(binding)) passes.push(attentionMatMulFusion, einsumMatMul);
  if (supportsSkipLayerNorm(binding)) passes.push(skipLayerNormFusion);
  return passes;
}

export {
  float16InFloat32,
  castPairCollapse,
  convBatchNormFolding,
  padFusion,
  convActivationFusion,
  layerNormFusion,
  geluFusion,
  matMulAddFusion,
  blockedLayoutPass,
  blockedConvDwFusion,
  blockedConvConcatFusion,
  attentionMatMulFusion,
  einsumMatMul,
  skipLayerNormFusion,
  elementwiseFusion,
  batchNormAffinePass,
  dynamicQuantizeFusion,
  qdqFusion,
};
