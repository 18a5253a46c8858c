/**
 * The MIGraphX EP's options, named like onnxruntime's MIGraphX EP options (camelCased), plus the
 * ones a compiling EP in Node needs (target, dynamicBatch, maxCompiledPrograms, minPartitionNodes).
 * Unknown names and bad values are errors that say what is accepted.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { SwitchyardError } from '@switchyard/core';

export type MigraphxTarget = 'gpu' | 'ref' | 'cpu';

export interface MigraphxProviderOptions {
  /** Which GPU (HIP ordinal). Default 0. */
  deviceId?: number;
  /** Quantize float32 programs to float16 before compiling (`migraphx_quantize_fp16`). Default false. */
  fp16?: boolean;
  /** Quantize to bfloat16 instead. Default false; exclusive with fp16. */
  bf16?: boolean;
  /** Quantize to int8 with a calibration table. Default false. */
  int8?: boolean;
  /** Path of the int8 calibration table; required when int8 is on. */
  int8CalibrationTable?: string;
  /** Let MIGraphX tune kernels exhaustively at compile time (slow compiles, faster runs). Default false. */
  exhaustiveTune?: boolean;
  /** Where compiled programs are saved and reloaded. Default `~/.cache/switchyard/migraphx`. */
  cacheDir?: string;
  /** Bytes of device memory this EP may hold. Default: no limit. */
  memLimit?: number;
  /** MIGraphX target: 'gpu' (ROCm), 'ref' (reference, any machine, slow), 'cpu'. Default 'gpu'. */
  target?: MigraphxTarget;
  /** Compile with a dynamic batch dimension instead of one program per batch size. Default false. */
  dynamicBatch?: boolean;
  /** Compiled programs kept per partition (one per input-shape set), least recently used evicted. Default 8. */
  maxCompiledPrograms?: number;
  /** Partitions smaller than this stay on the next EP (compiling a tiny partition costs more than it saves). Default 1. */
  minPartitionNodes?: number;
}

export type ResolvedMigraphxOptions = Required<Omit<MigraphxProviderOptions, 'int8CalibrationTable'>> & { int8CalibrationTable: string | undefined };

export function migraphxOptionDefaults(): ResolvedMigraphxOptions {
  return {
    deviceId: 0,
    fp16: false,
    bf16: false,
    int8: false,
    int8CalibrationTable: undefined,
    exhaustiveTune: false,
    cacheDir: join(homedir(), '.cache', 'switchyard', 'migraphx'),
    memLimit: Number.POSITIVE_INFINITY,
    target: 'gpu',
    dynamicBatch: false,
    maxCompiledPrograms: 8,
    minPartitionNodes: 1,
  };
}

const OPTION_NAMES = Object.keys(migraphxOptionDefaults());

/** onnxruntime's spellings, so a copied config gets a pointed hint. */
const ORT_SPELLINGS: Record<string, string> = {
  device_id: 'deviceId',
  migraphx_fp16_enable: 'fp16',
  migraphx_bf16_enable: 'bf16',
  migraphx_int8_enable: 'int8',
  migraphx_int8_calibration_table_name: 'int8CalibrationTable',
  migraphx_exhaustive_tune: 'exhaustiveTune',
  migraphx_model_cache_dir: 'cacheDir',
  migraphx_mem_limit: 'memLimit',
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

/** Validates user options and fills defaults. */
export function resolveMigraphxOptions(options: MigraphxProviderOptions | Readonly<Record<string, unknown>>): ResolvedMigraphxOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) fail(`options must be an object, got ${JSON.stringify(options)}`);
  const o: Record<string, unknown> = Object.fromEntries(Object.entries(options));
  const unknown = Object.keys(o).filter((k) => !OPTION_NAMES.includes(k) && k !== 'name');
  if (unknown.length > 0) {
    const hints = unknown.map((k) => (ORT_SPELLINGS[k] ? `${k} (did you mean ${ORT_SPELLINGS[k]}?)` : k));
    fail(`unknown option(s) ${hints.join(', ')}; it takes ${OPTION_NAMES.join(', ')}`);
  }
  const out = migraphxOptionDefaults();
  if (o.deviceId !== undefined) out.deviceId = integer('deviceId', o.deviceId, 0, 'a non-negative integer');
  for (const flag of ['fp16', 'bf16', 'int8', 'exhaustiveTune', 'dynamicBatch'] as const) {
    if (o[flag] !== undefined) out[flag] = boolean(flag, o[flag]);
  }
  if (o.int8CalibrationTable !== undefined) out.int8CalibrationTable = nonEmptyString('int8CalibrationTable', o.int8CalibrationTable);
  if (o.cacheDir !== undefined) out.cacheDir = nonEmptyString('cacheDir', o.cacheDir);
  if (o.memLimit !== undefined) out.memLimit = integer('memLimit', o.memLimit, 1, 'a positive whole number of bytes');
  if (o.target !== undefined) {
    const target = (['gpu', 'ref', 'cpu'] as const).find((t) => t === o.target);
    if (!target) fail(`target must be one of 'gpu', 'ref', 'cpu', got ${JSON.stringify(o.target)}`);
    out.target = target;
  }
  if (o.maxCompiledPrograms !== undefined) out.maxCompiledPrograms = integer('maxCompiledPrograms', o.maxCompiledPrograms, 1, 'a positive integer');
  if (o.minPartitionNodes !== undefined) out.minPartitionNodes = integer('minPartitionNodes', o.minPartitionNodes, 1, 'a positive integer');
  if (out.fp16 && out.bf16) fail('fp16 and bf16 cannot both be on (pick one reduced precision)');
  if (out.int8 && !out.int8CalibrationTable) fail('int8 needs int8CalibrationTable (the calibration table path)');
  if (!out.int8 && out.int8CalibrationTable) fail('int8CalibrationTable is set but int8 is off');
  return out;
}
