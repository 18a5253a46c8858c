/**
 * The MIGraphX execution provider: fused partitions compiled by MIGraphX through its C API, loaded
 * at run time. `init()` declines, with a reason, when the library is missing, outside the supported
 * versions, or numbers datatypes unlike the header the addon declares against; otherwise the EP
 * claims partitions of the operators the library's ONNX parser lists.
 *
 * Tensors at its boundary are host tensors (`device: 'cpu'`): programs are compiled with
 * offload_copy, so MIGraphX moves inputs to the GPU and results back itself.
 */
import { statSync } from 'node:fs';
import { SwitchyardError, type CapabilityContext, type CapabilityResult, type ExecutionProvider, type ExecutionProviderFactory, type FusedPartition, type Graph, type KernelDef } from '@switchyard/core';
import type { MigraphxLibraryReport, MigraphxNativeBinding } from './native/binding.js';
import { migraphxAddon } from './native/load-native.js';
import { probeMigraphx } from './migraphx-library.js';
import { MIGRAPHX_OPTION_TYPES, MIGRAPHX_ORT_ALIASES, TARGET_ENV, quantizationOf, resolveMigraphxOptions, type MigraphxProviderOptions, type ResolvedMigraphxOptions } from './migraphx-options.js';
import { migraphxOperators } from './static-op-table.js';
import { migraphxCapability, type CapabilityPolicy } from './capability/migraphx-capability.js';
import { MigraphxPartition } from './migraphx-partition.js';
import { ProgramCache, type CacheEvent } from './cache/program-cache.js';
import type { ProgramCompiler, ProgramSerializer } from './program/program-compiler.js';
import { NativeProgramCompiler, NativeProgramSerializer } from './program/native-compiler.js';
import { checkLibraryVersion } from './program/library-version.js';
import { deviceArchitecture } from './program/device-arch.js';
import { DeviceMemoryBudget } from './memory/memory-budget.js';

export interface MigraphxInitOptions {
  /** Environment to read `SWITCHYARD_MIGRAPHX_LIB`/`ROCM_PATH`/`SWITCHYARD_MIGRAPHX_TARGET` from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** A loaded addon; default: the package's own build. */
  binding?: MigraphxNativeBinding;
  /** Compile with this instead of MIGraphX (tests): no library is loaded. */
  compiler?: ProgramCompiler;
  /** With `compiler`: how its programs are cached; without one, no disk cache. */
  serializer?: ProgramSerializer;
  /** With `compiler`: the operators to claim (default: the static table). */
  operators?: readonly string[];
  /** Told about cache hits, misses and rejected files. */
  onCacheEvent?: (event: CacheEvent) => void;
}

export class MigraphxExecutionProvider implements ExecutionProvider {
  readonly name = 'migraphx';
  /** Host: with offload_copy MIGraphX copies to and from the GPU itself (see the module comment). */
  readonly device = 'cpu';
  readonly options: ResolvedMigraphxOptions;
  readonly kernels: readonly KernelDef[] = [];
  /** Partitions compiled by this EP, in order (for tests and `inspect`). */
  readonly partitions: MigraphxPartition[] = [];
  #library: MigraphxLibraryReport | undefined;
  #compiler: ProgramCompiler | undefined;
  #cache: ProgramCache | undefined;
  #policy: CapabilityPolicy | undefined;
  readonly #init: MigraphxInitOptions;
  /** Device memory held by this EP's programs, against memLimit. */
  readonly memory: DeviceMemoryBudget;

  constructor(options: MigraphxProviderOptions | Readonly<Record<string, unknown>> = {}, init: MigraphxInitOptions = {}) {
    this.options = resolveMigraphxOptions(options, init.env);
    this.#init = init;
    this.memory = new DeviceMemoryBudget(this.options.memLimit);
  }

  /** What was loaded, once `init()` found the library. */
  get library(): MigraphxLibraryReport | undefined {
    return this.#library;
  }

  get compiler(): ProgramCompiler | undefined {
    return this.#compiler;
  }

  async init(): Promise<void> {
    let serializer: ProgramSerializer | undefined;
    let operators: ReturnType<typeof migraphxOperators>;
    if (this.#init.compiler) {
      this.#compiler = this.#init.compiler;
      serializer = this.#init.serializer;
      operators = migraphxOperators(this.#init.operators);
      if (this.#init.operators) operators = { ...operators, source: 'library' };
    } else {
      let binding = this.#init.binding;
      if (!binding) {
        const addon = migraphxAddon();
        if (!addon.ok) throw new SwitchyardError('EP_FAILED', addon.reason);
        binding = addon.binding;
      }
      const probe = probeMigraphx({ env: this.#init.env, binding });
      if (!probe.ok) throw new SwitchyardError('EP_FAILED', probe.reason);
      const lib = probe.library;
      this.#library = lib;
      const where = `libmigraphx_c.so at ${lib.realPath ?? lib.path}`;
      const version = checkLibraryVersion(lib.version);
      if (!version.ok) throw new SwitchyardError('EP_FAILED', version.reason);
      if (lib.dataTypeError) throw new SwitchyardError('EP_FAILED', `${where} is not a MIGraphX this EP supports: ${lib.dataTypeError}`);
      const targetError = binding.targetError(this.options.target);
      if (targetError) throw new SwitchyardError('EP_FAILED', `${where} cannot create target '${this.options.target}' (${targetError})${targetHint(this.options.target)}`);
      if (this.options.bf16 && !lib.optional?.quantizeBf16) throw new SwitchyardError('EP_FAILED', `bf16 is on, but ${where} has no migraphx_quantize_bf16 (MIGraphX 2.13 or later has it)`);
      const device = this.options.target === 'gpu' ? gpuDevice(binding, this.options.deviceId, where) : undefined;
      this.#compiler = new NativeProgramCompiler(
        binding,
        { version: libraryIdentity(lib), target: this.options.target, deviceArch: deviceArchitecture(this.options.target, this.options.deviceId) },
        device,
      );
      serializer = new NativeProgramSerializer(binding, device);
      operators = migraphxOperators(lib.operators);
    }
    if (this.options.cacheDir !== false && serializer) this.#cache = new ProgramCache(this.options.cacheDir, serializer, this.#init.onCacheEvent);
    this.#policy = {
      operators: operators.operators,
      operatorSource: operators.source,
      minPartitionNodes: this.options.minPartitionNodes,
      minPartitionFlops: this.options.minPartitionFlops,
      memLimit: this.options.memLimit,
      quantization: quantizationOf(this.options),
    };
  }

  getCapability(graph: Graph, ctx: CapabilityContext): CapabilityResult {
    if (!this.#policy) throw new SwitchyardError('EP_FAILED', 'migraphx EP: getCapability before init()');
    return migraphxCapability(graph, ctx.assigned, this.#policy);
  }

  async compile(partition: FusedPartition): Promise<MigraphxPartition> {
    if (!this.#compiler) throw new SwitchyardError('EP_FAILED', 'migraphx EP: compile before init()');
    const compiled = await MigraphxPartition.create(partition, { compiler: this.#compiler, cache: this.#cache, options: this.options, budget: this.memory });
    this.partitions.push(compiled);
    return compiled;
  }

  dispose(): void {
    for (const p of this.partitions) p.dispose();
    this.partitions.length = 0;
  }

  describe(): string {
    const lib = this.#library;
    if (lib) return `MIGraphX ${lib.version ?? '?'} (${lib.realPath ?? lib.path}), target ${this.options.target}`;
    return this.#compiler ? `MIGraphX test compiler ${this.#compiler.identity.version}, target ${this.options.target}` : 'MIGraphX not loaded';
  }
}

/**
 * The GPU programs are compiled on, loaded to and run on (the addon makes it current on each worker
 * thread, since MIGraphX's C API takes no device). An ordinal past what HIP sees is the caller's
 * mistake (INVALID_ARGUMENT); not finding HIP's device functions declines the EP, except for device 0,
 * which every thread starts on anyway.
 */
function gpuDevice(binding: MigraphxNativeBinding, deviceId: number, where: string): number | undefined {
  const devices = binding.hipDevices();
  if (devices.count === null) {
    if (deviceId === 0) return undefined;
    throw new SwitchyardError('EP_FAILED', `${where} cannot select GPU ${deviceId}: ${devices.error ?? 'hipGetDeviceCount is unavailable'}`);
  }
  if (devices.count === 0) throw new SwitchyardError('EP_FAILED', `${where}: HIP sees no GPU`);
  if (deviceId >= devices.count) {
    const range = devices.count === 1 ? 'only device 0' : `devices 0 to ${devices.count - 1}`;
    throw new SwitchyardError('INVALID_ARGUMENT', `migraphx EP: deviceId ${deviceId} does not exist: HIP sees ${range} (HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES narrow and renumber them)`);
  }
  return deviceId;
}

/** A build from source without the GPU backend is common (it needs no ROCm): say how to use it. */
function targetHint(target: string): string {
  if (target !== 'gpu') return '';
  return `; a MIGraphX built without its GPU backend (no libmigraphx_gpu.so) has the 'ref' target: pass { target: 'ref' } or set ${TARGET_ENV}=ref`;
}

/** Version plus the file's size and time, so a library rebuilt in place (same `3.0`) invalidates cached programs. */
function libraryIdentity(lib: MigraphxLibraryReport): string {
  const file = lib.realPath ?? lib.path ?? '';
  try {
    const s = statSync(file);
    return `${lib.version ?? 'unversioned'}:${file}:${s.size}:${Math.floor(s.mtimeMs)}`;
  } catch {
    return `${lib.version ?? 'unversioned'}:${file}`;
  }
}

export const executionProviderFactory: ExecutionProviderFactory = {
  name: 'migraphx',
  // First among GPU EPs: a compiled, fused partition beats per-node kernels where both apply.
  priority: 200,
  optionTypes: MIGRAPHX_OPTION_TYPES,
  create: (options) => new MigraphxExecutionProvider(options),
  optionAliases: MIGRAPHX_ORT_ALIASES,
};
