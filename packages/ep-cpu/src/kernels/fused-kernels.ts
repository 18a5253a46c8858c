/** Kernels of the ops the CPU EP's fusion passes create (fusions/), beside the ONNX ones. */
import type { KernelDef } from '@switchyard/core';
import { fastGeluKernel } from './FastGelu.js';
import { fusedConvKernel } from './FusedConv.js';
import { fusedElementwiseKernel } from './FusedElementwise.js';
import { fusedGeluKernel } from './FusedGelu.js';
import { fusedLayerNormalizationKernel } from './FusedLayerNormalization.js';
import { fusedMatMulKernel } from './FusedMatMul.js';
import { quantizedConvKernel } from './QuantizedConv.js';
import { quantizedMatMulKernel } from './QuantizedMatMul.js';
import { quantizedAddKernel } from './QuantizedAdd.js';
import { dynamicQuantizedConvKernel } from './DynamicQuantizedConv.js';
import { dynamicQuantizedMatMulKernel } from './DynamicQuantizedMatMul.js';

export const fusedKernels: KernelDef[] = [
  fastGeluKernel,
  fusedConvKernel,
  fusedElementwiseKernel,
  fusedGeluKernel,
  fusedLayerNormalizationKernel,
  fusedMatMulKernel,
  quantizedConvKernel,
  quantizedMatMulKernel,
  quantizedAddKernel,
  dynamicQuantizedConvKernel,
  dynamicQuantizedMatMulKernel,
];
