/** Every kernel of the nn family (convolution, pooling, normalization, softmax, recurrent, quantized). */
import type { KernelDef } from '@switchyard/core';
import { convKernel } from './Conv.js';
import { convTransposeKernel } from './ConvTranspose.js';
import { gemmKernel } from './Gemm.js';
import { matMulKernel } from './MatMul.js';
import { maxPoolKernel } from './MaxPool.js';
import { maxUnpoolKernel } from './MaxUnpool.js';
import { averagePoolKernel } from './AveragePool.js';
import { lpPoolKernel } from './LpPool.js';
import { globalAveragePoolKernel } from './GlobalAveragePool.js';
import { globalMaxPoolKernel } from './GlobalMaxPool.js';
import { globalLpPoolKernel } from './GlobalLpPool.js';
import { softmaxKernels } from './Softmax.js';
import { logSoftmaxKernels } from './LogSoftmax.js';
import { hardmaxKernels } from './Hardmax.js';
import { batchNormalizationKernel } from './BatchNormalization.js';
import { layerNormalizationKernel } from './LayerNormalization.js';
import { instanceNormalizationKernel } from './InstanceNormalization.js';
import { groupNormalizationKernel } from './GroupNormalization.js';
import { lrnKernel } from './LRN.js';
import { meanVarianceNormalizationKernel } from './MeanVarianceNormalization.js';
import { lpNormalizationKernel } from './LpNormalization.js';
import { dropoutKernel } from './Dropout.js';
import { resizeKernel } from './Resize.js';
import { upsampleKernel } from './Upsample.js';
import { roiAlignKernel } from './RoiAlign.js';
import { nonMaxSuppressionKernel } from './NonMaxSuppression.js';
import { rnnKernel } from './RNN.js';
import { gruKernel } from './GRU.js';
import { lstmKernel } from './LSTM.js';
import { quantizeLinearKernel } from './QuantizeLinear.js';
import { dequantizeLinearKernel } from './DequantizeLinear.js';
import { dynamicQuantizeLinearKernel } from './DynamicQuantizeLinear.js';
import { matMulIntegerKernel } from './MatMulInteger.js';
import { qLinearMatMulKernel } from './QLinearMatMul.js';
import { convIntegerKernel } from './ConvInteger.js';
import { qLinearConvKernel } from './QLinearConv.js';
import { fusedRmsNormalizationKernel, rmsNormalizationKernel } from './RMSNormalization.js';
import { rotaryEmbeddingKernel } from './RotaryEmbedding.js';
import { causalConvWithStateKernel } from './CausalConvWithState.js';
import { linearAttentionKernel } from './LinearAttention.js';
import { attentionKernel } from './Attention.js';
import { flexAttentionKernel } from './FlexAttention.js';

export const nnKernels: KernelDef[] = [
  convKernel,
  convTransposeKernel,
  gemmKernel,
  matMulKernel,
  maxPoolKernel,
  maxUnpoolKernel,
  averagePoolKernel,
  lpPoolKernel,
  globalAveragePoolKernel,
  globalMaxPoolKernel,
  globalLpPoolKernel,
  ...softmaxKernels,
  ...logSoftmaxKernels,
  ...hardmaxKernels,
  batchNormalizationKernel,
  layerNormalizationKernel,
  instanceNormalizationKernel,
  groupNormalizationKernel,
  lrnKernel,
  meanVarianceNormalizationKernel,
  lpNormalizationKernel,
  dropoutKernel,
  resizeKernel,
  upsampleKernel,
  roiAlignKernel,
  nonMaxSuppressionKernel,
  rnnKernel,
  gruKernel,
  lstmKernel,
  quantizeLinearKernel,
  dequantizeLinearKernel,
  dynamicQuantizeLinearKernel,
  matMulIntegerKernel,
  qLinearMatMulKernel,
  convIntegerKernel,
  qLinearConvKernel,
  rmsNormalizationKernel,
  fusedRmsNormalizationKernel,
  rotaryEmbeddingKernel,
  causalConvWithStateKernel,
  linearAttentionKernel,
  attentionKernel,
  flexAttentionKernel,
];
