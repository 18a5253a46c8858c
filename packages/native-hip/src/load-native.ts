/**
 * `switchyard_hip.node`, found by the shared loader of @switchyard/native-toolkit
 * (`SWITCHYARD_HIP_ADDON`, else the local build, else the prebuilt AMD build of
 * `@switchyard/native-hip-linux-x64-gnu`), with HIP's and CUDA's dlopen failures explained. Never throws:
 * a missing addon is a reason for the ROCm EP to decline.
 */
import { addonOnce, buildCommand, defaultAddonPath as addonPathOf, loadAddon, type AddonLoadResult, type AddonSpec, type LoadAddonOptions } from '@switchyard/native-toolkit';
import { isNativeHipBinding, type NativeHipBinding } from './binding.js';

export type NativeHipLoadResult = AddonLoadResult<NativeHipBinding>;
export type LoadNativeHipOptions = Pick<LoadAddonOptions, 'path' | 'env' | 'localPath' | 'platform'>;

const PACKAGE = '@switchyard/native-hip';
/** Builds the addon from a user's project folder; AMD needs hipcc, NVIDIA nvcc, both cmake and g++. */
export const BUILD_COMMAND = `npm install --no-save cmake-js node-addon-api, then ${buildCommand(PACKAGE)}`;
const INSTALL_HIP = 'apt-get install hipcc libamdhip64-dev cmake g++ (or install ROCm; for NVIDIA the CUDA toolkit)';
/** The HIP runtime the prebuilt addon links (it bundles none: the machine's ROCm provides it, see its README). */
export const PREBUILT_HIP_RUNTIME = 'libamdhip64.so.5';

/** How the addon is found and explained; the test addon's loader (load-test-addon.ts) starts from it. */
export const NATIVE_HIP_SPEC: AddonSpec<NativeHipBinding> = {
  packageName: PACKAGE,
  addon: 'switchyard_hip.node',
  from: import.meta.url,
  what: 'the HIP addon',
  isBinding: isNativeHipBinding,
  exportsText: 'deviceCount/deviceProperties/runtimeInfo/elementwise/DeviceBuffer',
  prebuiltPlatforms: ['linux-x64-gnu'],
  buildFromSource: `build it: ${INSTALL_HIP}, ${BUILD_COMMAND}`,
  disableVariable: 'SWITCHYARD_HIP_NATIVE',
  disabledMeans: 'use the GPU',
  pathVariable: 'SWITCHYARD_HIP_ADDON',
  explainLoadError: (message) => {
    if (/libamdhip64/.test(message)) return 'the HIP runtime library is missing; apt-get install libamdhip64-5, or install ROCm and make sure /opt/rocm/lib is on the loader path';
    if (/libcudart/.test(message)) return `the CUDA runtime library is missing (this addon was built for NVIDIA); install the CUDA toolkit, or rebuild for AMD: SWITCHYARD_GPU_PLATFORM=amd ${buildCommand(PACKAGE)} --clean`;
    return undefined;
  },
  // The prebuilt addon is an AMD build against ROCm 5's HIP runtime, which it expects from the machine.
  explainPrebuiltLoadError: (message) => {
    if (!/libamdhip64|libhsa-runtime64|libamd_comgr/.test(message)) return undefined;
    return (
      `the prebuilt AMD addon uses the machine's HIP runtime of ROCm 5 (${PREBUILT_HIP_RUNTIME}), and the loader found none: ` +
      'install ROCm 5.x (its /opt/rocm/lib is searched) or apt-get install libamdhip64-5 where the distribution has it (Debian 12), ' +
      `or put its folder on LD_LIBRARY_PATH. With ROCm 6 or later, or an NVIDIA GPU, build the addon from source: ${INSTALL_HIP}, ${BUILD_COMMAND}`
    );
  },
};

export function defaultAddonPath(): string {
  return addonPathOf(NATIVE_HIP_SPEC);
}

/** Loads the addon; the result, success or reason, is data, never an exception. */
export function loadNativeHip(options: LoadNativeHipOptions = {}): NativeHipLoadResult {
  return loadAddon(NATIVE_HIP_SPEC, options);
}

/** The default load, done once per process. */
export const nativeHipBinding: () => NativeHipLoadResult = addonOnce(NATIVE_HIP_SPEC);
