/**
 * Finds and loads `switchyard_hip.node` (sharp's pattern): try the local build, and when that fails
 * say why in terms of what to do about it. Never throws: a missing addon is a reason for the ROCm EP
 * to decline, not a crash.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isNativeHipBinding, type NativeHipBinding } from './binding.js';

export type NativeHipLoadResult = { ok: true; binding: NativeHipBinding; path: string } | { ok: false; reason: string };

export interface LoadNativeHipOptions {
  /** The .node file to load; default `<package>/build/Release/switchyard_hip.node`. */
  path?: string;
  /** Environment to read `SWITCHYARD_HIP_NATIVE` from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

export const BUILD_COMMAND = 'pnpm --filter @switchyard/native-hip run build:native';
const INSTALL_HIP = 'apt-get install hipcc libamdhip64-dev (or install ROCm)';

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
  return join(packageRoot(), 'build', 'Release', 'switchyard_hip.node');
}

/** Matches a dlopen failure to the fix a user can apply. */
function explainLoadError(path: string, message: string): string {
  const text = message.trim();
  if (/libamdhip64/.test(text)) {
    return `the HIP runtime library is missing (${text}). Fix: apt-get install libamdhip64-5, or install ROCm and make sure /opt/rocm/lib is on the loader path`;
  }
  if (/libcudart/.test(text)) {
    return `the CUDA runtime library is missing (${text}); this addon was built for NVIDIA. Fix: install the CUDA toolkit, or rebuild for AMD with SWITCHYARD_GPU_PLATFORM=amd ${BUILD_COMMAND}`;
  }
  if (/libstdc\+\+|GLIBC|GLIBCXX/.test(text)) {
    return `a system library the addon was built against is missing or too old (${text}). Fix: rebuild on this machine with ${BUILD_COMMAND}`;
  }
  return `loading ${path} failed (${text}). Fix: rebuild with ${BUILD_COMMAND} (or node scripts/build-native.mjs --clean in packages/native-hip)`;
}

/** Loads the addon (Node caches it by path); the result, success or reason, is data, never an exception. */
export function loadNativeHip(options: LoadNativeHipOptions = {}): NativeHipLoadResult {
  const env = options.env ?? process.env;
  if (env.SWITCHYARD_HIP_NATIVE === '0') {
    return { ok: false, reason: 'the HIP addon is disabled by SWITCHYARD_HIP_NATIVE=0 (unset it to use the GPU)' };
  }
  const path = options.path ?? defaultAddonPath();
  if (!existsSync(path)) {
    return { ok: false, reason: `the HIP addon is not built (no ${path}). Fix: ${BUILD_COMMAND} (needs hipcc: ${INSTALL_HIP}; cmake and g++)` };
  }
  let loaded: unknown;
  try {
    loaded = createRequire(import.meta.url)(path);
  } catch (error) {
    return { ok: false, reason: explainLoadError(path, error instanceof Error ? error.message : String(error)) };
  }
  if (!isNativeHipBinding(loaded)) {
    return { ok: false, reason: `${path} does not export deviceCount/deviceProperties/runtimeInfo/elementwise/DeviceBuffer (a stale build?). Fix: ${BUILD_COMMAND}` };
  }
  return { ok: true, binding: loaded, path };
}

let defaultResult: NativeHipLoadResult | undefined;

/** The default load, done once per process (dlopen is not free, and its answer does not change). */
export function nativeHipBinding(): NativeHipLoadResult {
  defaultResult ??= loadNativeHip();
  return defaultResult;
}
