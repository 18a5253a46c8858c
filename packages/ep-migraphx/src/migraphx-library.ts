/**
 * Locating MIGraphX's C library at run time: the candidates, in order, and the reason when none
 * loads, worded as what to do about it.
 */
import { join } from 'node:path';
import type { MigraphxLibraryReport, MigraphxNativeBinding } from './native/binding.js';
import { migraphxAddon } from './native/load-native.js';

export const LIBRARY_ENV = 'SWITCHYARD_MIGRAPHX_LIB';

/**
 * Where to look: `SWITCHYARD_MIGRAPHX_LIB` alone when set (an explicit choice should fail loudly,
 * not fall back to another install); else `$ROCM_PATH/lib`, `/opt/rocm/lib`, then the loader's
 * search path by soname (LD_LIBRARY_PATH, ldconfig).
 */
export function libraryCandidates(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  const explicit = env[LIBRARY_ENV];
  if (explicit !== undefined && explicit !== '') return [explicit];
  const dirs = [env.ROCM_PATH ? join(env.ROCM_PATH, 'lib') : undefined, '/opt/rocm/lib'].filter((d): d is string => d !== undefined);
  return [...new Set([...dirs.map((d) => join(d, 'libmigraphx_c.so')), 'libmigraphx_c.so.3', 'libmigraphx_c.so'])];
}

export type MigraphxProbe = { ok: true; library: MigraphxLibraryReport } | { ok: false; reason: string; library?: MigraphxLibraryReport };

/** A dlopen message about a sibling library means the file exists but its folder is not on the loader path. */
function siblingHint(errors: string[]): string {
  const sibling = errors.find((e) => /lib(migraphx\w*|protobuf\w*|hsa-runtime64|amdhip64)\S*\.so/.test(e) && !/^\S*libmigraphx_c\.so[.\d]*: cannot open/.test(e));
  return sibling
    ? " (libmigraphx_c.so was found but a library it needs was not: a MIGraphX built from source has no RPATH, so add its lib/ folder to LD_LIBRARY_PATH)"
    : '';
}

/** Loads the library through the addon; `ok: false` carries the reason the EP declines with. */
export function probeMigraphx(options: { env?: Readonly<Record<string, string | undefined>>; binding?: MigraphxNativeBinding } = {}): MigraphxProbe {
  const env = options.env ?? process.env;
  let binding = options.binding;
  if (!binding) {
    const addon = migraphxAddon();
    if (!addon.ok) return { ok: false, reason: addon.reason };
    binding = addon.binding;
  }
  const candidates = libraryCandidates(env);
  const library = binding.loadLibrary(candidates);
  if (library.loaded) return { ok: true, library };
  const tried = library.attempts.map((a) => `${a.path} (${a.error ?? 'loaded'})`).join(', ');
  const errors = library.attempts.map((a) => a.error ?? '');
  const explicit = env[LIBRARY_ENV];
  const advice =
    explicit !== undefined && explicit !== ''
      ? `${LIBRARY_ENV}=${explicit} does not name a loadable libmigraphx_c.so; fix it or unset it to search /opt/rocm/lib and the loader path`
      : `set ${LIBRARY_ENV} or install MIGraphX (ROCm)`;
  return { ok: false, library, reason: `libmigraphx_c.so not found: tried ${tried}${siblingHint(errors)}; ${advice}` };
}
