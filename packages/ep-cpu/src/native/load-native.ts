/**
 * Finds and loads `switchyard_cpu.node` (sharp's pattern): try the local build, and when that fails
 * say why in terms of what to do about it. Never throws: the CPU EP runs on its TS kernels without it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isNativeBinding, type NativeBinding } from './binding.js';

export type NativeLoadResult = { ok: true; binding: NativeBinding; path: string } | { ok: false; reason: string };

export interface LoadNativeOptions {
  /** The .node file to load; default `<package>/build/Release/switchyard_cpu.node`. */
  path?: string;
  /** Environment to read `SWITCHYARD_CPU_NATIVE` from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

export const BUILD_COMMAND = 'pnpm --filter @switchyard/ep-cpu run build:native';
const INSTALL_ONEDNN = 'apt-get install libdnnl-dev';

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
  return join(packageRoot(), 'build', 'Release', 'switchyard_cpu.node');
}

/** Matches a dlopen/require failure to the fix a user can apply. */
function explainLoadError(path: string, message: string): string {
  if (/libdnnl/.test(message)) {
    return `oneDNN's shared library is missing (${message.trim()}). Fix: ${INSTALL_ONEDNN}`;
  }
  if (/libgomp|libstdc\+\+|GLIBC|GLIBCXX/.test(message)) {
    return `a system library the addon was built against is missing or too old (${message.trim()}). Fix: rebuild on this machine with ${BUILD_COMMAND}`;
  }
  return `loading ${path} failed (${message.trim()}). Fix: rebuild with ${BUILD_COMMAND} (or node scripts/build-native.mjs --clean in packages/ep-cpu)`;
}

/** Loads the addon (Node caches the module by path); the result, success or reason, is data, never an exception. */
export function loadNative(options: LoadNativeOptions = {}): NativeLoadResult {
  const env = options.env ?? process.env;
  if (env.SWITCHYARD_CPU_NATIVE === '0') {
    return { ok: false, reason: 'the oneDNN addon is disabled by SWITCHYARD_CPU_NATIVE=0 (unset it to use the native fast paths)' };
  }
  const path = options.path ?? defaultAddonPath();
  if (!existsSync(path)) {
    return {
      ok: false,
      reason: `the oneDNN addon is not built (no ${path}). Fix: ${BUILD_COMMAND} (needs ${INSTALL_ONEDNN}, cmake and g++)`,
    };
  }
  let loaded: unknown;
  try {
    loaded = createRequire(import.meta.url)(path);
  } catch (error) {
    return { ok: false, reason: explainLoadError(path, error instanceof Error ? error.message : String(error)) };
  }
  if (!isNativeBinding(loaded)) {
    return { ok: false, reason: `${path} does not export ConvPrimitive/MatMulPrimitive/runtimeInfo (a stale build?). Fix: ${BUILD_COMMAND}` };
  }
  return { ok: true, binding: loaded, path };
}

let defaultResult: NativeLoadResult | undefined;

/** The default load, done once per process (dlopen is not free, and its answer does not change). */
export function nativeBinding(): NativeLoadResult {
  defaultResult ??= loadNative();
  return defaultResult;
}
