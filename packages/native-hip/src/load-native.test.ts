import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { NativeHipBinding } from './binding.js';
import { defaultAddonPath, loadNativeHip } from './load-native.js';
import { loadNativeHipTest, testAddonPath } from './load-test-addon.js';
import { probeDevices } from './devices.js';

const packageRoot = join(import.meta.dirname, '..');
const onPath = (name: string) => (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, name)));
const hasCompiler = onPath('hipcc') || onPath('nvcc') || existsSync('/opt/rocm/bin/hipcc');
// A machine with a GPU driver answers differently; the "no device" expectations hold only without one.
const gpuHost = existsSync('/dev/kfd') || existsSync('/dev/nvidia0');

describe.skipIf(!hasCompiler)('switchyard_hip.node (built here)', () => {
  let binding: NativeHipBinding;

  let loadedPath = '';

  beforeAll(() => {
    // Milliseconds when up to date (setup.sh builds it); a full build takes minutes on 2 cores. Not when
    // SWITCHYARD_HIP_ADDON names another build (scripts/sanitize.sh's): that one is tested, built by its owner.
    if (!process.env.SWITCHYARD_HIP_ADDON) execFileSync(process.execPath, [join(packageRoot, 'scripts', 'build-native.mjs')], { stdio: 'pipe' });
    const loaded = loadNativeHip();
    if (!loaded.ok) throw new Error(`addon did not load: ${loaded.reason}`);
    binding = loaded.binding;
    loadedPath = loaded.path;
  });

  it('reports the platform and the architectures its kernels were compiled for', () => {
    const info = binding.runtimeInfo();
    const platform = process.env.SWITCHYARD_GPU_PLATFORM ?? (onPath('hipcc') || existsSync('/opt/rocm/bin/hipcc') ? 'amd' : 'nvidia');
    expect(info.platform).toBe(platform);
    // The architectures its build was asked for (the settings stamp beside it; gfx90a and gfx1030 by default).
    const stamp = JSON.parse(readFileSync(join(dirname(loadedPath), 'switchyard_hip.build.json'), 'utf8')) as { SWITCHYARD_GPU_ARCHS: string };
    if (platform === 'amd') expect(info.compiledArchs).toEqual(stamp.SWITCHYARD_GPU_ARCHS.split(';'));
    expect(info.runtimeVersion).toBeGreaterThan(0);
  });

  it.skipIf(gpuHost)('counts 0 devices without throwing, and says why in terms of /dev/kfd', () => {
    const counted = binding.deviceCount();
    expect(counted.count).toBe(0);
    expect(counted.status).toMatch(/ErrorNoDevice|ErrorInsufficientDriver|ErrorNotInitialized/);
    const probe = probeDevices({ binding, env: {} });
    expect(probe.ok).toBe(false);
    if (probe.ok) return;
    expect(probe.reason).toContain(`GetDeviceCount: ${counted.status}`);
    if (binding.runtimeInfo().platform === 'amd') {
      expect(probe.reason).toContain('/dev/kfd is missing');
      expect(probe.reason).toContain('HIP_VISIBLE_DEVICES is unset');
      expect(probe.reason).toMatch(/render/);
    }
  });

  it.skipIf(gpuHost)('throws a coded error, not a crash, when asked for a device that is not there', () => {
    expect(() => binding.deviceProperties(0)).toThrow(/GetDeviceCount: \w+ErrorNoDevice|not in \[0, 0\)/);
    // GPU failures carry the runtime's status name as their code (gpu_errors.h, through the toolkit's ThrowJs).
    expect(() => new binding.DeviceBuffer(0, 16)).toThrow(expect.objectContaining({ code: expect.stringMatching(/^(hip|cuda)Error\w+$/) }));
    expect(() => new binding.DeviceBuffer(0, 16)).toThrow(/hipSetDevice|cudaSetDevice|ErrorInvalidDevice|ErrorNoDevice/);
  });

  it('rejects bad arguments with clear errors', () => {
    expect(() => Reflect.apply(binding.deviceProperties, binding, ['0'])).toThrow(TypeError);
    // The native toolkit's coded errors: the code SwitchyardError uses, on TypeErrors and RangeErrors alike.
    expect(() => Reflect.apply(binding.deviceProperties, binding, ['0'])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => new binding.DeviceBuffer(-1, 4)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => binding.elementwise('Div' as 'Add', null as never, null, null as never, 1)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => new binding.DeviceBuffer(-1, 4)).toThrow(/deviceId must be a non-negative integer/);
    expect(() => new binding.DeviceBuffer(0, 1.5)).toThrow(/byteLength must be a non-negative integer/);
    expect(() => binding.elementwise('Div' as 'Add', null as never, null, null as never, 1)).toThrow(/unknown op 'Div'/);
    const fake = {} as never;
    expect(() => binding.elementwise('Add', fake, fake, fake, 1)).toThrow(/a must be a DeviceBuffer/);
    expect(() => binding.elementwise('Relu', fake, null, fake, -1)).toThrow(/count must be a non-negative integer/);
  });

  it('leaves the test-only kernelsJs to the test addon built beside it', () => {
    expect(binding).not.toHaveProperty('kernelsJs');
    const test = loadNativeHipTest();
    if (!test.ok) throw new Error(`the test addon did not load: ${test.reason}`);
    expect(test.path).toBe(join(dirname(loadedPath), 'switchyard_hip_test.node'));
    expect(typeof test.binding.kernelsJs.run).toBe('function');
    expect(Object.keys(test.binding).filter((k) => k !== 'kernelsJs').sort()).toEqual(Object.keys(binding).sort());
  });
});

describe.runIf(!hasCompiler)('switchyard_hip.node (no GPU compiler here)', () => {
  it('is skipped: neither hipcc nor nvcc is installed (apt-get install hipcc libamdhip64-dev)', () => {
    expect(hasCompiler).toBe(false);
  });
});

describe('loadNativeHip', () => {
  it('explains a missing build with the command that builds it, in words that work in a user project', () => {
    const localPath = join(tmpdir(), 'no-such-dir', 'switchyard_hip.node');
    // A platform without a prebuilt package: building is the way.
    const result = loadNativeHip({ localPath, env: {}, platform: { os: 'linux', arch: 'arm64', libc: 'gnu' } });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('node node_modules/@switchyard/native-hip/scripts/build-native.mjs') });
    expect(result.ok || result.reason).toMatch(/^the HIP addon is not installed \(no .*switchyard_hip\.node, no package @switchyard\/native-hip-linux-arm64-gnu\)\. Fix: there is no prebuilt addon for linux-arm64-gnu; build it: apt-get install hipcc/);
    expect(result.ok || result.reason).not.toMatch(/pnpm|--filter/);
    const named = loadNativeHip({ env: { SWITCHYARD_HIP_ADDON: localPath } });
    expect(named.ok || named.reason).toContain(`named by SWITCHYARD_HIP_ADDON does not exist (no ${localPath})`);
  });

  it('falls back to the prebuilt AMD package after the local build, or says how to install it', () => {
    const localPath = join(tmpdir(), 'no-such-dir', 'switchyard_hip.node');
    const result = loadNativeHip({ localPath, env: {}, platform: { os: 'linux', arch: 'x64', libc: 'gnu' } });
    // In the workspace the platform package is linked but only filled by fill-prebuilt.mjs (the npm-install test fills a copy).
    if (result.ok) expect(result.path).toMatch(/native-hip-linux-x64-gnu[/\\]switchyard_hip\.node$/);
    else expect(result.reason).toMatch(/@switchyard\/native-hip-linux-x64-gnu (is installed but has no .*switchyard_hip\.node|is an optional dependency .* npm install)/);
  });

  it('can be disabled by SWITCHYARD_HIP_NATIVE=0', () => {
    const result = loadNativeHip({ env: { SWITCHYARD_HIP_NATIVE: '0' } });
    expect(result.ok).toBe(false);
    expect(result.ok || result.reason).toContain('SWITCHYARD_HIP_NATIVE=0');
  });

  it('turns a file that is not an addon into a reason', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-hip-'));
    const path = join(dir, 'switchyard_hip.node');
    writeFileSync(path, 'not an ELF file');
    const result = loadNativeHip({ path });
    expect(result.ok).toBe(false);
    expect(result.ok || result.reason).toMatch(/loading .* failed .*rebuild it: node node_modules\/@switchyard\/native-hip\/scripts\/build-native\.mjs --clean$/);
  });

  it('looks for the addon inside the package', () => {
    expect(defaultAddonPath()).toBe(join(packageRoot, 'build', 'Release', 'switchyard_hip.node'));
  });

  it('looks for the test addon beside the addon, or where SWITCHYARD_HIP_TEST_ADDON says', () => {
    expect(testAddonPath({})).toBe(join(packageRoot, 'build', 'Release', 'switchyard_hip_test.node'));
    expect(testAddonPath({ SWITCHYARD_HIP_ADDON: '/x/build-sanitize/Release/switchyard_hip.node' })).toBe('/x/build-sanitize/Release/switchyard_hip_test.node');
    expect(testAddonPath({ SWITCHYARD_HIP_ADDON: '/x/a.node', SWITCHYARD_HIP_TEST_ADDON: '/y/t.node' })).toBe('/y/t.node');
    const missing = loadNativeHipTest({ SWITCHYARD_HIP_TEST_ADDON: join(tmpdir(), 'no-such-dir', 'switchyard_hip_test.node') });
    expect(missing.ok || missing.reason).toMatch(/^the HIP test addon named by the path given does not exist .*build:native/);
  });
});
