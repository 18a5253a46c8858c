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
    /** Whether it also ended there, polled from the event loop (`start`/`poll`); absent in older builds. */
    polled?: boolean;
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
  /**
   * [sync] Begins a graph replay with small host inputs and outputs on the JS thread and returns true:
   * `poll()` then finishes it. Anything else runs as `run` and returns its promise. Absent in older builds.
   */
  start?(inputs: ReadonlyArray<ArrayBufferView | DeviceBuffer>, outputs: ReadonlyArray<ArrayBufferView | DeviceBuffer>): true | Promise<void>;
  /** [sync] Whether the run `start` began is done, its host outputs drained; throws its failure. */
  poll?(): boolean;
  dispose(): void;
}

/**
 * Runs a plan. A run that `start` began on the JS thread is polled from the event loop, once per
 * turn (setImmediate), until the GPU is done: the loop never sleeps meanwhile, so the end is seen
 * within microseconds and other callbacks still run in between -- where a worker thread's
 * completion costs a wake of that thread and then of the JS thread (~0.1 ms on the H200 host).
 * The CPU cost is the same as the worker's: one core spins on the GPU either way.
 */
export function runPlan(plan: NativeExecutionPlan, inputs: ReadonlyArray<ArrayBufferView | DeviceBuffer>, outputs: ReadonlyArray<ArrayBufferView | DeviceBuffer>): Promise<void> {
  if (!plan.start || !plan.poll) return plan.run(inputs, outputs);
  const started = plan.start(inputs, outputs);
  if (started !== true) return started;
  const poll = plan.poll.bind(plan);
  return new Promise((resolve, reject) => {
    const turn = (): void => {
      try {
        if (poll()) resolve();
        else setImmediate(turn);
      } catch (error) {
        reject(error as Error);
      }
    };
    setImmediate(turn);
  });
}

export interface PlanBinding {
  ExecutionPlan: new (description: PlanDescription) => NativeExecutionPlan;
  planStepOps(): string[];
  /** The device's free and total memory as the driver reports it (absent in older builds). */
  planDeviceMemory?(deviceId: number): { free: number; total: number };
  /** The device's default arena (the BLAS/DNN workspaces): what plan builds took from it (absent in older builds). */
  defaultArenaStats?(deviceId: number): { inUse: number; reserved: number };
  /** [lo | hi | hi] TF32 parts of a 3xTF32 product's weight (absent in older builds). */
  planSplitTf32?(weights: Float32Array): Float32Array;
}

export function hasPlanBinding(binding: object): binding is PlanBinding {
  const b = binding as Partial<Record<keyof PlanBinding, unknown>>;
  return typeof b.ExecutionPlan === 'function' && typeof b.planStepOps === 'function';
}
