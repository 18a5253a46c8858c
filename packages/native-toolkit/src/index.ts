/**
 * @switchyard/native-toolkit: what Switchyard's native addons share. This entry is the addon loader;
 * the package also holds the C++ headers (include/switchyard: coded errors, argument readers, promise
 * worker), their sources and CMake module (native/, cmake/), and the cmake-js build script
 * (`@switchyard/native-toolkit/build-addon`).
 */
export {
  addonOnce,
  buildCommand,
  currentPlatform,
  defaultAddonPath,
  loadAddon,
  packageRoot,
  platformPackageName,
  type AddonLoadResult,
  type AddonSpec,
  type LoadAddonOptions,
  type Platform,
} from './load-addon.js';
