/**
 * The MIGraphX EP's options, named like onnxruntime's MIGraphX EP options (camelCased), plus the
 * ones a compiling EP in Node needs (target, dynamicBatch, maxCompiledPrograms, minPartitionNodes).
 * Unknown names and bad values are errors that say what is accepted.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Quantization } from './program/program-compiler.js';
import { SwitchyardError, Tensor, ortFlag, ortInteger, type ExecutionProviderOptionType, type OptionAlias } from '@switchyard/core';

export type MigraphxTarget = 'gpu' | 'ref' | 'cpu';

export interface MigraphxProviderOptions {
  /**
   * Which GPU (HIP ordinal) programs are compiled on and run on, on the `gpu` target. Default 0. An
   * ordinal HIP does not see is refused at session creation; host targets ('ref', 'cpu') refuse any but 0.
   */
  deviceId?: number;
  /** Quantize float32 programs to float16 before compiling (`migraphx_quantize_fp16`). Default false. */
  fp16?: boolean;
  /** Quantize to bfloat16 instead. Default false; exclusive with fp16. */
  bf16?: boolean;
  /** Quantize to int8 (`migraphx_quantize_int8`), calibrated with `int8Calibration`. Default false. */
  int8?: boolean;
  /**
   * Calibration data for int8: sets of feeds by partition input name (a partition's inputs are the
   * model's inputs when it starts at them), or `'sample'` to calibrate with the inputs of the run
   * that triggers each compile. Sets lacking an input fall back to the sample. Default `'sample'`.
   */
  int8Calibration?: 'sample' | ReadonlyArray<Readonly<Record<string, Tensor>>>;
  /** Let MIGraphX tune kernels exhaustively at compile time (slow compiles, faster runs). Default false. */
  exhaustiveTune?: boolean;
  /** Where compiled programs are saved and reloaded; false: no disk cache. Default `~/.cache/switchyard/migraphx`. */
  cacheDir?: string | false;
  /**
   * Bytes of device memory this EP's programs may hold together, by an estimate (weights, input and
   * output copies, planned activations: MIGraphX cannot report it). Partitions whose weights cannot fit
   * go to the next EP; a program that would pass it fails its run with OUT_OF_MEMORY before compiling,
   * after the partition's other programs made room. Default: no limit.
   */
  memLimit?: number;
  /**
   * MIGraphX target: 'gpu' (ROCm), 'ref' (reference, any machine, slow), 'cpu'. Default: the
   * `SWITCHYARD_MIGRAPHX_TARGET` environment variable when set (so tools that only name EPs, like the
   * CLI's `--ep migraphx`, can use a GPU-less build), else 'gpu'.
   */
  target?: MigraphxTarget;
  /**
   * Serve a varying leading (batch) dimension from a few programs compiled for batch buckets: a run
   * with batch b uses the smallest bucket ≥ b, its inputs padded and its outputs sliced back.
   * `buckets` default: powers of two up to `max` (and `max` itself). `eager`: compile every bucket
   * at session creation instead of on first use. Default off: one program per distinct input shape.
   */
  dynamicBatch?: false | DynamicBatchOptions;
  /** Compiled programs kept per partition (one per input-shape set), least recently used evicted. Default 8. */
  maxCompiledPrograms?: number;
  /** Partitions with fewer nodes stay on the next EP (compiling a tiny partition costs more than it saves). Default 2. */
  minPartitionNodes?: number;
  /** Partitions whose estimated FLOPs are known and below this stay on the next EP too. Default 0 (off). */
  minPartitionFlops?: number;
  /**
   * MIGraphX copies inputs to the device and outputs back itself (`offload_copy`), so the EP takes
   * and returns host tensors. Default true; false (device buffers through IO binding) is not supported yet.
   */
  offloadCopy?: boolean;
  /** Let MIGraphX use faster, less exact math (`fast_math`). Default false. */
  fastMath?: boolean;
  /**
   * Size used for symbolic or unknown dims that no run has fixed yet (MIGraphX's `default_dim_value`).
   * Default 1. Programs are compiled per concrete shape, so this only matters for dims that are never fed.
   */
  defaultDimValue?: number;
}

export interface DynamicBatchOptions {
  /** Largest batch served. */
  max: number;
  /** Batch sizes to compile, ascending; the last must be ≥ max. Default: 1, 2, 4, … and max. */
  buckets?: number[];
  /** Compile all buckets when the session is created. Default false (on first use). */
  eager?: boolean;
}

export interface ResolvedDynamicBatch {
  max: number;
  buckets: number[];
  eager: boolean;
}

export type ResolvedMigraphxOptions = Required<Omit<MigraphxProviderOptions, 'dynamicBatch'>> & {
  dynamicBatch: ResolvedDynamicBatch | false;
};

export function migraphxOptionDefaults(): ResolvedMigraphxOptions {
  return {
    deviceId: 0,
    fp16: false,
    bf16: false,
    int8: false,
    int8Calibration: 'sample',
    exhaustiveTune: false,
    cacheDir: join(homedir(), '.cache', 'switchyard', 'migraphx'),
    memLimit: Number.POSITIVE_INFINITY,
    target: 'gpu',
    dynamicBatch: false,
    maxCompiledPrograms: 8,
    minPartitionNodes: 2,
    minPartitionFlops: 0,
    offloadCopy: true,
    fastMath: false,
    defaultDimValue: 1,
  };
}

const OPTION_NAMES = Object.keys(migraphxOptionDefaults());

/** Each option's value kind, for text front ends (`switchyard --ep migraphx:fp16=1`); `cacheDir=false` needs JSON. */
export const MIGRAPHX_OPTION_TYPES: Readonly<Record<keyof MigraphxProviderOptions, ExecutionProviderOptionType>> = {
  deviceId: 'integer',
  fp16: 'boolean',
  bf16: 'boolean',
  int8: 'boolean',
  int8Calibration: 'string',
  exhaustiveTune: 'boolean',
  cacheDir: 'string',
  memLimit: 'integer',
  target: 'string',
  dynamicBatch: 'json',
  maxCompiledPrograms: 'integer',
  minPartitionNodes: 'integer',
  minPartitionFlops: 'number',
  offloadCopy: 'boolean',
  fastMath: 'boolean',
  defaultDimValue: 'integer',
};

/**
 * onnxruntime's MIGraphX option names with the same meaning here: the EP factory accepts them as
 * aliases (`{ name: 'migraphx', migraphx_fp16_enable: '1' }`), values in onnxruntime's forms too.
 */
export const MIGRAPHX_ORT_ALIASES: Readonly<Record<string, OptionAlias>> = {
  device_id: { name: 'deviceId', convert: ortInteger },
  migraphx_fp16_enable: { name: 'fp16', convert: ortFlag },
  migraphx_bf16_enable: { name: 'bf16', convert: ortFlag },
  migraphx_int8_enable: { name: 'int8', convert: ortFlag },
  migraphx_exhaustive_tune: { name: 'exhaustiveTune', convert: ortFlag },
  migraphx_model_cache_dir: { name: 'cacheDir' },
  migraphx_mem_limit: { name: 'memLimit', convert: ortInteger },
};

/** Names whose value differs in kind from ours (a calibration table file vs calibration data): a hint only. */
const ORT_HINTS: Record<string, string> = {
  ...Object.fromEntries(Object.entries(MIGRAPHX_ORT_ALIASES).map(([k, a]) => [k, a.name])),
  migraphx_int8_calibration_table_name: 'int8Calibration',
  int8CalibrationTable: 'int8Calibration',
};

function fail(message: string): never {
  throw new SwitchyardError('INVALID_ARGUMENT', `migraphx EP: ${message}`);
}

function boolean(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') fail(`${name} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

function integer(name: string, value: unknown, min: number, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) fail(`${name} must be ${what}, got ${JSON.stringify(value)}`);
  return value;
}

function nonEmptyString(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.includes('\0')) fail(`${name} must be a non-empty path, got ${JSON.stringify(value)}`);
  return value;
}

/** Powers of two below `max`, then `max`: at most twice the work of an exact batch, log2(max) programs. */
export function defaultBuckets(max: number): number[] {
  const out: number[] = [];
  for (let b = 1; b < max; b *= 2) out.push(b);
  out.push(max);
  return out;
}

function calibration(value: unknown): ResolvedMigraphxOptions['int8Calibration'] {
  if (value === 'sample') return value;
  const what = "int8Calibration must be 'sample' or an array of { inputName: Tensor } sets";
  if (!Array.isArray(value) || value.length === 0) fail(`${what}, got ${JSON.stringify(value)}`);
  const sets: Array<Record<string, Tensor>> = [];
  for (const set of value) {
    if (typeof set !== 'object' || set === null || Array.isArray(set)) fail(`${what}; one set is ${JSON.stringify(set)}`);
    const entries = Object.entries(set as Record<string, unknown>);
    for (const [name, t] of entries) if (!(t instanceof Tensor) || t.location !== 'cpu') fail(`${what}; '${name}' is not a host Tensor`);
    sets.push(Object.fromEntries(entries) as Record<string, Tensor>);
  }
  return sets;
}

function dynamicBatch(value: unknown): ResolvedDynamicBatch | false {
  if (value === false) return false;
  if (value === true) fail('dynamicBatch takes { max, buckets?, eager? } (e.g. { max: 32 }), not true');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(`dynamicBatch must be false or { max, buckets?, eager? }, got ${JSON.stringify(value)}`);
  const o: Record<string, unknown> = Object.fromEntries(Object.entries(value));
  const extra = Object.keys(o).filter((k) => !['max', 'buckets', 'eager'].includes(k));
  if (extra.length > 0) fail(`dynamicBatch: unknown field(s) ${extra.join(', ')}; it takes max, buckets, eager`);
  const max = integer('dynamicBatch.max', o.max, 1, 'a positive integer');
  const eager = o.eager === undefined ? false : boolean('dynamicBatch.eager', o.eager);
  if (o.buckets === undefined) return { max, buckets: defaultBuckets(max), eager };
  if (!Array.isArray(o.buckets) || o.buckets.length === 0) fail(`dynamicBatch.buckets must be a non-empty array of batch sizes, got ${JSON.stringify(o.buckets)}`);
  const buckets = o.buckets.map((b: unknown) => integer('dynamicBatch.buckets[]', b, 1, 'a positive integer'));
  for (let i = 1; i < buckets.length; i++) if (buckets[i] <= buckets[i - 1]) fail(`dynamicBatch.buckets must be strictly ascending, got [${buckets.join(', ')}]`);
  if (buckets[buckets.length - 1] < max) fail(`dynamicBatch.buckets must reach max (${max}); the largest is ${buckets[buckets.length - 1]}`);
  return { max, buckets, eager };
}

/** The one quantization the options turn on (resolveMigraphxOptions allows at most one). */
export function quantizationOf(o: Pick<ResolvedMigraphxOptions, 'int8' | 'fp16' | 'bf16'>): Quantization {
  return o.int8 ? 'int8' : o.fp16 ? 'fp16' : o.bf16 ? 'bf16' : 'none';
}

/** Names the default target when options give none. */
export const TARGET_ENV = 'SWITCHYARD_MIGRAPHX_TARGET';

const TARGETS = ['gpu', 'ref', 'cpu'] as const;

/** Validates user options and fills defaults (`env` only for `SWITCHYARD_MIGRAPHX_TARGET`). */
export function resolveMigraphxOptions(
  options: MigraphxProviderOptions | Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ResolvedMigraphxOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) fail(`options must be an object, got ${JSON.stringify(options)}`);
  const o: Record<string, unknown> = Object.fromEntries(Object.entries(options));
  const unknown = Object.keys(o).filter((k) => !OPTION_NAMES.includes(k) && k !== 'name');
  if (unknown.length > 0) {
    const hints = unknown.map((k) => (ORT_HINTS[k] ? `${k} (did you mean ${ORT_HINTS[k]}?)` : k));
    fail(`unknown option(s) ${hints.join(', ')}; it takes ${OPTION_NAMES.join(', ')}`);
  }
  const out = migraphxOptionDefaults();
  if (o.deviceId !== undefined) out.deviceId = integer('deviceId', o.deviceId, 0, 'a non-negative integer');
  for (const flag of ['fp16', 'bf16', 'int8', 'exhaustiveTune', 'offloadCopy', 'fastMath'] as const) {
    if (o[flag] !== undefined) out[flag] = boolean(flag, o[flag]);
  }
  if (o.int8Calibration !== undefined) out.int8Calibration = calibration(o.int8Calibration);
  if (o.cacheDir !== undefined) out.cacheDir = o.cacheDir === false ? false : nonEmptyString('cacheDir', o.cacheDir);
  if (o.memLimit !== undefined) out.memLimit = integer('memLimit', o.memLimit, 1, 'a positive whole number of bytes');
  if (o.target !== undefined) {
    const target = TARGETS.find((t) => t === o.target);
    if (!target) fail(`target must be one of 'gpu', 'ref', 'cpu', got ${JSON.stringify(o.target)}`);
    out.target = target;
  } else if (env[TARGET_ENV]) {
    const target = TARGETS.find((t) => t === env[TARGET_ENV]);
    if (!target) fail(`${TARGET_ENV} must be one of gpu, ref, cpu, got ${JSON.stringify(env[TARGET_ENV])}`);
    out.target = target;
  }
  if (o.maxCompiledPrograms !== undefined) out.maxCompiledPrograms = integer('maxCompiledPrograms', o.maxCompiledPrograms, 1, 'a positive integer');
  if (o.minPartitionNodes !== undefined) out.minPartitionNodes = integer('minPartitionNodes', o.minPartitionNodes, 1, 'a positive integer');
  if (o.minPartitionFlops !== undefined) out.minPartitionFlops = integer('minPartitionFlops', o.minPartitionFlops, 0, 'a non-negative integer');
  if (o.defaultDimValue !== undefined) out.defaultDimValue = integer('defaultDimValue', o.defaultDimValue, 1, 'a positive integer');
  if (o.dynamicBatch !== undefined) out.dynamicBatch = dynamicBatch(o.dynamicBatch);
  if (out.target !== 'gpu' && out.deviceId !== 0) fail(`deviceId ${out.deviceId} needs the 'gpu' target; target '${out.target}' runs on the host, which has no device to pick`);
  if (!out.offloadCopy) fail('offloadCopy: false is not supported yet (it needs device buffers through IO binding); leave it on');
  if (out.fp16 && out.bf16) fail('fp16 and bf16 cannot both be on (pick one reduced precision)');
  if ((out.fp16 || out.bf16) && out.int8) fail('int8 cannot be combined with fp16 or bf16 here (pick one quantization)');
  if (!out.int8 && o.int8Calibration !== undefined) fail('int8Calibration is set but int8 is off');
  return out;
}
