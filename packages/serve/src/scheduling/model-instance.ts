/**
 * One session of a model in a pool, with the state the scheduler balances on (runs in flight) and
 * the state it protects the server with (taken out after a device failure).
 */
import type { Tensor } from '@switchyard/core';

/** What an instance runs: an `InferenceSession`, or anything shaped like its run/release. */
export interface Runner {
  run(feeds: Record<string, Tensor>): Promise<Record<string, unknown>>;
  release(): Promise<void>;
}

export class ModelInstance {
  /** Batches running now (the scheduler gives an instance one at a time). */
  inFlight = 0;
  /** Runs completed, to spread work evenly among idle instances. */
  runs = 0;
  /** Why the instance was taken out; undefined while it serves. */
  failure: string | undefined;

  constructor(
    readonly index: number,
    readonly runner: Runner,
    /** The device the config gave it, for instances of GPU EPs. */
    readonly deviceId: number | undefined,
    /** The EPs its session placed nodes on (node counts), for the metrics. */
    readonly placement: ReadonlyArray<{ ep: string; nodes: number }>,
  ) {}

  get healthy(): boolean {
    return this.failure === undefined;
  }

  async run(feeds: Record<string, Tensor>): Promise<Record<string, Tensor>> {
    return (await this.runner.run(feeds)) as Record<string, Tensor>;
  }

  /** Takes the instance out of service and frees its session; idempotent. */
  takeOut(reason: string): void {
    if (this.failure !== undefined) return;
    this.failure = reason;
    void this.runner.release().catch(() => undefined);
  }
}

/**
 * Whether a failed run means the instance's device is broken (take it out) rather than that the
 * request or the model could not be run (answer the request, keep the instance). An EP failure
 * always counts; out-of-memory and runtime errors count on instances bound to a device, where they
 * come from the device's runtime, not from a kernel's check of its inputs.
 */
export function isDeviceFailure(err: unknown, instance: ModelInstance): boolean {
  // By name and code, not instanceof: an EP package may bring its own copy of core.
  const e = err as { name?: unknown; code?: unknown } | undefined;
  const onDevice = instance.deviceId !== undefined;
  if (e?.name !== 'SwitchyardError') return onDevice;
  if (e.code === 'EP_FAILED') return true;
  return onDevice && (e.code === 'OUT_OF_MEMORY' || e.code === 'RUNTIME');
}
