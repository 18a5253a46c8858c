/**
 * `switchyard_hip_test.node`, for this package's tests only: every export of `switchyard_hip.node` plus
 * `kernelsJs`, the kernel library's test entry (src/native/test_addon). scripts/build-native.mjs builds it
 * beside the addon; it is never published, so there is no prebuilt copy to fall back to. Found at
 * `SWITCHYARD_HIP_TEST_ADDON`, else beside the addon `SWITCHYARD_HIP_ADDON` names (scripts/sanitize.sh's
 * build-sanitize/Release/), else in the local build.
 */
import { dirname, join } from 'node:path';
import { loadAddon, type AddonLoadResult } from '@switchyard/native-toolkit';
import { isNativeHipBinding, type NativeHipBinding } from './binding.js';
import { defaultAddonPath, NATIVE_HIP_SPEC } from './load-native.js';

export const TEST_ADDON = 'switchyard_hip_test.node';

/** A kernelsJs.run spec: see src/native/test_addon/kernels_js.cc. */
export interface KernelRunSpec {
  inputs: unknown[];
  outputs: unknown[];
  attrs?: Record<string, unknown>;
  device?: number;
}

export type NativeHipTestBinding = NativeHipBinding & {
  kernelsJs: { run(name: string, spec: KernelRunSpec): { outputs: unknown[]; ms: number } };
};

function isTestBinding(value: unknown): value is NativeHipTestBinding {
  return isNativeHipBinding(value) && typeof (value as { kernelsJs?: { run?: unknown } }).kernelsJs?.run === 'function';
}

/** Where the test addon is looked for (only there). */
export function testAddonPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.SWITCHYARD_HIP_TEST_ADDON) return env.SWITCHYARD_HIP_TEST_ADDON;
  const addon = env.SWITCHYARD_HIP_ADDON || defaultAddonPath();
  return join(dirname(addon), TEST_ADDON);
}

/** Loads the test addon; like loadNativeHip, a missing or stale one is a reason, never an exception. */
export function loadNativeHipTest(env: Readonly<Record<string, string | undefined>> = process.env): AddonLoadResult<NativeHipTestBinding> {
  const spec = {
    ...NATIVE_HIP_SPEC,
    addon: TEST_ADDON,
    what: 'the HIP test addon',
    isBinding: isTestBinding,
    exportsText: `${NATIVE_HIP_SPEC.exportsText}/kernelsJs`,
    prebuiltPlatforms: [],
    buildFromSource: 'build it: pnpm --filter @switchyard/native-hip run build:native (it builds the test addon beside switchyard_hip.node)',
  };
  return loadAddon(spec, { path: testAddonPath(env), env });
}
