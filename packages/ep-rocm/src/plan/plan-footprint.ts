/**
 * The device memory one execution plan takes, read from its description before anything is
 * allocated: the plan's own arena (one hipMalloc of `arenaBytes` holding its weights, its inputs and
 * outputs, the intermediates and the step workspaces) and the BLAS workspace its stream's cuBLAS
 * handle gets from the device's default arena (blas_backend.cc: 32 MiB, when a step may call the
 * BLAS library). The DNN libraries' workspaces depend on the algorithm each convolution picks, which
 * only the plan build knows: the EP measures them then (rocm-partition.ts), this module cannot.
 */
import type { PlanDescription, PlanStepDescription } from './plan-description.js';

/** blas_backend.cc's kWorkspaceBytes: the workspace every cuBLAS handle (one per plan stream) is given. */
export const CUBLAS_WORKSPACE_BYTES = 32 * 2 ** 20;

export interface PlanFootprint {
  /** The plan's arena: everything below except the library workspace. */
  arenaBytes: number;
  /** Constants uploaded into the arena (weights as the plan holds them: float16, TF32-split, 2-D views). */
  weightsBytes: number;
  /** The largest step workspace inside the arena (im2col, TF32 split scratch). */
  stepWorkspaceBytes: number;
  /** What the rest of the arena holds: the plan's inputs and outputs and its intermediates at their peak. */
  activationBytes: number;
  /** The BLAS workspace expected for the plan's stream (0 when no step calls the BLAS library). */
  libraryBytes: number;
}

const BLAS_STEPS: ReadonlySet<string> = new Set(['MatMul', 'MatMulStrided', 'MatMulBias', 'Gemm', 'MatMulSplitTf32']);

/**
 * Whether a step may call the BLAS library: the GEMM steps, and the convolutions that have an
 * im2col + GEMM form the plan build times against the DNN library (an NCHW Conv of group 1; a
 * channels-last 1x1 one). Conv attrs start [group, ...].
 */
export function mayCallBlas(step: PlanStepDescription): boolean {
  if (BLAS_STEPS.has(step.op)) return true;
  return (step.op === 'Conv' || step.op === 'ConvNHWC') && step.attrs[0] === 1;
}

/** `blasWorkspaceBytes`: what a stream's BLAS handle takes from the default arena (CUBLAS_WORKSPACE_BYTES on cuBLAS, 0 where the library keeps its own). */
export function planFootprint(description: PlanDescription, blasWorkspaceBytes: number): PlanFootprint {
  let weightsBytes = 0;
  for (const c of description.constants) weightsBytes += description.buffers[c.buffer].bytes;
  let stepWorkspaceBytes = 0;
  for (const s of description.steps) stepWorkspaceBytes = Math.max(stepWorkspaceBytes, s.workspace?.bytes ?? 0);
  const libraryBytes = description.steps.some(mayCallBlas) ? blasWorkspaceBytes : 0;
  const activationBytes = Math.max(0, description.arenaBytes - weightsBytes - stepWorkspaceBytes);
  return { arenaBytes: description.arenaBytes, weightsBytes, stepWorkspaceBytes, activationBytes, libraryBytes };
}
