/**
 * Finds and loads `switchyard_cpu.node` (sharp's pattern). Candidates, in order:
 *   1. an explicit path: the `path` option, else `SWITCHYARD_CPU_ADDON` (only that file is tried);
 *   2. the local build, `<package>/build/Release/switchyard_cpu.node` (developers, builds from source);
 *   3. the prebuilt platform package (`@switchyard/ep-cpu-linux-x64-gnu`, an optional dependency),
 *      resolved from this package's own folder, with oneDNN beside the addon (RUNPATH $ORIGIN).
 * When none loads, the reason says what was tried and what a user can do about it, in commands that work
 * in their project. Never throws: the CPU EP runs on its TS kernels without the addon.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isNativeBinding, type NativeBinding } from './binding.js';

export type NativeLoadResult = { ok: true; binding: NativeBinding; path: string } | { ok: false; reason: string };

export interface LoadNativeOptions {
  /** The .node file to load, and only that one; default: `SWITCHYARD_CPU_ADDON`, else the search above. */
  path?: string;
  /** Environment to read `SWITCHYARD_CPU_NATIVE` and `SWITCHYARD_CPU_ADDON` from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where the local build is looked for; default `defaultAddonPath()`. */
  localPath?: string;
  /** Platform key of the prebuilt package to look for; default this process's (see `platformPackageName`). */
  platform?: { os: string; arch: string; libc: 'gnu' | 'musl' };
}

const PACKAGE = '@switchyard/ep-cpu';
const ADDON = 'switchyard_cpu.node';
/** Platforms with a published prebuilt package. */
const PREBUILT_PLATFORMS = ['linux-x64-gnu'];
export const BUILD_FROM_SOURCE =
  `build from source: apt-get install cmake g++ libdnnl-dev (or your system's oneDNN 2.x), ` +
  `npm install --no-save cmake-js node-addon-api, then node node_modules/${PACKAGE}/scripts/build-native.mjs`;

/** The package root: the nearest folder above this module with a package.json (works from src/ and dist/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return dir;
}

export function defaultAddonPath(): string {
  return join(packageRoot(), 'build', 'Release', ADDON);
}

function currentPlatform(): { os: string; arch: string; libc: 'gnu' | 'musl' } {
  const report = process.platform === 'linux' ? (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined) : undefined;
  return { os: process.platform, arch: process.arch, libc: report?.header?.glibcVersionRuntime ? 'gnu' : 'musl' };
}

/** `@switchyard/ep-cpu-<os>-<arch>[-<libc>]`, the optional dependency npm installs on this platform. */
export function platformPackageName(platform = currentPlatform()): string {
  const libc = platform.os === 'linux' ? `-${platform.libc}` : '';
  return `${PACKAGE}-${platform.os}-${platform.arch}${libc}`;
}

/** Where the platform package's addon is, resolved from this package's folder; undefined when it is not installed. */
function platformAddonPath(name: string): string | undefined {
  try {
    const manifest = createRequire(join(packageRoot(), 'package.json')).resolve(`${name}/package.json`);
    return join(dirname(manifest), ADDON);
  } catch {
    return undefined;
  }
}

/** Matches a dlopen/require failure to the fix a user can apply. */
function explainLoadError(path: string, message: string, prebuilt: boolean): string {
  const what = `loading ${path} failed (${message.trim()})`;
  if (prebuilt) {
    if (/GLIBC|GLIBCXX|CXXABI/.test(message)) return `${what}: this machine's glibc/libstdc++ is older than the prebuilt addon needs; ${BUILD_FROM_SOURCE}`;
    return `${what}: the prebuilt package looks damaged; reinstall it (rm -rf node_modules && npm install), or ${BUILD_FROM_SOURCE}`;
  }
  if (/libdnnl/.test(message)) return `${what}: oneDNN's shared library is missing; apt-get install libdnnl2 (or libdnnl-dev)`;
  if (/libgomp|libstdc\+\+|GLIBC|GLIBCXX/.test(message)) return `${what}: a system library the addon was built against is missing or too old; rebuild it on this machine`;
  return `${what}: rebuild it (node scripts/build-native.mjs --clean in the ${PACKAGE} folder)`;
}

type Attempt = { loaded: NativeLoadResult } | { missing: string };

function tryLoad(path: string, prebuilt: boolean): Attempt {
  if (!existsSync(path)) return { missing: path };
  let loaded: unknown;
  try {
    loaded = createRequire(import.meta.url)(path);
  } catch (error) {
    return { loaded: { ok: false, reason: explainLoadError(path, error instanceof Error ? error.message : String(error), prebuilt) } };
  }
  if (!isNativeBinding(loaded)) {
    return { loaded: { ok: false, reason: `${path} does not export ConvPrimitive/MatMulPrimitive/runtimeInfo (a stale build?); rebuild it, or reinstall ${PACKAGE}` } };
  }
  return { loaded: { ok: true, binding: loaded, path } };
}

/** Why nothing was found, and the ways to get the addon on this platform. */
function notFoundReason(localPath: string, platformPackage: string): string {
  const platformKey = platformPackage.slice(PACKAGE.length + 1);
  const install = PREBUILT_PLATFORMS.includes(platformKey)
    ? `${platformPackage} is an optional dependency of ${PACKAGE} that was not installed (npm install --omit=optional, --no-optional, or a lockfile made on another platform?); run npm install again, or npm install ${platformPackage}, or ${BUILD_FROM_SOURCE}`
    : `there is no prebuilt addon for ${platformKey}; ${BUILD_FROM_SOURCE}`;
  return `the oneDNN addon is not installed (no ${localPath}, no package ${platformPackage}). Fix: ${install}`;
}

/** Loads the addon (Node caches the module by path); the result, success or reason, is data, never an exception. */
export function loadNative(options: LoadNativeOptions = {}): NativeLoadResult {
  const env = options.env ?? process.env;
  if (env.SWITCHYARD_CPU_NATIVE === '0') {
    return { ok: false, reason: 'the oneDNN addon is disabled by SWITCHYARD_CPU_NATIVE=0 (unset it to use the native fast paths)' };
  }
  const explicit = options.path ?? (env.SWITCHYARD_CPU_ADDON || undefined);
  if (explicit !== undefined) {
    const attempt = tryLoad(explicit, false);
    const origin = options.path !== undefined ? 'the path given' : 'SWITCHYARD_CPU_ADDON';
    return 'loaded' in attempt ? attempt.loaded : { ok: false, reason: `the oneDNN addon named by ${origin} does not exist (no ${explicit})` };
  }
  const local = tryLoad(options.localPath ?? defaultAddonPath(), false);
  if ('loaded' in local) return local.loaded;
  const platformPackage = platformPackageName(options.platform);
  const prebuiltPath = platformAddonPath(platformPackage);
  if (prebuiltPath === undefined) return { ok: false, reason: notFoundReason(local.missing, platformPackage) };
  const prebuilt = tryLoad(prebuiltPath, true);
  if ('loaded' in prebuilt) return prebuilt.loaded;
  // The package is there without its binary: an unfilled workspace copy, or a damaged install.
  return {
    ok: false,
    reason: `the oneDNN addon is not installed (no ${local.missing}; ${platformPackage} is installed but has no ${prebuilt.missing}). Fix: reinstall it (rm -rf node_modules && npm install), or ${BUILD_FROM_SOURCE}`,
  };
}

let defaultResult: NativeLoadResult | undefined;

/** The default load, done once per process (dlopen is not free, and its answer does not change). */
export function nativeBinding(): NativeLoadResult {
  defaultResult ??= loadNative();
  return defaultResult;
}
