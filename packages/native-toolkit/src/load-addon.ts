/**
 * Finds and loads a Switchyard addon (sharp's pattern), for every package that has one: ep-cpu
 * (oneDNN), ep-migraphx (MIGraphX loader), native-hip (HIP/CUDA). Candidates, in order:
 *   1. an explicit path: the `path` option, else the spec's path variable (only that file is tried);
 *   2. the local build, `<package>/build/Release/<addon>` (built from source on this machine: whoever
 *      built it asked for it, so it wins over a prebuilt copy);
 *   3. the prebuilt platform package (`<package>-<os>-<arch>[-<libc>]`, an optional dependency), resolved
 *      from the package's own folder, with its shared libraries beside the addon (RUNPATH $ORIGIN).
 * When none loads, the reason says what was tried and what a user can do about it, in commands that
 * work in their project (no monorepo commands). Never throws: a missing addon is a reason for an EP to
 * fall back or decline.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type AddonLoadResult<B> = { ok: true; binding: B; path: string } | { ok: false; reason: string };

export interface Platform {
  os: string;
  arch: string;
  libc: 'gnu' | 'musl';
}

/** What differs between the addons: names, the binding check, and the words of the hints. */
export interface AddonSpec<B> {
  /** The npm package that holds the addon, e.g. `@switchyard/ep-cpu`. */
  packageName: string;
  /** The addon's file name, e.g. `switchyard_cpu.node`. */
  addon: string;
  /** `import.meta.url` of any module of that package (src/ or dist/): its package.json is looked for above it. */
  from: string;
  /** How reasons name it: `the oneDNN addon`. */
  what: string;
  /** True when the loaded module exports what this version of the package calls. */
  isBinding: (loaded: unknown) => loaded is B;
  /** The exports isBinding checks, for the "stale build" reason. */
  exportsText: string;
  /** Platform keys (`linux-x64-gnu`) with a published prebuilt package; empty: source builds only. */
  prebuiltPlatforms: readonly string[];
  /** How to build it from source in a user's project (packages to install, then the build command). */
  buildFromSource: string;
  /** Variable that disables the addon when `0` (`SWITCHYARD_CPU_NATIVE`), and what unsetting it brings back. */
  disableVariable: string;
  disabledMeans: string;
  /** Variable naming an addon file to load instead of searching (`SWITCHYARD_CPU_ADDON`). */
  pathVariable?: string;
  /** A package's own reading of a dlopen failure (a missing libdnnl, libamdhip64, …): the fix, or undefined. */
  explainLoadError?: (message: string) => string | undefined;
  /**
   * The same for the prebuilt addon, which may rely on a library of the user's system rather than bundle it
   * (native-hip: the HIP runtime of the machine's ROCm); undefined falls back to "too old a glibc" / "damaged".
   */
  explainPrebuiltLoadError?: (message: string) => string | undefined;
}

export interface LoadAddonOptions {
  /** The .node file to load, and only that one; default: the spec's path variable, else the search above. */
  path?: string;
  /** Environment to read the spec's variables from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where the local build is looked for; default `defaultAddonPath(spec)`. */
  localPath?: string;
  /** Platform of the prebuilt package to look for; default this process's (see `platformPackageName`). */
  platform?: Platform;
}

/** The package root: the nearest folder above `from` with a package.json (works from src/ and dist/). */
export function packageRoot(from: string): string {
  let dir = dirname(fileURLToPath(from));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return dir;
}

/** `<package>/build/Release/<addon>`: where scripts/build-native.mjs puts a build from source. */
export function defaultAddonPath(spec: Pick<AddonSpec<unknown>, 'from' | 'addon'>): string {
  return join(packageRoot(spec.from), 'build', 'Release', spec.addon);
}

/** The command that builds a package's addon from a user's project folder. */
export function buildCommand(packageName: string): string {
  return `node node_modules/${packageName}/scripts/build-native.mjs`;
}

export function currentPlatform(): Platform {
  const report = process.platform === 'linux' ? (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined) : undefined;
  return { os: process.platform, arch: process.arch, libc: report?.header?.glibcVersionRuntime ? 'gnu' : 'musl' };
}

/** `<package>-<os>-<arch>[-<libc>]`, the optional dependency npm installs on that platform. */
export function platformPackageName(packageName: string, platform: Platform = currentPlatform()): string {
  const libc = platform.os === 'linux' ? `-${platform.libc}` : '';
  return `${packageName}-${platform.os}-${platform.arch}${libc}`;
}

/** Where the platform package's addon is, resolved from the package's folder; undefined when it is not installed. */
function platformAddonPath(spec: AddonSpec<unknown>, name: string): string | undefined {
  try {
    const manifest = createRequire(join(packageRoot(spec.from), 'package.json')).resolve(`${name}/package.json`);
    return join(dirname(manifest), spec.addon);
  } catch {
    return undefined;
  }
}

/** Matches a dlopen/require failure to the fix a user can apply. */
function explainLoadError(spec: AddonSpec<unknown>, path: string, message: string, prebuilt: boolean): string {
  const what = `loading ${path} failed (${message.trim()})`;
  const rebuild = buildCommand(spec.packageName);
  if (prebuilt) {
    const own = spec.explainPrebuiltLoadError?.(message);
    if (own !== undefined) return `${what}: ${own}`;
    if (/GLIBC|GLIBCXX|CXXABI/.test(message)) return `${what}: this machine's glibc/libstdc++ is older than the prebuilt addon needs; ${spec.buildFromSource}`;
    return `${what}: the prebuilt package looks damaged; reinstall it (rm -rf node_modules && npm install), or ${spec.buildFromSource}`;
  }
  const own = spec.explainLoadError?.(message);
  if (own !== undefined) return `${what}: ${own}`;
  if (/libstdc\+\+|GLIBC|GLIBCXX/.test(message)) return `${what}: a system library the addon was built against is missing or too old; rebuild it on this machine: ${rebuild} --clean`;
  return `${what}: rebuild it: ${rebuild} --clean`;
}

type Attempt<B> = { loaded: AddonLoadResult<B> } | { missing: string };

function tryLoad<B>(spec: AddonSpec<B>, path: string, prebuilt: boolean): Attempt<B> {
  if (!existsSync(path)) return { missing: path };
  let loaded: unknown;
  try {
    loaded = createRequire(spec.from)(path);
  } catch (error) {
    return { loaded: { ok: false, reason: explainLoadError(spec, path, error instanceof Error ? error.message : String(error), prebuilt) } };
  }
  if (!spec.isBinding(loaded)) {
    return { loaded: { ok: false, reason: `${path} does not export ${spec.exportsText} (a stale build?); rebuild it (${buildCommand(spec.packageName)} --clean), or reinstall ${spec.packageName}` } };
  }
  return { loaded: { ok: true, binding: loaded, path } };
}

/** Why nothing was found, and the ways to get the addon on this platform. */
function notFoundReason(spec: AddonSpec<unknown>, localPath: string, platformPackage: string): string {
  if (spec.prebuiltPlatforms.length === 0) return `${spec.what} is not built (no ${localPath}). Fix: ${spec.buildFromSource}`;
  const platformKey = platformPackage.slice(spec.packageName.length + 1);
  const install = spec.prebuiltPlatforms.includes(platformKey)
    ? `${platformPackage} is an optional dependency of ${spec.packageName} that was not installed (npm install --omit=optional, --no-optional, or a lockfile made on another platform?); run npm install again, or npm install ${platformPackage}, or ${spec.buildFromSource}`
    : `there is no prebuilt addon for ${platformKey}; ${spec.buildFromSource}`;
  return `${spec.what} is not installed (no ${localPath}, no package ${platformPackage}). Fix: ${install}`;
}

/** Loads the addon (Node caches the module by path); the result, success or reason, is data, never an exception. */
export function loadAddon<B>(spec: AddonSpec<B>, options: LoadAddonOptions = {}): AddonLoadResult<B> {
  const env = options.env ?? process.env;
  if (env[spec.disableVariable] === '0') {
    return { ok: false, reason: `${spec.what} is disabled by ${spec.disableVariable}=0 (unset it to ${spec.disabledMeans})` };
  }
  const explicit = options.path ?? ((spec.pathVariable && env[spec.pathVariable]) || undefined);
  if (explicit !== undefined) {
    const attempt = tryLoad(spec, explicit, false);
    const origin = options.path !== undefined ? 'the path given' : spec.pathVariable;
    return 'loaded' in attempt ? attempt.loaded : { ok: false, reason: `${spec.what} named by ${origin} does not exist (no ${explicit}). Fix: ${spec.buildFromSource}` };
  }
  const local = tryLoad(spec, options.localPath ?? defaultAddonPath(spec), false);
  if ('loaded' in local) return local.loaded;
  const platformPackage = platformPackageName(spec.packageName, options.platform);
  const prebuiltPath = spec.prebuiltPlatforms.length > 0 ? platformAddonPath(spec, platformPackage) : undefined;
  if (prebuiltPath === undefined) return { ok: false, reason: notFoundReason(spec, local.missing, platformPackage) };
  const prebuilt = tryLoad(spec, prebuiltPath, true);
  if ('loaded' in prebuilt) return prebuilt.loaded;
  // The package is there without its binary: an unfilled workspace copy, or a damaged install.
  return {
    ok: false,
    reason: `${spec.what} is not installed (no ${local.missing}; ${platformPackage} is installed but has no ${prebuilt.missing}). Fix: reinstall it (rm -rf node_modules && npm install), or ${spec.buildFromSource}`,
  };
}

/** `loadAddon` with the default options, done once per process (dlopen is not free, and its answer does not change). */
export function addonOnce<B>(spec: AddonSpec<B>): () => AddonLoadResult<B> {
  let result: AddonLoadResult<B> | undefined;
  return () => (result ??= loadAddon(spec));
}
