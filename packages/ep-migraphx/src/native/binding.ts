/** The shape of `switchyard_migraphx.node`, declared once. Every function is synchronous. */

/** One dlopen attempt: the candidate and why it was not kept (null when it was). */
export interface LibraryAttempt {
  path: string;
  error: string | null;
}

/** `loadLibrary(candidates)`: what was loaded, or why nothing was. Never thrown. */
export interface MigraphxLibraryReport {
  loaded: boolean;
  /** The candidate that loaded, as given. */
  path: string | null;
  /** The file it resolved to, symlinks followed. */
  realPath: string | null;
  /** From the versioned file name (`libmigraphx_c.so.3.0.60400` → `3.0.60400`): the C API has no version function. */
  version: string | null;
  /** The last dlopen error (or why a loaded file was rejected); null when loaded. */
  error: string | null;
  /** Every candidate tried in this call, in order (empty when a library was already kept earlier). */
  attempts: LibraryAttempt[];
  /** ONNX operators the library's parser registers, from `migraphx_get_onnx_operator_name_at_index`. */
  operators: string[] | null;
  operatorsError: string | null;
}

export interface MigraphxNativeBinding {
  /** Throws TypeError unless `candidates` is an array of strings. */
  loadLibrary(candidates: readonly string[]): MigraphxLibraryReport;
}

export function isMigraphxNativeBinding(value: unknown): value is MigraphxNativeBinding {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>).loadLibrary === 'function';
}
