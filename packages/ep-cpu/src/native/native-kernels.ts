/**
 * The CPU EP's oneDNN kernel defs. Registered ahead of the TS kernels when the addon loads; each
 * def's `supports` declines (with the reason) what the addon does not do, so the TS kernel takes it.
 */
import type { KernelDef } from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { nativeBlockedKernels } from './blocked-native.js';
import { nativeConvKernels } from './conv-native.js';
import { nativeConvTransposeKernels } from './conv-transpose-native.js';
import { nativeConvDwKernels } from './conv-dw-native.js';
import { nativeConvConcatKernels } from './conv-concat-native.js';
import { nativeElementwiseKernels } from './elementwise-native.js';
import { nativeGeluKernels } from './gelu-native.js';
import { nativeInt8ConvKernels } from './int8-conv-native.js';
import { nativeInt8MatMulKernels } from './int8-matmul-native.js';
import { nativeGemmKernels } from './gemm-native.js';
import { nativeLstmKernels } from './lstm-native.js';
import { nativeRecurrentKernels } from './recurrent-native.js';
import { nativeMatMulKernels } from './matmul-native.js';
import { nativeNormKernels } from './norm-native.js';
import { nativeRmsNormKernels } from './rms-norm-native.js';
import { nativePoolKernels } from './pool-native.js';
import { nativeResizeKernels } from './resize-native.js';
import { nativeQuantizeKernels } from './quantize-native.js';
import { nativeAttentionKernels } from './attention-native.js';
import { nativeStridedMatMulKernels } from './strided-matmul-native.js';
import { nativeMovementKernels } from './movement-native.js';
import { nativeGatherKernels } from './gather-native.js';
import { nativePadKernels } from './pad-native.js';
import { nativeCastKernels } from './cast-native.js';
import { nativeReduceKernels } from './reduce-native.js';
import { nativeNonZeroKernels } from './nonzero-native.js';
import { nativeSoftmaxKernels } from './softmax-native.js';
import { nativeGroupNormKernels } from './group-norm-native.js';
import { nativeGridSampleKernels } from './grid-sample-native.js';
import { nativeRoiAlignKernels } from './roi-align-native.js';
import { nativeNmsKernels } from './nms-native.js';

/** `smallOpsInTs`: problems below native-support.ts's SMALL_* sizes stay with the TS kernels. */
export function nativeKernels(binding: NativeBinding, smallOpsInTs = true): KernelDef[] {
  return [
    ...nativeConvKernels(binding),
    ...nativeConvDwKernels(binding),
    ...nativeConvConcatKernels(binding),
    ...nativeConvTransposeKernels(binding),
    ...nativeMatMulKernels(binding),
    ...nativeGemmKernels(binding, smallOpsInTs),
    ...nativePoolKernels(binding),
    ...nativeLstmKernels(binding),
    ...nativeRecurrentKernels(binding),
    ...nativeGeluKernels(binding),
    ...nativeElementwiseKernels(binding, smallOpsInTs),
    ...nativeNormKernels(binding),
    ...nativeRmsNormKernels(binding),
    ...nativeBlockedKernels(binding),
    ...nativeStridedMatMulKernels(binding),
    ...nativeAttentionKernels(binding),
    ...nativeResizeKernels(binding),
    ...nativeQuantizeKernels(binding),
    ...nativeInt8ConvKernels(binding),
    ...nativeInt8MatMulKernels(binding),
    // The dtype-generic kernels (after the oneDNN ones: LayerNormalization's oneDNN rows come first).
    ...nativeMovementKernels(binding, smallOpsInTs),
    ...nativeGatherKernels(binding, smallOpsInTs),
    ...nativePadKernels(binding, smallOpsInTs),
    ...nativeCastKernels(binding, smallOpsInTs),
    ...nativeReduceKernels(binding, smallOpsInTs),
    ...nativeNonZeroKernels(binding, smallOpsInTs),
    ...nativeSoftmaxKernels(binding, smallOpsInTs),
    ...nativeGroupNormKernels(binding, smallOpsInTs),
    ...nativeGridSampleKernels(binding, smallOpsInTs),
    ...nativeRoiAlignKernels(binding, smallOpsInTs),
    ...nativeNmsKernels(binding),
  ];
}
