/**
 * The oneDNN addon, `switchyard_cpu.node`, found by the shared loader of @switchyard/native-toolkit:
 * `SWITCHYARD_CPU_ADDON` (only that file), else the local build, else the prebuilt platform package
 * (`@switchyard/ep-cpu-linux-x64-gnu`, an optional dependency, with oneDNN beside the addon). Never
 * throws: the CPU EP runs on its TS kernels without the addon.
 */
import {
  addonOnce,
  buildCommand,
  defaultAddonPath as addonPathOf,
  loadAddon,
  platformPackageName as platformPackageOf,
  type AddonLoadResult,
  type AddonSpec,
  type LoadAddonOptions,
  type Platform,
} from '@switchyard/native-toolkit';
import { isNativeBinding, type NativeBinding } from './binding.js';

export type NativeLoadResult = AddonLoadResult<NativeBinding>;
export type LoadNativeOptions = LoadAddonOptions;

const PACKAGE = '@switchyard/ep-cpu';
export const BUILD_FROM_SOURCE =
  `build from source: apt-get install cmake g++ libdnnl-dev (or your system's oneDNN 2.x), ` +
  `npm install --no-save cmake-js node-addon-api, then ${buildCommand(PACKAGE)}`;

const SPEC: AddonSpec<NativeBinding> = {
  packageName: PACKAGE,
  addon: 'switchyard_cpu.node',
  from: import.meta.url,
  what: 'the oneDNN addon',
  isBinding: isNativeBinding,
  exportsText: 'ConvPrimitive/MatMulPrimitive/runtimeInfo',
  prebuiltPlatforms: ['linux-x64-gnu'],
  buildFromSource: BUILD_FROM_SOURCE,
  disableVariable: 'SWITCHYARD_CPU_NATIVE',
  disabledMeans: 'use the native fast paths',
  pathVariable: 'SWITCHYARD_CPU_ADDON',
  explainLoadError: (message) => (/libdnnl/.test(message) ? "oneDNN's shared library is missing; apt-get install libdnnl2 (or libdnnl-dev)" : undefined),
};

export function defaultAddonPath(): string {
  return addonPathOf(SPEC);
}

/** `@switchyard/ep-cpu-<os>-<arch>[-<libc>]`, the optional dependency npm installs on this platform. */
export function platformPackageName(platform?: Platform): string {
  return platformPackageOf(PACKAGE, platform);
}

/** Loads the addon; the result, success or reason, is data, never an exception. */
export function loadNative(options: LoadNativeOptions = {}): NativeLoadResult {
  return loadAddon(SPEC, options);
}

/** The default load, done once per process. */
export const nativeBinding: () => NativeLoadResult = addonOnce(SPEC);
