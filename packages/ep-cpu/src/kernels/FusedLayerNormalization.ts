/**
 * com.microsoft LayerNormalization: onnxruntime's contrib op with ai.onnx LayerNormalization-17's
 * inputs, outputs and attributes (axis, epsilon, stash_type). The LayerNorm fusion emits it for models
 * whose ai.onnx opset is below 17; the computation is the opset-17 kernel's.
 */
import { defineKernel } from '@switchyard/core';
import { layerNormalizationKernel } from './LayerNormalization.js';

export const fusedLayerNormalizationKernel = defineKernel({
  ep: 'cpu',
  domain: 'com.microsoft',
  opType: 'LayerNormalization',
  sinceVersion: 1,
  create: layerNormalizationKernel.create,
});
