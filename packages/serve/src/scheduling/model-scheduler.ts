/**
 * The queue in front of one model version's instances. Requests wait in groups of equal stack key;
 * whenever an instance is idle, the group whose oldest request is oldest and that is ready — full
 * (`maxBatchSize` rows), or its oldest request has waited `maxQueueDelayMs`, or batching is off —
 * goes to the idle instance that has run least, stacked into one run when it holds several
 * requests, and the outputs are split back. A device failure takes the instance (and every
 * instance on its device) out and its batch is queued again once for the instances left.
 */
import type { Tensor } from '@switchyard/core';
import { unavailable } from '../protocol/errors.js';
import type { DynamicBatchingConfig } from '../repository/model-config.js';
import { isDeviceFailure, type ModelInstance } from './model-instance.js';
import { splitResults, stackFeeds, stackKeyOf, type Feeds } from './stacking.js';

export interface SchedulerObserver {
  queueDepth(depth: number): void;
  /** One run: `rows` along the batch dim from `requests` requests. */
  batchRun(rows: number, requests: number): void;
  instancesChanged(): void;
}

export interface SchedulerOptions {
  /** Undefined: every request runs alone. */
  batching: DynamicBatchingConfig | undefined;
  maxQueueLength: number;
  observer?: SchedulerObserver;
  /** Told of a device failure, so other models' instances on that device go out too. */
  onDeviceFailure?: (deviceId: number, reason: string) => void;
}

interface Pending {
  feeds: Feeds;
  rows: number;
  key: string;
  enqueuedAt: number;
  /** Runs this request was part of that failed on a device. */
  deviceFailures: number;
  resolve: (out: Record<string, Tensor>) => void;
  reject: (err: unknown) => void;
}

export class ModelScheduler {
  readonly #instances: readonly ModelInstance[];
  readonly #options: SchedulerOptions;
  readonly #groups = new Map<string, Pending[]>();
  #queued = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  #draining = false;
  #idleWaiters: Array<() => void> = [];
  #solo = 0;

  constructor(instances: readonly ModelInstance[], options: SchedulerOptions) {
    this.#instances = instances;
    this.#options = options;
  }

  get instances(): readonly ModelInstance[] {
    return this.#instances;
  }

  get healthyInstances(): number {
    return this.#instances.filter((i) => i.healthy).length;
  }

  get queued(): number {
    return this.#queued;
  }

  /** Queues one validated request; resolves with its outputs. Refuses (503) when full or without instances. */
  submit(feeds: Feeds): Promise<Record<string, Tensor>> {
    if (this.healthyInstances === 0) return Promise.reject(unavailable(this.#noInstanceMessage()));
    if (this.#queued >= this.#options.maxQueueLength) {
      return Promise.reject(unavailable(`the model's queue is full (${this.#options.maxQueueLength} requests waiting); retry later`));
    }
    const stack = this.#options.batching ? stackKeyOf(feeds) : undefined;
    return new Promise((resolve, reject) => {
      const pending: Pending = {
        feeds,
        rows: stack?.rows ?? 1,
        key: stack?.key ?? `solo:${this.#solo++}`,
        enqueuedAt: performance.now(),
        deviceFailures: 0,
        resolve,
        reject,
      };
      this.#enqueue(pending, 'back');
      this.#dispatch();
    });
  }

  /**
   * Runs what is queued without waiting for batches to fill, from now on, and resolves when idle.
   * Requests still arriving are served the same way: the HTTP server, not the queue, refuses new ones.
   */
  drain(): Promise<void> {
    this.#draining = true;
    this.#dispatch();
    if (this.#idle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Takes out every healthy instance on `deviceId` (another model saw the device fail). */
  takeOutDevice(deviceId: number, reason: string): void {
    let changed = false;
    for (const inst of this.#instances) {
      if (inst.healthy && inst.deviceId === deviceId) {
        inst.takeOut(reason);
        changed = true;
      }
    }
    if (changed) this.#afterInstancesChanged();
  }

  #idle(): boolean {
    return this.#queued === 0 && this.#instances.every((i) => i.inFlight === 0);
  }

  #noInstanceMessage(): string {
    const reasons = [...new Set(this.#instances.map((i) => i.failure).filter(Boolean))];
    return `no healthy instance of this model is left (${reasons.join('; ')})`;
  }

  #enqueue(p: Pending, end: 'front' | 'back'): void {
    let group = this.#groups.get(p.key);
    if (!group) this.#groups.set(p.key, (group = []));
    if (end === 'back') group.push(p);
    else group.unshift(p);
    this.#queued++;
    this.#options.observer?.queueDepth(this.#queued);
  }

  #dispatch(): void {
    while (this.#queued > 0) {
      const instance = this.#idleInstance();
      if (!instance) return;
      const group = this.#readyGroup();
      if (!group) return;
      this.#run(instance, this.#takeBatch(group));
    }
    if (this.#idle()) for (const wake of this.#idleWaiters.splice(0)) wake();
  }

  #idleInstance(): ModelInstance | undefined {
    let best: ModelInstance | undefined;
    for (const inst of this.#instances) {
      if (!inst.healthy || inst.inFlight > 0) continue;
      if (!best || inst.runs < best.runs) best = inst;
    }
    return best;
  }

  /** The ready group with the oldest head; arms the timer for the first one to become ready. */
  #readyGroup(): Pending[] | undefined {
    const batching = this.#options.batching;
    const now = performance.now();
    let ready: Pending[] | undefined;
    let nextDeadline = Infinity;
    for (const [key, group] of this.#groups) {
      if (group.length === 0) {
        this.#groups.delete(key);
        continue;
      }
      const head = group[0];
      const deadline = head.enqueuedAt + (batching?.maxQueueDelayMs ?? 0);
      const full = !batching || group.reduce((n, p) => n + p.rows, 0) >= batching.maxBatchSize;
      if (full || this.#draining || key.startsWith('solo:') || deadline <= now) {
        if (!ready || head.enqueuedAt < ready[0].enqueuedAt) ready = group;
      } else {
        nextDeadline = Math.min(nextDeadline, deadline);
      }
    }
    if (!ready && nextDeadline < Infinity) this.#armTimer(nextDeadline, now);
    return ready;
  }

  #armTimer(at: number, now: number): void {
    if (this.#timer && this.#timerAt <= at) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      this.#dispatch();
    }, Math.max(0, Math.ceil(at - now)));
  }

  /** Up to `maxBatchSize` rows from the front of a group (always at least one request). */
  #takeBatch(group: Pending[]): Pending[] {
    const max = this.#options.batching?.maxBatchSize ?? 1;
    const batch = [group.shift()!];
    let rows = batch[0].rows;
    while (group.length > 0 && rows + group[0].rows <= max) {
      rows += group[0].rows;
      batch.push(group.shift()!);
    }
    this.#queued -= batch.length;
    this.#options.observer?.queueDepth(this.#queued);
    return batch;
  }

  #run(instance: ModelInstance, batch: Pending[]): void {
    instance.inFlight++;
    void this.#runBatch(instance, batch).finally(() => {
      instance.inFlight--;
      instance.runs++;
      this.#dispatch();
    });
  }

  async #runBatch(instance: ModelInstance, batch: Pending[]): Promise<void> {
    this.#options.observer?.batchRun(batch.reduce((n, p) => n + p.rows, 0), batch.length);
    try {
      if (batch.length === 1) {
        batch[0].resolve(await instance.run(batch[0].feeds));
        return;
      }
      const outputs = await instance.run(stackFeeds(batch.map((p) => p.feeds)));
      splitResults(outputs, batch.map((p) => p.rows)).forEach((share, i) => batch[i].resolve(share));
    } catch (err) {
      if (isDeviceFailure(err, instance)) return this.#onDeviceFailure(instance, batch, err);
      if (batch.length === 1) return batch[0].reject(err);
      // One bad request must not fail the others it was stacked with: run each alone.
      for (const p of batch) {
        try {
          p.resolve(await instance.run(p.feeds));
        } catch (each) {
          if (isDeviceFailure(each, instance)) return this.#onDeviceFailure(instance, batch.slice(batch.indexOf(p)), each);
          p.reject(each);
        }
      }
    }
  }

  #onDeviceFailure(instance: ModelInstance, batch: Pending[], err: unknown): void {
    const where = instance.deviceId === undefined ? `instance ${instance.index}` : `device ${instance.deviceId}`;
    const reason = `${where} failed: ${(err as Error)?.message ?? String(err)}`;
    if (instance.deviceId !== undefined) {
      this.takeOutDevice(instance.deviceId, reason);
      this.#options.onDeviceFailure?.(instance.deviceId, reason);
    } else {
      instance.takeOut(reason);
      this.#afterInstancesChanged();
    }
    // Each request gets one more try on the instances left, ahead of newer requests.
    for (const p of [...batch].reverse()) {
      p.deviceFailures++;
      if (p.deviceFailures > 1 || this.healthyInstances === 0) p.reject(unavailable(`${reason}; the request was not run`));
      else this.#enqueue(p, 'front');
    }
  }

  #afterInstancesChanged(): void {
    this.#options.observer?.instancesChanged();
    if (this.healthyInstances > 0) return;
    // Nothing can run what is queued: answer it now rather than let it wait forever.
    const message = this.#noInstanceMessage();
    for (const group of this.#groups.values()) for (const p of group.splice(0)) p.reject(unavailable(message));
    this.#queued = 0;
    this.#options.observer?.queueDepth(0);
  }
}
