/**
 * The ROCm execution provider: HIP kernels from `@switchyard/native-hip` on one AMD GPU (or, in
 * a build for testing, an NVIDIA one). `init()` loads the addon and checks the device; when either
 * is missing it throws, the session lists 'rocm' as skipped with that reason, and the partitioner
 * places the nodes on the next EP.
 */
import { SwitchyardError, type ExecutionProvider, type ExecutionProviderFactory, type KernelDef, type Tensor } from '@switchyard/core';
import type { NativeHipBinding, RuntimeInfo, UsableDevice } from '@switchyard/native-hip';
import { RocmDeviceMemory } from './device-memory.js';
import { elementwiseKernel } from './elementwise-kernels.js';
import { ROCM_KERNEL_TABLE } from './kernel-table.js';
import { resolveRocmOptions, type ResolvedRocmOptions, type RocmProviderOptions } from './rocm-options.js';

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
  #deviceInfo: UsableDevice | undefined;
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

  #open(binding: NativeHipBinding, probe: ReturnType<NativeHipModule['probeDevices']>): void {
    if (!probe.ok) throw new SwitchyardError('EP_FAILED', probe.reason);
    const { deviceId } = this.options;
    const chosen = probe.devices[deviceId];
    if (!chosen) {
      throw new SwitchyardError('EP_FAILED', `deviceId ${deviceId} is out of range: the runtime sees ${probe.devices.length} device(s) (${probe.devices.map(describeDevice).join(', ')})`);
    }
    if (!chosen.usable) throw new SwitchyardError('EP_FAILED', chosen.reason ?? `device ${deviceId} cannot run this build's kernels`);
    this.#deviceInfo = chosen;
    this.#runtime = probe.runtime;
    this.#memory = new RocmDeviceMemory(binding, deviceId, this.options.gpuMemLimit);
    const memory = this.#memory;
    this.kernels = ROCM_KERNEL_TABLE.filter((row) => row.kernel === 'elementwise').map((row) => elementwiseKernel(row, binding, memory));
  }

  #ready(): RocmDeviceMemory {
    if (!this.#memory) throw new SwitchyardError('EP_FAILED', 'rocm EP used before init() succeeded');
    return this.#memory;
  }

  async copyToDevice(tensor: Tensor): Promise<Tensor> {
    return this.#ready().upload(tensor);
  }

  async copyToHost(tensor: Tensor): Promise<Tensor> {
    return this.#ready().download(tensor);
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
  create: (options) => new RocmExecutionProvider(options),
};
