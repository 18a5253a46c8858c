/**
 * The served models: every version of every model in the repository, each with its pool of
 * instances behind a scheduler. A version whose sessions cannot be made stays listed as unavailable
 * with the reason, so the rest of the repository is still served and `ready` says what is wrong.
 */
import { InferenceSession, type ExecutionProviderOption, type SessionOptions } from '@switchyard/core';
import type { ServerMetrics } from '../metrics.js';
import { notFound } from '../protocol/errors.js';
import { signatureOf, type ModelSignature } from '../protocol/signature.js';
import { ModelInstance } from '../scheduling/model-instance.js';
import { ModelScheduler } from '../scheduling/model-scheduler.js';
import { whyNotBatchable } from '../scheduling/stacking.js';
import { deviceIdFor, executionProvidersFor, type ModelConfig } from './model-config.js';
import { scanRepository, type RepositoryModel } from './scan-repository.js';

export interface InstanceContext {
  model: string;
  version: string;
  index: number;
  deviceId: number | undefined;
}

/** Makes one instance's session; the default is `InferenceSession.create(file, options)`. */
export type CreateSession = (file: string, options: SessionOptions, where: InstanceContext) => Promise<InferenceSession>;

export interface RegistryOptions {
  /** EPs for models whose config names none. Default: every registered EP, then CPU. */
  defaultExecutionProviders?: ReadonlyArray<string | ExecutionProviderOption>;
  createSession?: CreateSession;
  metrics: ServerMetrics;
  log?: (line: string) => void;
}

export interface ServedVersion {
  model: string;
  version: string;
  config: ModelConfig;
  /** Set once the version's instances are up. */
  signature?: ModelSignature;
  scheduler?: ModelScheduler;
  /** Why the version cannot serve (load failed), when it cannot. */
  loadError?: string;
}

export class ModelRegistry {
  readonly #models = new Map<string, { versions: Map<string, ServedVersion>; latest: string }>();
  readonly #options: RegistryOptions;

  private constructor(options: RegistryOptions) {
    this.#options = options;
  }

  /** Scans `root` and makes every version's instances, one session at a time. */
  static async load(root: string, options: RegistryOptions): Promise<ModelRegistry> {
    const registry = new ModelRegistry(options);
    for (const model of scanRepository(root)) await registry.#loadModel(model);
    return registry;
  }

  get modelNames(): string[] {
    return [...this.#models.keys()];
  }

  versionsOf(model: string): string[] {
    return [...(this.#entry(model).versions.keys())];
  }

  /** A model's version, the highest one when `version` is undefined; 404 when either is unknown. */
  get(model: string, version?: string): ServedVersion {
    const entry = this.#entry(model);
    const v = entry.versions.get(version ?? entry.latest);
    if (!v) throw notFound(`model '${model}' has no version '${version}'; its versions are ${[...entry.versions.keys()].join(', ')}`);
    return v;
  }

  /** Every version that is loaded and has a healthy instance. */
  get ready(): boolean {
    return [...this.#all()].every(isReady);
  }

  /** Finishes queued and running requests of every model; refuses new ones meanwhile. */
  async drain(): Promise<void> {
    await Promise.all([...this.#all()].map((v) => v.scheduler?.drain()));
  }

  async release(): Promise<void> {
    for (const v of this.#all()) for (const inst of v.scheduler?.instances ?? []) inst.takeOut('the server shut down');
  }

  *#all(): Iterable<ServedVersion> {
    for (const { versions } of this.#models.values()) yield* versions.values();
  }

  #entry(model: string) {
    const entry = this.#models.get(model);
    if (!entry) throw notFound(`unknown model '${model}'; this server has ${this.modelNames.map((n) => `'${n}'`).join(', ')}`);
    return entry;
  }

  async #loadModel(model: RepositoryModel): Promise<void> {
    const versions = new Map<string, ServedVersion>();
    this.#models.set(model.name, { versions, latest: model.versions[model.versions.length - 1] });
    for (const version of model.versions) {
      const served: ServedVersion = { model: model.name, version, config: model.config };
      versions.set(version, served);
      try {
        await this.#loadVersion(served, model.files.get(version)!);
        this.#options.log?.(`loaded ${model.name} version ${version}: ${served.scheduler!.instances.length} instance(s)${model.config.dynamicBatching ? `, batching up to ${model.config.dynamicBatching.maxBatchSize}` : ''}`);
      } catch (err) {
        served.loadError = (err as Error).message;
        this.#options.log?.(`could not load ${model.name} version ${version}: ${served.loadError}`);
      }
    }
  }

  async #loadVersion(served: ServedVersion, file: string): Promise<void> {
    const { config, model, version } = served;
    const create = this.#options.createSession ?? ((f, o) => InferenceSession.create(f, o));
    const instances: ModelInstance[] = [];
    try {
      for (let index = 0; index < config.instances.count; index++) {
        const deviceId = deviceIdFor(config, index);
        const options: SessionOptions = { ...config.sessionOptions, executionProviders: executionProvidersFor(config, this.#options.defaultExecutionProviders, index) };
        const session = await create(file, options, { model, version, index, deviceId });
        const placement = session.placement.providers.map((p) => ({ ep: p.name, nodes: p.nodes }));
        instances.push(new ModelInstance(index, session, deviceId, placement));
        if (index === 0) {
          served.signature = signatureOf(session);
          const metrics = this.#options.metrics;
          for (const p of placement) metrics.placedNodes.set({ model, version, ep: p.ep }, p.nodes);
          metrics.arenaBytes.set({ model, version }, session.optimization.memory?.arenaBytes ?? 0);
        }
      }
      const why = config.dynamicBatching ? whyNotBatchable(served.signature!) : undefined;
      if (why) throw new Error(`dynamicBatching is configured but the model cannot be batched: ${why}`);
    } catch (err) {
      for (const inst of instances) inst.takeOut('load failed');
      throw err;
    }
    const count = () => ({ healthy: instances.filter((i) => i.healthy).length, failed: instances.filter((i) => !i.healthy).length });
    served.scheduler = new ModelScheduler(instances, {
      batching: config.dynamicBatching,
      maxQueueLength: config.maxQueueLength,
      observer: this.#options.metrics.observerFor(model, version, count),
      onDeviceFailure: (deviceId, reason) => {
        for (const other of this.#all()) if (other !== served) other.scheduler?.takeOutDevice(deviceId, reason);
      },
    });
  }
}

export function isReady(v: ServedVersion): boolean {
  return v.scheduler !== undefined && v.scheduler.healthyInstances > 0;
}
