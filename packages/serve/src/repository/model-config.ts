/**
 * The optional per-model config file, `REPO/<model>/config.json`: which EPs (with their options) run
 * the model, session options, dynamic batching, instances and the queue limit. A model without one
 * runs on the server's default EPs with one instance and no batching.
 */
import { SwitchyardError, type ExecutionProviderOption, type SessionOptions } from '@switchyard/core';

export const CONFIG_FILE = 'config.json';

export interface DynamicBatchingConfig {
  /** Most rows (along the first dim) one stacked run takes. */
  maxBatchSize: number;
  /** Longest the oldest queued request waits for others to join its batch. */
  maxQueueDelayMs: number;
}

export interface InstancesConfig {
  /** Sessions of the model. Default 1. */
  count: number;
  /** Devices for GPU EPs: instance i gets `deviceIds[i % deviceIds.length]` as every non-CPU EP's `deviceId`. */
  deviceIds?: number[];
}

export interface ModelConfig {
  /** EPs in priority order, names or `{name, ...options}`. Default: the server's default EPs. */
  executionProviders?: Array<string | ExecutionProviderOption>;
  /** Passed to `InferenceSession.create` (plain-data options only). */
  sessionOptions?: Pick<SessionOptions, 'graphOptimizationLevel' | 'intraOpNumThreads' | 'enableMemPattern' | 'logSeverityLevel'>;
  /** Absent: every request runs on its own. */
  dynamicBatching?: DynamicBatchingConfig;
  instances: InstancesConfig;
  /** Requests waiting for an instance beyond this many are refused with 503. */
  maxQueueLength: number;
}

export const DEFAULT_MAX_QUEUE_LENGTH = 256;

const KEYS = new Set(['executionProviders', 'sessionOptions', 'dynamicBatching', 'instances', 'maxQueueLength']);
const SESSION_KEYS = new Set(['graphOptimizationLevel', 'intraOpNumThreads', 'enableMemPattern', 'logSeverityLevel']);

function fail(file: string, message: string): never {
  throw new SwitchyardError('INVALID_ARGUMENT', `${file}: ${message}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function positiveInt(file: string, name: string, v: unknown, min: number): number {
  if (!Number.isSafeInteger(v) || (v as number) < min) fail(file, `${name} must be an integer ≥ ${min}, got ${JSON.stringify(v)}`);
  return v as number;
}

/** Validates a parsed config file; `file` names it in errors. Unknown keys are errors, so typos show. */
export function parseModelConfig(raw: unknown, file: string): ModelConfig {
  if (raw === undefined) return { instances: { count: 1 }, maxQueueLength: DEFAULT_MAX_QUEUE_LENGTH };
  if (!isObject(raw)) fail(file, 'must hold a JSON object');
  for (const k of Object.keys(raw)) if (!KEYS.has(k)) fail(file, `unknown key '${k}' (known: ${[...KEYS].join(', ')})`);
  const config: ModelConfig = { instances: { count: 1 }, maxQueueLength: DEFAULT_MAX_QUEUE_LENGTH };

  if (raw.executionProviders !== undefined) {
    const eps = raw.executionProviders;
    if (!Array.isArray(eps) || eps.length === 0) fail(file, 'executionProviders must be a non-empty array');
    config.executionProviders = eps.map((ep, i) => {
      if (typeof ep === 'string' && ep) return ep;
      if (isObject(ep) && typeof ep.name === 'string' && ep.name) return ep as ExecutionProviderOption;
      return fail(file, `executionProviders[${i}] must be a name or an object with a 'name'`);
    });
  }
  if (raw.sessionOptions !== undefined) {
    if (!isObject(raw.sessionOptions)) fail(file, 'sessionOptions must be an object');
    for (const k of Object.keys(raw.sessionOptions)) if (!SESSION_KEYS.has(k)) fail(file, `sessionOptions.${k} is not supported here (supported: ${[...SESSION_KEYS].join(', ')})`);
    config.sessionOptions = raw.sessionOptions as ModelConfig['sessionOptions'];
  }
  if (raw.dynamicBatching !== undefined) {
    const b = raw.dynamicBatching;
    if (!isObject(b)) fail(file, 'dynamicBatching must be an object');
    for (const k of Object.keys(b)) if (k !== 'maxBatchSize' && k !== 'maxQueueDelayMs') fail(file, `unknown key dynamicBatching.${k}`);
    const maxQueueDelayMs = b.maxQueueDelayMs ?? 0;
    if (typeof maxQueueDelayMs !== 'number' || !(maxQueueDelayMs >= 0) || maxQueueDelayMs > 60_000) fail(file, 'dynamicBatching.maxQueueDelayMs must be a number of milliseconds in [0, 60000]');
    config.dynamicBatching = { maxBatchSize: positiveInt(file, 'dynamicBatching.maxBatchSize', b.maxBatchSize, 1), maxQueueDelayMs };
  }
  if (raw.instances !== undefined) {
    const inst = raw.instances;
    if (!isObject(inst)) fail(file, 'instances must be an object');
    for (const k of Object.keys(inst)) if (k !== 'count' && k !== 'deviceIds') fail(file, `unknown key instances.${k}`);
    const deviceIds = inst.deviceIds;
    if (deviceIds !== undefined && (!Array.isArray(deviceIds) || deviceIds.length === 0 || !deviceIds.every((d) => Number.isSafeInteger(d) && d >= 0))) {
      fail(file, 'instances.deviceIds must be a non-empty array of device numbers');
    }
    const count = inst.count === undefined ? (deviceIds as number[] | undefined)?.length ?? 1 : positiveInt(file, 'instances.count', inst.count, 1);
    if (count > 64) fail(file, `instances.count ${count} is more than 64`);
    config.instances = { count, deviceIds: deviceIds as number[] | undefined };
  }
  if (raw.maxQueueLength !== undefined) config.maxQueueLength = positiveInt(file, 'maxQueueLength', raw.maxQueueLength, 1);
  return config;
}

/**
 * The EP list of one instance: the configured (or default) EPs, each non-CPU EP given the
 * instance's device as `deviceId` when the config names devices.
 */
export function executionProvidersFor(
  config: ModelConfig,
  defaults: ReadonlyArray<string | ExecutionProviderOption> | undefined,
  instance: number,
): Array<string | ExecutionProviderOption> | undefined {
  const eps = config.executionProviders ?? defaults;
  const ids = config.instances.deviceIds;
  if (!eps || !ids) return eps ? [...eps] : undefined;
  const deviceId = ids[instance % ids.length];
  return eps.map((ep) => {
    const option = typeof ep === 'string' ? { name: ep } : ep;
    return option.name === 'cpu' ? option : { ...option, deviceId };
  });
}

/** The device an instance was given (`deviceIds`), or undefined when the config names none. */
export function deviceIdFor(config: ModelConfig, instance: number): number | undefined {
  const ids = config.instances.deviceIds;
  return ids ? ids[instance % ids.length] : undefined;
}
