/**
 * The device memory one execution plan takes, read from its description before anything is
 * allocated: the plan's own arena (one hipMalloc of `arenaBytes` holding its weights, its inputs and
 * outputs, the intermediates and the step workspaces) and the BLAS workspace its stream's cuBLAS
 * handle gets from the device's default arena (blas_cublas.cc: 32 MiB, when a step may call the
 * BLAS library), and the DNN library's workspace as far as the algorithm cache knows the algorithms
 * the convolutions will pick (library-caches.ts). The plan build itself measures what the libraries
 * took (rocm-partition.ts); this is the figure before it.
 */
import { convFormProblem, dnnWorkspaceBytes, type ConvAlgoCache, type ConvFormCache } from './library-caches.js';
import type { PlanBuffer, PlanDescription, PlanStepDescription } from './plan-description.js';

/** blas_cublas.cc's kWorkspaceBytes: the workspace every cuBLAS handle (one per plan stream) is given. */
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
  /** The library workspaces expected for the plan's stream: BLAS (0 when no step calls the library) and DNN (from the algorithm cache), with the handles' own state on a new stream. */
  libraryBytes: number;
}

/** What a plan stream's libraries take from the default arena, as far as the EP can tell before a build. */
export interface LibraryWorkspaces {
  /** A BLAS handle's workspace: CUBLAS_WORKSPACE_BYTES on cuBLAS, 0 where the library keeps its own. */
  blasWorkspaceBytes: number;
  /** The convolution algorithm cache (read when asked: a search in another session may have added to it). */
  convAlgoCache(): ConvAlgoCache;
  /** The Conv forms timed before. */
  convFormCache(): ConvFormCache;
  /**
   * What the last DNN and BLAS handle made on the device kept of its own (outside every arena): a plan
   * on a new stream gets new handles. 0 until the process made one (absent: 0).
   */
  handleBytes?(): { dnn: number; blas: number };
}

export const NO_LIBRARY_WORKSPACES: LibraryWorkspaces = { blasWorkspaceBytes: 0, convAlgoCache: () => new Map(), convFormCache: () => new Map() };

const BLAS_STEPS: ReadonlySet<string> = new Set(['MatMul', 'MatMulStrided', 'MatMulBias', 'Gemm', 'MatMulSplitTf32']);

/**
 * Whether a Conv step has an im2col + GEMM form (step_ops_dnn.cc): NCHW of group 1; channels-last
 * only unpadded 1x1 stride 1. Attrs [group, pads t l b r, strides h w, ...]; W [k, kh, kw, c/g] in NHWC.
 */
function hasGemmForm(step: PlanStepDescription, buffers: readonly PlanBuffer[]): boolean {
  if (step.op === 'Conv' || step.op === 'ConvIntegerF32') return step.attrs[0] === 1;
  if (step.op !== 'ConvNHWC' || step.attrs[0] !== 1 || step.inputs[1] < 0) return false;
  const w = buffers[step.inputs[1]].dims;
  return w[1] === 1 && w[2] === 1 && step.attrs.slice(1, 5).every((p) => p === 0) && step.attrs[5] === 1 && step.attrs[6] === 1;
}

/**
 * Whether a step will call the BLAS library at plan build: the GEMM steps, and a Conv with a GEMM
 * form that the build prepares -- with tuning on, unless the form cache says its problem runs as the
 * library's convolution (with cached choices only, when the cache has it at all).
 */
export function mayCallBlas(step: PlanStepDescription, buffers: readonly PlanBuffer[], tuning: 0 | 1 | 2 = 2, forms: ConvFormCache = new Map()): boolean {
  if (BLAS_STEPS.has(step.op)) return true;
  if (!hasGemmForm(step, buffers) || tuning === 0) return false;
  const seen = forms.get(convFormProblem(step, buffers) ?? '');
  if (!seen) return tuning === 2;
  return seen.has('gemm');
}

export function planFootprint(description: PlanDescription, libraries: LibraryWorkspaces = NO_LIBRARY_WORKSPACES): PlanFootprint {
  let weightsBytes = 0;
  for (const c of description.constants) weightsBytes += description.buffers[c.buffer].bytes;
  let stepWorkspaceBytes = 0;
  for (const s of description.steps) stepWorkspaceBytes = Math.max(stepWorkspaceBytes, s.workspace?.bytes ?? 0);
  const hasConv = description.steps.some((s) => s.op === 'Conv' || s.op === 'ConvNHWC' || s.op === 'ConvIntegerF32');
  const forms = hasConv ? libraries.convFormCache() : new Map<string, Set<string>>();
  const callsBlas = description.steps.some((s) => mayCallBlas(s, description.buffers, description.tuning, forms));
  const handles = callsBlas || hasConv ? libraries.handleBytes?.() : undefined;
  const blas = callsBlas ? libraries.blasWorkspaceBytes + (handles?.blas ?? 0) : 0;
  const dnn = hasConv ? dnnWorkspaceBytes(description.steps, description.buffers, libraries.convAlgoCache()) + (handles?.dnn ?? 0) : 0;
  const libraryBytes = blas + dnn;
  const activationBytes = Math.max(0, description.arenaBytes - weightsBytes - stepWorkspaceBytes);
  return { arenaBytes: description.arenaBytes, weightsBytes, stepWorkspaceBytes, activationBytes, libraryBytes };
}
