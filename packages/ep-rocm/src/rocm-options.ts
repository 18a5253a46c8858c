/**
 * The ROCm EP's options, named as onnxruntime's ROCm EP names them (camelCased, as onnxruntime-node
 * does), each with its default. Unknown names and bad values are errors that say what is accepted.
 */
import { SwitchyardError, ortFlag, ortInteger, type ExecutionProviderOptionType, type OptionAlias } from '@switchyard/core';

export type ArenaExtendStrategy = 'kNextPowerOfTwo' | 'kSameAsRequested';
export type ConvAlgoSearch = 'EXHAUSTIVE' | 'HEURISTIC' | 'DEFAULT';

export interface RocmProviderOptions {
  /** Which GPU (HIP ordinal, after HIP_VISIBLE_DEVICES). Default 0. */
  deviceId?: number;
  /**
   * Bytes of device memory this EP may hold: its device tensors, each execution plan's arena (weights
   * included) and the BLAS/DNN workspaces its plan builds take (device-budget.ts). Past it, session
   * creation (static shapes) or the run that builds a plan fails with OUT_OF_MEMORY. Default: no limit.
   */
  gpuMemLimit?: number;
  /** How the device arena grows. Default 'kNextPowerOfTwo'. */
  arenaExtendStrategy?: ArenaExtendStrategy;
  /**
   * Use tuned choices: each plan's GEMMs take the cuBLASLt algorithm that timed fastest and each Conv
   * the faster of its library call and its im2col + GEMM form, from the algorithm cache or (with
   * tunableOpTuningEnable) timed at plan build. false keeps the libraries' defaults (cublasGemmEx, the
   * library's convolution; convAlgoSearch still applies). Default true -- onnxruntime's default is
   * false, where TunableOp is a separate kernel set; here tuning only chooses among the libraries', and
   * a choice is timed once per problem and cached on disk.
   */
  tunableOpEnable?: boolean;
  /**
   * Time what the algorithm cache has no answer for, at plan build (adds ~10-40 ms to a model's first
   * run); false takes cached answers only and the defaults otherwise. Default: tunableOpEnable.
   */
  tunableOpTuningEnable?: boolean;
  /** MIOpen convolution algorithm search. Default 'EXHAUSTIVE'. */
  convAlgoSearch?: ConvAlgoSearch;
  /** Capture the partition's launches in a HIP graph and replay it. Default false. */
  enableHipGraph?: boolean;
  /** Run float32 kernels in float16 where precision allows. Default false. */
  fp16?: boolean;
  /**
   * Memory layout of convolutions inside float16 plans: 'NHWC' (channels-last, the tensor cores'
   * layout; values are transposed only where another op needs NCHW), 'NCHW', or 'auto' (NHWC where it
   * measured faster: large batches of ungrouped convolutions; see plan/nhwc-layout.ts). Default 'auto'.
   */
  fp16ConvLayout?: 'auto' | 'NHWC' | 'NCHW';
  /**
   * Arithmetic of large float32 matrix products over constant weights (MatMul / Linear layers of at
   * least 2^30 multiply-adds), in the levels PyTorch's torch.set_float32_matmul_precision names:
   * - 'high' (default): on GPUs with TF32 tensor cores (NVIDIA sm_80+ with cuBLAS), "3xTF32": each
   *   operand split into TF32 high and low parts, hi·lo + lo·hi + hi·hi as one tensor-core GEMM.
   *   The error stays near fp32's (~1e-6 relative per product; plain TF32, which onnxruntime's CUDA
   *   EP and PyTorch's convolutions use by default, gives ~1e-4). BERT-base's batch-32 Linear layers
   *   run in 0.4x the time. Elsewhere, and for smaller products, the same as 'highest'.
   * - 'highest': IEEE float32 multiply-adds only.
   */
  fp32MatmulPrecision?: 'high' | 'highest';
  /**
   * Execution plans one partition keeps, one per set of input shapes (and of the small integer inputs
   * that decide shapes or an If): a model with symbolic dims fed several sizes builds one plan per
   * size, then reuses it. Past this many the least recently used plan (its arena and, with
   * enableHipGraph, its graph) is freed. Default 8.
   */
  maxPlansPerPartition?: number;
}

export type ResolvedRocmOptions = Required<Omit<RocmProviderOptions, 'gpuMemLimit'>> & { gpuMemLimit: number };

export const ROCM_OPTION_DEFAULTS: ResolvedRocmOptions = {
  deviceId: 0,
  gpuMemLimit: Number.POSITIVE_INFINITY,
  arenaExtendStrategy: 'kNextPowerOfTwo',
  tunableOpEnable: true,
  tunableOpTuningEnable: true,
  convAlgoSearch: 'EXHAUSTIVE',
  enableHipGraph: false,
  fp16: false,
  fp16ConvLayout: 'auto',
  fp32MatmulPrecision: 'high',
  maxPlansPerPartition: 8,
};

/** Each option's value kind, for text front ends (`switchyard --ep rocm:enableHipGraph=1`). */
export const ROCM_OPTION_TYPES: Readonly<Record<keyof RocmProviderOptions, ExecutionProviderOptionType>> = {
  deviceId: 'integer',
  gpuMemLimit: 'integer',
  arenaExtendStrategy: 'string',
  tunableOpEnable: 'boolean',
  tunableOpTuningEnable: 'boolean',
  convAlgoSearch: 'string',
  enableHipGraph: 'boolean',
  fp16: 'boolean',
  fp16ConvLayout: 'string',
  fp32MatmulPrecision: 'string',
  maxPlansPerPartition: 'integer',
};

const OPTION_NAMES = Object.keys(ROCM_OPTION_DEFAULTS) as Array<keyof RocmProviderOptions>;

/**
 * onnxruntime's ROCm option names (its C/Python spelling) and what each stands for here. The EP
 * factory accepts them as aliases (`{ name: 'rocm', device_id: 0 }`), values in onnxruntime's forms
 * too (`'1'`, `0`/`1` for arena_extend_strategy); a directly constructed EP only hints at them.
 */
export const ROCM_ORT_ALIASES: Readonly<Record<string, OptionAlias & { name: keyof RocmProviderOptions }>> = {
  device_id: { name: 'deviceId', convert: ortInteger },
  gpu_mem_limit: { name: 'gpuMemLimit', convert: ortInteger },
  arena_extend_strategy: { name: 'arenaExtendStrategy', convert: (v) => (ortInteger(v) === 0 ? 'kNextPowerOfTwo' : ortInteger(v) === 1 ? 'kSameAsRequested' : v) },
  tunable_op_enable: { name: 'tunableOpEnable', convert: ortFlag },
  tunable_op_tuning_enable: { name: 'tunableOpTuningEnable', convert: ortFlag },
  // onnxruntime's flag chooses between MIOpen's exhaustive and its quick search.
  miopen_conv_exhaustive_search: { name: 'convAlgoSearch', convert: (v) => (ortFlag(v) === true ? 'EXHAUSTIVE' : ortFlag(v) === false ? 'HEURISTIC' : v) },
  enable_hip_graph: { name: 'enableHipGraph', convert: ortFlag },
};

function fail(message: string): never {
  throw new SwitchyardError('INVALID_ARGUMENT', `rocm EP: ${message}`);
}

function boolean(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') fail(`${name} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

function integer(name: string, value: unknown, min: number, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) fail(`${name} must be ${what}, got ${JSON.stringify(value)}`);
  return value;
}

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined) fail(`${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${JSON.stringify(value)}`);
  return found;
}

/** Validates user options (as given to `executionProviders: [{name: 'rocm', ...}]`) and fills defaults. */
export function resolveRocmOptions(options: RocmProviderOptions | Readonly<Record<string, unknown>>): ResolvedRocmOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) fail(`options must be an object, got ${JSON.stringify(options)}`);
  const o: Record<string, unknown> = Object.fromEntries(Object.entries(options));
  const unknown = Object.keys(o).filter((k) => !(OPTION_NAMES as string[]).includes(k) && k !== 'name');
  if (unknown.length > 0) {
    const hints = unknown.map((k) => (ROCM_ORT_ALIASES[k] ? `${k} (did you mean ${ROCM_ORT_ALIASES[k].name}?)` : k));
    fail(`unknown option(s) ${hints.join(', ')}; it takes ${OPTION_NAMES.join(', ')}`);
  }
  const out: ResolvedRocmOptions = { ...ROCM_OPTION_DEFAULTS };
  if (o.deviceId !== undefined) out.deviceId = integer('deviceId', o.deviceId, 0, 'a non-negative integer');
  if (o.maxPlansPerPartition !== undefined) out.maxPlansPerPartition = integer('maxPlansPerPartition', o.maxPlansPerPartition, 1, 'a positive integer');
  if (o.gpuMemLimit !== undefined) out.gpuMemLimit = integer('gpuMemLimit', o.gpuMemLimit, 1, 'a positive whole number of bytes');
  if (o.arenaExtendStrategy !== undefined) out.arenaExtendStrategy = oneOf('arenaExtendStrategy', o.arenaExtendStrategy, ['kNextPowerOfTwo', 'kSameAsRequested']);
  if (o.convAlgoSearch !== undefined) out.convAlgoSearch = oneOf('convAlgoSearch', o.convAlgoSearch, ['EXHAUSTIVE', 'HEURISTIC', 'DEFAULT']);
  if (o.fp16ConvLayout !== undefined) out.fp16ConvLayout = oneOf('fp16ConvLayout', o.fp16ConvLayout, ['auto', 'NHWC', 'NCHW']);
  if (o.fp32MatmulPrecision !== undefined) out.fp32MatmulPrecision = oneOf('fp32MatmulPrecision', o.fp32MatmulPrecision, ['high', 'highest']);
  for (const flag of ['tunableOpEnable', 'tunableOpTuningEnable', 'enableHipGraph', 'fp16'] as const) {
    if (o[flag] !== undefined) out[flag] = boolean(flag, o[flag]);
  }
  if (o.tunableOpTuningEnable === undefined) out.tunableOpTuningEnable = out.tunableOpEnable;
  if (out.tunableOpTuningEnable && !out.tunableOpEnable) fail('tunableOpTuningEnable needs tunableOpEnable: true');
  return out;
}
