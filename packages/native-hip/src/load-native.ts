/**
 * `switchyard_hip.node`, found by the shared loader of @switchyard/native-toolkit
 * (`SWITCHYARD_HIP_ADDON`, else the local build; no prebuilt package yet), with HIP's and CUDA's
 * dlopen failures explained. Never throws: a missing addon is a reason for the ROCm EP to decline.
 */
import { addonOnce, buildCommand, defaultAddonPath as addonPathOf, loadAddon, type AddonLoadResult, type AddonSpec, type LoadAddonOptions } from '@switchyard/native-toolkit';
import { isNativeHipBinding, type NativeHipBinding } from './binding.js';

export type NativeHipLoadResult = AddonLoadResult<NativeHipBinding>;
export type LoadNativeHipOptions = Pick<LoadAddonOptions, 'path' | 'env' | 'localPath'>;

const PACKAGE = '@switchyard/native-hip';
/** Builds the addon from a user's project folder; AMD needs hipcc, NVIDIA nvcc, both cmake and g++. */
export const BUILD_COMMAND = `npm install --no-save cmake-js node-addon-api, then ${buildCommand(PACKAGE)}`;
const INSTALL_HIP = 'apt-get install hipcc libamdhip64-dev cmake g++ (or install ROCm; for NVIDIA the CUDA toolkit)';

const SPEC: AddonSpec<NativeHipBinding> = {
  packageName: PACKAGE,
  addon: 'switchyard_hip.node',
  from: import.meta.url,
  what: 'the HIP addon',
  isBinding: isNativeHipBinding,
  exportsText: 'deviceCount/deviceProperties/runtimeInfo/elementwise/DeviceBuffer',
  prebuiltPlatforms: [],
  buildFromSource: `build it: ${INSTALL_HIP}, ${BUILD_COMMAND}`,
  disableVariable: 'SWITCHYARD_HIP_NATIVE',
  disabledMeans: 'use the GPU',
  pathVariable: 'SWITCHYARD_HIP_ADDON',
  explainLoadError: (message) => {
    if (/libamdhip64/.test(message)) return 'the HIP runtime library is missing; apt-get install libamdhip64-5, or install ROCm and make sure /opt/rocm/lib is on the loader path';
    if (/libcudart/.test(message)) return `the CUDA runtime library is missing (this addon was built for NVIDIA); install the CUDA toolkit, or rebuild for AMD: SWITCHYARD_GPU_PLATFORM=amd ${buildCommand(PACKAGE)} --clean`;
    return undefined;
  },
};

export function defaultAddonPath(): string {
  return addonPathOf(SPEC);
}

/** Loads the addon; the result, success or reason, is data, never an exception. */
export function loadNativeHip(options: LoadNativeHipOptions = {}): NativeHipLoadResult {
  return loadAddon(SPEC, options);
}

/** The default load, done once per process. */
export const nativeHipBinding: () => NativeHipLoadResult = addonOnce(SPEC);
