import { describe, expect, it } from 'vitest';
import type { DeviceBuffer, DeviceProperties, NativeHipBinding } from './binding.js';
import type { NativeHipRuntimeBinding } from './binding-runtime.js';
import { probeDevices } from './devices.js';

class NoDeviceBuffer implements DeviceBuffer {
  readonly byteLength = 0;
  readonly deviceId = 0;
  readonly freed = false;
  readonly fromArena = false;
  upload(): void {}
  download(): void {}
  async uploadAsync(): Promise<void> {}
  async downloadAsync(): Promise<void> {}
  free(): void {}
}

/** The probe never touches the runtime half (arena, streams, seams): left out, so any use fails. */
const runtimeUnused = {} as NativeHipRuntimeBinding;

/** A binding double: the probe's logic is about what the runtime answers, not about a real GPU. */
function fakeBinding(devices: Array<Partial<DeviceProperties>>, platform: 'amd' | 'nvidia' = 'amd', failAt = -1): NativeHipBinding {
  return {
    ...runtimeUnused,
    deviceCount: () => ({ count: devices.length, status: devices.length ? 'hipSuccess' : 'hipErrorNoDevice', message: '' }),
    deviceProperties: (i) => {
      if (i === failAt) throw Object.assign(new Error('hipGetDeviceProperties: hipErrorInvalidDevice'), { code: 'hipErrorInvalidDevice' });
      return { index: i, name: `gpu${i}`, arch: 'gfx90a', archName: 'gfx90a', totalMemory: 64 * 2 ** 30, computeUnits: 104, warpSize: 64, major: 9, minor: 0, pciBusId: i, ...devices[i] };
    },
    runtimeInfo: () => ({
      platform,
      runtime: platform === 'amd' ? 'HIP' : 'CUDA',
      runtimeVersion: 1,
      driverVersion: 1,
      compiledArchs: platform === 'amd' ? ['gfx90a', 'gfx1030'] : ['sm_90'],
    }),
    elementwise: () => undefined,
    DeviceBuffer: NoDeviceBuffer,
  };
}

describe('probeDevices', () => {
  it('accepts devices whose arch has kernels and marks the others', () => {
    const probe = probeDevices({ binding: fakeBinding([{ arch: 'gfx90a' }, { arch: 'gfx1100', name: 'Radeon RX 7900' }]) });
    expect(probe.ok).toBe(true);
    if (!probe.ok) return;
    expect(probe.devices.map((d) => d.usable)).toEqual([true, false]);
    expect(probe.devices[1].reason).toContain('device 1 (Radeon RX 7900, gfx1100) has no kernels in this build (built for gfx90a, gfx1030)');
    expect(probe.devices[1].reason).toContain('SWITCHYARD_HIP_ARCHS="gfx1100"');
  });

  it('declines when no device can run the kernels, with the rebuild for each', () => {
    const probe = probeDevices({ binding: fakeBinding([{ arch: 'sm_80' }], 'nvidia') });
    expect(probe.ok).toBe(false);
    expect(probe.ok || probe.reason).toContain('SWITCHYARD_CUDA_ARCHS="80"');
  });

  it('declines with a diagnosis when the runtime sees nothing', () => {
    const probe = probeDevices({ binding: fakeBinding([]), env: { HIP_VISIBLE_DEVICES: '' } });
    expect(probe.ok).toBe(false);
    expect(probe.ok || probe.reason).toMatch(/hipGetDeviceCount: hipErrorNoDevice.*HIP_VISIBLE_DEVICES='' hides every device/);
  });

  it('turns a failing property query into a reason', () => {
    const probe = probeDevices({ binding: fakeBinding([{}], 'amd', 0) });
    expect(probe.ok || probe.reason).toBe('device 0: querying its properties failed (hipGetDeviceProperties: hipErrorInvalidDevice)');
  });
});
