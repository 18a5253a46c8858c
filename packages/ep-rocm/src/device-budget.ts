/**
 * What the ROCm EP holds in device memory, by kind, against `gpuMemLimit`. Every allocation the EP
 * makes or causes is charged here before it happens (or, for the libraries' workspaces, right after
 * the plan build that grew them): device tensors, each execution plan's arena (weights, plan inputs
 * and outputs, intermediates, step workspaces) and the BLAS/DNN workspaces its stream took. A charge
 * that would pass the limit is refused with an OUT_OF_MEMORY error saying what was asked, the limit
 * and what is in use.
 */
import { SwitchyardError } from '@switchyard/core';

export type DeviceChargeKind =
  /** Device tensors: partition outputs left on the device, uploaded inputs. */
  | 'tensors'
  /** Execution plans' arenas: weights, the plan's inputs and outputs, intermediates, step workspaces. */
  | 'plans'
  /** BLAS/DNN library workspaces taken for the plans' streams (cuBLAS's 32 MiB, cuDNN/MIOpen's). */
  | 'libraries';

export const DEVICE_CHARGE_KINDS: readonly DeviceChargeKind[] = ['tensors', 'plans', 'libraries'];

export interface DeviceUsage {
  limitBytes: number;
  inUseBytes: number;
  /** The most in use at once since the EP started. */
  peakBytes: number;
  byKind: Record<DeviceChargeKind, number>;
}

/** One charge: released once (later calls do nothing); `resize` changes it in place, checked like a new one. */
export interface DeviceCharge {
  readonly bytes: number;
  readonly kind: DeviceChargeKind;
  resize(bytes: number, what: string): void;
  release(): void;
}

const MiB = 2 ** 20;
function formatBytes(n: number): string {
  return n >= MiB ? `${n} bytes (${(n / MiB).toFixed(1)} MiB)` : `${n} bytes`;
}

export class DeviceBudget {
  readonly #inUse: Record<DeviceChargeKind, number> = { tensors: 0, plans: 0, libraries: 0 };
  #total = 0;
  #peak = 0;

  constructor(
    readonly location: string,
    readonly limitBytes: number,
  ) {}

  get inUseBytes(): number {
    return this.#total;
  }

  usage(): DeviceUsage {
    return { limitBytes: this.limitBytes, inUseBytes: this.#total, peakBytes: this.#peak, byKind: { ...this.#inUse } };
  }

  /** Throws OUT_OF_MEMORY when `bytes` more would pass the limit; `what` says what asked. */
  check(bytes: number, what: string): void {
    if (this.#total + bytes <= this.limitBytes) return;
    const parts = DEVICE_CHARGE_KINDS.filter((k) => this.#inUse[k] > 0).map((k) => `${k} ${this.#inUse[k]}`);
    const using = this.#total === 0 ? 'nothing in use' : `${formatBytes(this.#total)} in use: ${parts.join(', ')}`;
    throw new SwitchyardError('OUT_OF_MEMORY', `${this.location}: ${what} needs ${formatBytes(bytes)}, which would pass gpuMemLimit (${formatBytes(this.limitBytes)}; ${using})`);
  }

  /** Charges `bytes` of `kind` (checked against the limit first). */
  charge(kind: DeviceChargeKind, bytes: number, what: string): DeviceCharge {
    this.check(bytes, what);
    this.#add(kind, bytes);
    let held = bytes;
    let released = false;
    const budget = this;
    return {
      kind,
      get bytes() {
        return released ? 0 : held;
      },
      resize(next: number, why: string) {
        if (released || next === held) return;
        if (next > held) budget.check(next - held, why);
        budget.#add(kind, next - held);
        held = next;
      },
      release() {
        if (released) return;
        released = true;
        budget.#add(kind, -held);
      },
    };
  }

  #add(kind: DeviceChargeKind, bytes: number): void {
    this.#inUse[kind] += bytes;
    this.#total += bytes;
    this.#peak = Math.max(this.#peak, this.#total);
  }
}
