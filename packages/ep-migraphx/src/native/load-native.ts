/**
 * `switchyard_migraphx.node`, the small addon whose only job is to dlopen MIGraphX's C library (Node
 * cannot dlopen a plain shared library itself), found by the shared loader of @switchyard/native-toolkit
 * (`SWITCHYARD_MIGRAPHX_ADDON`, else the local build; there is no prebuilt package). Never throws: a
 * missing addon is a reason for the EP to decline.
 */
import { addonOnce, buildCommand, defaultAddonPath as addonPathOf, loadAddon, type AddonLoadResult, type AddonSpec, type LoadAddonOptions } from '@switchyard/native-toolkit';
import { isMigraphxNativeBinding, type MigraphxNativeBinding } from './binding.js';

export type MigraphxAddonLoadResult = AddonLoadResult<MigraphxNativeBinding>;

const PACKAGE = '@switchyard/ep-migraphx';
/** Builds the addon from a user's project folder (needs cmake and g++; no MIGraphX needed to build). */
export const BUILD_COMMAND = `npm install --no-save cmake-js node-addon-api, then ${buildCommand(PACKAGE)}`;

const SPEC: AddonSpec<MigraphxNativeBinding> = {
  packageName: PACKAGE,
  addon: 'switchyard_migraphx.node',
  from: import.meta.url,
  what: 'the MIGraphX loader addon',
  isBinding: isMigraphxNativeBinding,
  exportsText: 'loadLibrary, targetError, compileOnnx, loadProgram and hipDevices',
  prebuiltPlatforms: [],
  buildFromSource: `build it: apt-get install cmake g++ (no MIGraphX needed to build), ${BUILD_COMMAND}`,
  disableVariable: 'SWITCHYARD_MIGRAPHX_NATIVE',
  disabledMeans: 'use MIGraphX',
  pathVariable: 'SWITCHYARD_MIGRAPHX_ADDON',
};

export function defaultAddonPath(): string {
  return addonPathOf(SPEC);
}

export type LoadMigraphxAddonOptions = Pick<LoadAddonOptions, 'path' | 'env' | 'localPath'>;

/** Loads the addon (`path`: that file only; default the search above); the result is data, never an exception. */
export function loadMigraphxAddon(options: LoadMigraphxAddonOptions = {}): MigraphxAddonLoadResult {
  return loadAddon(SPEC, options);
}

/** The default load, once per process. */
export const migraphxAddon: () => MigraphxAddonLoadResult = addonOnce(SPEC);
