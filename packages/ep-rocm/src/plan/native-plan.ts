/**
 * The plan part of the native-hip binding, declared here (its C++ lives in
 * native-hip/src/native/plan): older builds lack it, which the EP reports as a reason.
 */
import type { DeviceBuffer } from '@switchyard/native-hip';
import type { PlanDescription } from './plan-description.js';

export interface NativeExecutionPlan {
  readonly arenaBytes: number;
  readonly stepCount: number;
  /** True once the steps were captured into a HIP/CUDA graph (from the second run on, when asked). */
  readonly graphCaptured: boolean;
  /** Why capture is not used, when it was asked for and fell back. */
  readonly graphNote: string;
  readonly runs: number;
  /** Device time of the last run's steps in ms (HIP/CUDA events around the launches, copies excluded); -1 before the first. */
  readonly lastGpuMs: number;
  /** Host milliseconds the last run spent queuing its steps (or launching its graph); absent in older builds. */
  readonly lastHostLaunchMs?: number;
  /** Host milliseconds of the last run's input copies and host output copies; absent in older builds. */
  readonly lastCopyMs?: { in: number; out: number };
  /**
   * Where the last run's time went, in ms: host wall time of the whole run (from its first copy)
   * and of its phases (queuing the input copies, launching, waiting for the steps, draining host outputs), and
   * the device time of the input and output copies; absent in older builds.
   */
  readonly lastRunPhasesMs?: {
    execute: number;
    copyIn: number;
    launch: number;
    waitSteps: number;
    drain: number;
    deviceCopyIn: number;
    deviceCopyOut: number;
    /** Whether the run began on the JS thread (a graph replay with small host inputs). */
    onCaller: boolean;
  };
  /** Each step's device ms in the last eager run when the plan was built with SWITCHYARD_PLAN_PROFILE=1; else empty. */
  readonly lastStepMs?: number[];
  /**
   * What each step's check chose and why, '' where there was no choice (a Conv: the DNN library or
   * im2col + GEMM, with both timings); absent in older builds.
   */
  readonly stepNotes?: string[];
  /** [async] Copies inputs in, runs every step, copies outputs out, waits. */
  run(inputs: ReadonlyArray<ArrayBufferView | DeviceBuffer>, outputs: ReadonlyArray<ArrayBufferView | DeviceBuffer>): Promise<void>;
  dispose(): void;
}

export interface PlanBinding {
  ExecutionPlan: new (description: PlanDescription) => NativeExecutionPlan;
  planStepOps(): string[];
  /** The device's free and total memory as the driver reports it (absent in older builds). */
  planDeviceMemory?(deviceId: number): { free: number; total: number };
  /** [lo | hi | hi] TF32 parts of a 3xTF32 product's weight (absent in older builds). */
  planSplitTf32?(weights: Float32Array): Float32Array;
}

export function hasPlanBinding(binding: object): binding is PlanBinding {
  const b = binding as Partial<Record<keyof PlanBinding, unknown>>;
  return typeof b.ExecutionPlan === 'function' && typeof b.planStepOps === 'function';
}
