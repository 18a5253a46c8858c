/**
 * Finds and loads `switchyard_migraphx.node`, the small addon whose only job is to dlopen MIGraphX's
 * C library (Node cannot dlopen a plain shared library itself). Never throws: a missing addon is a
 * reason for the EP to decline.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMigraphxNativeBinding, type MigraphxNativeBinding } from './binding.js';

export type MigraphxAddonLoadResult = { ok: true; binding: MigraphxNativeBinding; path: string } | { ok: false; reason: string };

export const BUILD_COMMAND = 'pnpm --filter @switchyard/ep-migraphx run build:native';

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
  return join(packageRoot(), 'build', 'Release', 'switchyard_migraphx.node');
}

export function loadMigraphxAddon(path: string = defaultAddonPath()): MigraphxAddonLoadResult {
  if (!existsSync(path)) {
    return { ok: false, reason: `the MIGraphX loader addon is not built (no ${path}). Fix: ${BUILD_COMMAND} (needs cmake and g++; no MIGraphX needed to build)` };
  }
  let loaded: unknown;
  try {
    loaded = createRequire(import.meta.url)(path);
  } catch (error) {
    const message = error instanceof Error ? error.message.trim() : String(error);
    return { ok: false, reason: `loading ${path} failed (${message}). Fix: rebuild with ${BUILD_COMMAND}` };
  }
  if (!isMigraphxNativeBinding(loaded)) return { ok: false, reason: `${path} does not export loadLibrary, targetError, compileOnnx and loadProgram (a stale build?). Fix: ${BUILD_COMMAND}` };
  return { ok: true, binding: loaded, path };
}

let defaultResult: MigraphxAddonLoadResult | undefined;

/** The default load, once per process. */
export function migraphxAddon(): MigraphxAddonLoadResult {
  defaultResult ??= loadMigraphxAddon();
  return defaultResult;
}
