/**
 * The ROCm execution provider: HIP kernels from `@switchyard/native-hip` on one AMD GPU (or, in
 * a build for testing, an NVIDIA one). `init()` loads the addon and checks the device; when either
 * is missing it throws, the session lists 'rocm' as skipped with that reason, and the partitioner
 * places the nodes on the next EP.
 */
import {
  SwitchyardError,
  type CapabilityContext,
  type CapabilityResult,
  type CompiledPartition,
  type ExecutionProvider,
  type ExecutionProviderFactory,
  type FusedPartition,
  type Graph,
  type KernelDef,
  type MemoryEstimate,
  type MemoryEstimateRequest,
  type Tensor,
} from '@switchyard/core';
import type { NativeHipBinding, RuntimeInfo, UsableDevice } from '@switchyard/native-hip';
import { rocmCapability, rocmKernelDefs } from './capability.js';
import type { DeviceUsage } from './device-budget.js';
import { RocmDeviceMemory } from './device-memory.js';
import { ROCM_KERNEL_TABLE } from './kernel-table.js';
import { hasPlanBinding, type PlanBinding } from './plan/native-plan.js';
import { convAlgoCacheDir, deviceCacheName, readConvAlgoCache, readConvFormCache } from './plan/library-caches.js';
import { CUBLAS_WORKSPACE_BYTES, NO_LIBRARY_WORKSPACES, type LibraryWorkspaces } from './plan/plan-footprint.js';
import { RocmPartition } from './rocm-partition.js';
import { ROCM_OPTION_TYPES, ROCM_ORT_ALIASES, resolveRocmOptions, type ResolvedRocmOptions, type RocmProviderOptions } from './rocm-options.js';

type NativeHipModule = typeof import('@switchyard/native-hip');

/** Imported on first use: the package is an optional dependency, so its absence is a reason, not a crash. */
async function importNativeHip(): Promise<NativeHipModule> {
  try {
    return await import('@switchyard/native-hip');
  } catch (error) {
    throw new SwitchyardError(
      'EP_FAILED',
      `@switchyard/native-hip could not be loaded (${(error as Error).message.split('\n')[0]}); install it with \`npm install @switchyard/native-hip\``,
      { cause: error },
    );
  }
}

function describeDevice(d: UsableDevice): string {
  return `${d.index}: ${d.name} (${d.arch})`;
}

export class RocmExecutionProvider implements ExecutionProvider {
  readonly name = 'rocm';
  readonly device: string;
  readonly options: ResolvedRocmOptions;
  kernels: readonly KernelDef[] = [];
  #memory: RocmDeviceMemory | undefined;
  #plans: PlanBinding | undefined;
  readonly #partitions: RocmPartition[] = [];
  #deviceInfo: UsableDevice | undefined;
  #tf32TensorCores = false;
  /** What a plan stream's libraries take from the default arena, before a build (cuBLAS is given a workspace there, rocBLAS keeps its own). */
  #libraries: LibraryWorkspaces = NO_LIBRARY_WORKSPACES;
  #runtime: RuntimeInfo | undefined;

  constructor(options: RocmProviderOptions | Readonly<Record<string, unknown>> = {}) {
    this.options = resolveRocmOptions(options);
    this.device = `rocm:${this.options.deviceId}`;
  }

  async init(): Promise<void> {
    const native = await importNativeHip();
    const loaded = native.nativeHipBinding();
    if (!loaded.ok) throw new SwitchyardError('EP_FAILED', `HIP addon unavailable: ${loaded.reason}`);
    this.#open(loaded.binding, native.probeDevices({ binding: loaded.binding }));
  }

  /** init() over a given binding and device probe (tests: a stand-in for the addon). */
  initWith(binding: NativeHipBinding, probe: ReturnType<NativeHipModule['probeDevices']>): void {
    this.#open(binding, probe);
  }

  #open(binding: NativeHipBinding, probe: ReturnType<NativeHipModule['probeDevices']>): void {
    if (!probe.ok) throw new SwitchyardError('EP_FAILED', probe.reason);
    const { deviceId } = this.options;
    const chosen = probe.devices[deviceId];
    if (!chosen) {
      throw new SwitchyardError('EP_FAILED', `deviceId ${deviceId} is out of range: the runtime sees ${probe.devices.length} device(s) (${probe.devices.map(describeDevice).join(', ')})`);
    }
    if (!chosen.usable) throw new SwitchyardError('EP_FAILED', chosen.reason ?? `device ${deviceId} cannot run this build's kernels`);
    this.#deviceInfo = chosen;
    const cublas = binding.blasInfo().backend === 'cuBLAS';
    this.#tf32TensorCores = cublas && chosen.major >= 8;
    const cacheName = deviceCacheName(chosen, probe.runtime.platform);
    this.#libraries = {
      blasWorkspaceBytes: cublas ? CUBLAS_WORKSPACE_BYTES : 0,
      convAlgoCache: () => readConvAlgoCache(convAlgoCacheDir(), cacheName),
      convFormCache: () => readConvFormCache(convAlgoCacheDir(), cacheName),
      handleBytes: () => binding.libraryHandleBytes?.(deviceId) ?? { dnn: 0, blas: 0 },
    };
    this.#runtime = probe.runtime;
    if (!hasPlanBinding(binding)) {
      throw new SwitchyardError('EP_FAILED', `this build of @switchyard/native-hip has no execution plans (ExecutionPlan/planStepOps missing: a stale build?). Fix: node node_modules/@switchyard/native-hip/scripts/build-native.mjs --clean`);
    }
    this.#memory = new RocmDeviceMemory(binding, deviceId, this.options.gpuMemLimit, this.options.arenaExtendStrategy);
    this.#plans = binding;
    this.kernels = rocmKernelDefs(ROCM_KERNEL_TABLE, new Set(binding.planStepOps()));
  }

  /** Maximal connected GPU-capable regions, each one fused capability (one native plan per region). */
  getCapability(graph: Graph, ctx: CapabilityContext): CapabilityResult {
    return rocmCapability(graph, ctx);
  }

  /**
   * A partition whose input shapes are static reserves its plan's device memory here: past
   * gpuMemLimit this throws OUT_OF_MEMORY, and the session is not created (see docs/using-sessions.md).
   */
  async compile(partition: FusedPartition): Promise<CompiledPartition> {
    const memory = this.#ready();
    const compiled = new RocmPartition(partition, this.#plans!, memory, this.options, this.#tf32TensorCores, this.#libraries);
    compiled.admit();
    this.#partitions.push(compiled);
    return compiled;
  }

  /** Device memory this EP holds, by kind, against gpuMemLimit (tests, benchmarks and the GPU host's memplan stage read it). */
  get memoryUsage(): DeviceUsage | undefined {
    return this.#memory?.budget.usage();
  }

  /**
   * session.memoryPlan's figures for this EP's partitions at the request's shapes: each plan
   * described (as its first run will build it) but not built, so nothing touches the device. Weights
   * are the constants the plans upload (float16 or TF32-split where the options say so); workspace
   * is the plans' step workspaces and the library workspaces of each plan's stream: BLAS, and DNN as
   * far as the convolution algorithm cache knows the algorithms (a problem not searched yet counts
   * 0). Undefined when a partition's shapes are not all known (core then estimates).
   */
  memoryEstimate({ nodes, typeOf }: MemoryEstimateRequest): MemoryEstimate | undefined {
    const mine = new Set(nodes);
    const estimate = { weightsBytes: 0, activationBytes: 0, workspaceBytes: 0 };
    for (const p of this.#partitions) {
      if (!p.partition.nodes.some((n) => mine.has(n))) continue;
      const shapes = [];
      for (const name of p.partition.inputNames) {
        const t = typeOf(name);
        if (t?.kind !== 'tensor' || !t.shape?.every((d): d is number => typeof d === 'number')) return undefined;
        shapes.push({ type: t.elemType, dims: t.shape });
      }
      const footprint = p.estimate(shapes);
      if (!footprint) return undefined;
      estimate.weightsBytes += footprint.weightsBytes;
      estimate.activationBytes += footprint.activationBytes;
      estimate.workspaceBytes += footprint.stepWorkspaceBytes + footprint.libraryBytes;
    }
    return estimate;
  }

  /** The compiled partitions so far (tests and benchmarks read their plan stats). */
  get partitions(): readonly RocmPartition[] {
    return this.#partitions;
  }

  #ready(): RocmDeviceMemory {
    if (!this.#memory) throw new SwitchyardError('EP_FAILED', 'rocm EP used before init() succeeded');
    return this.#memory;
  }

  /**
   * IO binding: a device tensor holding a copy of `tensor`, made now (one synchronous copy). Fed to
   * runs of a session using this EP, plans read it where it is, with no per-run host copy; it stays
   * valid until its `dispose()` (or the EP's), and counts against `gpuMemLimit` meanwhile. With
   * `preferredOutputLocation: 'device'` the outputs stay on the device too.
   */
  uploadTensor(tensor: Tensor): Tensor {
    if (tensor.location !== 'cpu') throw new SwitchyardError('INVALID_ARGUMENT', `rocm uploadTensor: the tensor is on '${tensor.location}', not on the host`);
    return this.#ready().upload(tensor);
  }

  /** Defers the upload to the plan that reads the tensor; a tensor already on this device passes through (IO binding). */
  async copyToDevice(tensor: Tensor): Promise<Tensor> {
    return this.#ready().stage(tensor);
  }

  async copyToHost(tensor: Tensor): Promise<Tensor> {
    return this.#ready().download(tensor);
  }

  dispose(): void {
    for (const p of this.#partitions) p.dispose();
    this.#partitions.length = 0;
    this.#memory?.dispose();
  }

  describe(): string {
    const d = this.#deviceInfo;
    const r = this.#runtime;
    if (!d || !r) return 'not initialized';
    const gib = (d.totalMemory / 2 ** 30).toFixed(1);
    return `${d.name} (${d.arch}, ${d.computeUnits} CUs, warp ${d.warpSize}, ${gib} GiB) via ${r.runtime} ${r.runtimeVersion} on ${r.platform}`;
  }
}

export const executionProviderFactory: ExecutionProviderFactory = {
  name: 'rocm',
  // After MIGraphX (a compiled partition beats per-node kernels), before CPU.
  priority: 100,
  optionTypes: ROCM_OPTION_TYPES,
  create: (options) => new RocmExecutionProvider(options),
  optionAliases: ROCM_ORT_ALIASES,
};
