/**
 * Workspace for Conv steps that may run as im2col + GEMM (native-hip plan/conv_gemm.h). The native
 * check times that form against the DNN library's convolution and keeps the faster; it needs a
 * buffer for the im2col matrix [n, c*kh*kw, oh*ow]. Only the step itself reads it, so the arena
 * shares that memory with every buffer not live at the step.
 */
import { BYTES_PER_ELEMENT, dataTypeFromOnnx } from '@switchyard/core';

/**
 * The largest im2col buffer a step is given. Past it (ResNet-50's 56x56 layers at batch 8 and up)
 * the library's convolution keeps the step: batches that large fill the GPU without a GEMM split,
 * and the arena stays what it was.
 */
export const MAX_IM2COL_BYTES = 32 * 2 ** 20;

interface StepLike {
  op: string;
  attrs: number[];
  inputs: number[];
  outputs: number[];
}
interface BufferLike {
  dtype: number;
  dims: number[];
}

/** A Conv step whose begin and end pads differ on an axis: the DNN library declines it, the GEMM form runs it. */
export function asymmetricPads(step: StepLike): boolean {
  return step.attrs[1] !== step.attrs[3] || step.attrs[2] !== step.attrs[4];
}

/**
 * Bytes of im2col workspace a step should get: 0 for anything but an NCHW Conv (or ConvIntegerF32) of group 1, for a
 * 1x1 stride-1 unpadded Conv (its input is the GEMM operand as it is) and past MAX_IM2COL_BYTES
 * (unless the pads are asymmetric).
 * Conv attrs: [group, pad_top, pad_left, pad_bottom, pad_right, stride_h, stride_w, ...].
 */
export function im2colBytes(step: StepLike, buffers: readonly BufferLike[]): number {
  if ((step.op !== 'Conv' && step.op !== 'ConvIntegerF32') || step.attrs[0] !== 1 || step.inputs.length < 2 || step.inputs[0] < 0 || step.inputs[1] < 0) return 0;
  const x = buffers[step.inputs[0]].dims;
  const w = buffers[step.inputs[1]].dims;
  const y = buffers[step.outputs[0]].dims;
  if (x.length !== 4 || w.length !== 4 || y.length !== 4) return 0;
  const [, , kh, kw] = w;
  const pads = step.attrs.slice(1, 5);
  const [strideH, strideW] = step.attrs.slice(5, 7);
  if (kh === 1 && kw === 1 && strideH === 1 && strideW === 1 && pads.every((p) => p === 0)) return 0;
  const type = dataTypeFromOnnx(buffers[step.inputs[0]].dtype);
  const size = type ? BYTES_PER_ELEMENT[type] : 0;
  const bytes = x[0] * x[1] * kh * kw * y[2] * y[3] * (size ?? 0);
  // Asymmetric pads have no other form on the GPU: they get their workspace whatever its size.
  return bytes <= MAX_IM2COL_BYTES || asymmetricPads(step) ? bytes : 0;
}
