/**
 * Which GPUs this process can use, or why none: the addon's device count and properties, checked
 * against the architectures the kernels were compiled for. Never throws.
 */
import type { DeviceProperties, NativeHipBinding, RuntimeInfo } from './binding.js';
import { explainNoDevice, gatherGpuFacts } from './gpu-diagnosis.js';
import { buildCommand } from '@switchyard/native-toolkit';
import { nativeHipBinding } from './load-native.js';

export interface UsableDevice extends DeviceProperties {
  /** False when the build has no kernels for this device's arch; `reason` says what to rebuild. */
  usable: boolean;
  reason?: string;
}

export type GpuProbe =
  | { ok: true; binding: NativeHipBinding; runtime: RuntimeInfo; devices: UsableDevice[] }
  | { ok: false; reason: string; runtime?: RuntimeInfo; devices?: UsableDevice[] };

export interface ProbeOptions {
  /** A loaded binding; default: load the package's addon. */
  binding?: NativeHipBinding;
  env?: Readonly<Record<string, string | undefined>>;
}

function rebuildHint(runtime: RuntimeInfo, arch: string): string {
  const variable = runtime.platform === 'amd' ? 'SWITCHYARD_HIP_ARCHS' : 'SWITCHYARD_CUDA_ARCHS';
  const value = runtime.platform === 'amd' ? arch : arch.replace(/^sm_/, '');
  return `rebuild with ${variable}="${value}" ${buildCommand('@switchyard/native-hip')} --force`;
}

/** Lists the devices and whether each can run this build's kernels; `ok` when at least one can. */
export function probeDevices(options: ProbeOptions = {}): GpuProbe {
  let binding = options.binding;
  if (!binding) {
    const loaded = nativeHipBinding();
    if (!loaded.ok) return { ok: false, reason: loaded.reason };
    binding = loaded.binding;
  }
  const runtime = binding.runtimeInfo();
  const counted = binding.deviceCount();
  if (counted.count === 0) {
    return { ok: false, runtime, reason: explainNoDevice(gatherGpuFacts(runtime.platform, counted.status, options.env)) };
  }
  const devices: UsableDevice[] = [];
  for (let i = 0; i < counted.count; i++) {
    let props: DeviceProperties;
    try {
      props = binding.deviceProperties(i);
    } catch (error) {
      return { ok: false, runtime, reason: `device ${i}: querying its properties failed (${(error as Error).message})` };
    }
    const usable = runtime.compiledArchs.includes(props.arch);
    devices.push(
      usable
        ? { ...props, usable }
        : { ...props, usable, reason: `device ${i} (${props.name}, ${props.arch}) has no kernels in this build (built for ${runtime.compiledArchs.join(', ') || 'nothing'}); ${rebuildHint(runtime, props.arch)}` },
    );
  }
  if (!devices.some((d) => d.usable)) {
    return { ok: false, runtime, devices, reason: devices.map((d) => d.reason).join('; ') };
  }
  return { ok: true, binding, runtime, devices };
}
