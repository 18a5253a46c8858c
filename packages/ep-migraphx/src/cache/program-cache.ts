/**
 * The compiled-program cache in `cacheDir`: one file per key, written to a temporary name and renamed
 * into place (a reader never sees half a file, two writers never interleave). A file that fails its
 * checks, or that the serializer cannot load, is removed and the program rebuilt; it is never used.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CompiledProgram, ProgramSerializer } from '../program/program-compiler.js';
import { decodeCacheFile, encodeCacheFile } from './cache-file.js';

export type CacheEvent =
  | { kind: 'hit'; key: string }
  | { kind: 'miss'; key: string }
  | { kind: 'rejected'; key: string; reason: string }
  | { kind: 'stored'; key: string; bytes: number }
  | { kind: 'store-failed'; key: string; reason: string };

let temporaryCounter = 0;

export class ProgramCache {
  constructor(
    readonly dir: string,
    readonly serializer: ProgramSerializer,
    /** Told about every hit, miss, rejected file and store (tests and logs listen). */
    readonly onEvent: (event: CacheEvent) => void = () => {},
  ) {}

  pathOf(key: string): string {
    return join(this.dir, `${key}.mxprog`);
  }

  /** The cached program for `key`, or undefined (absent, corrupt, stale or unloadable: then removed). */
  async load(key: string): Promise<CompiledProgram | undefined> {
    const path = this.pathOf(key);
    let bytes: Uint8Array;
    try {
      bytes = await readFile(path);
    } catch {
      this.onEvent({ kind: 'miss', key });
      return undefined;
    }
    const decoded = decodeCacheFile(bytes, key);
    if (!decoded.ok) return this.#reject(key, decoded.reason);
    try {
      const program = await this.serializer.load(decoded.payload);
      this.onEvent({ kind: 'hit', key });
      return program;
    } catch (error) {
      return this.#reject(key, `the library could not load it: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Saves `program` under `key`. Failing to store is reported, never thrown: the program still runs. */
  async store(key: string, program: CompiledProgram): Promise<void> {
    const path = this.pathOf(key);
    const temporary = `${path}.${process.pid}.${temporaryCounter++}.tmp`;
    try {
      const payload = await this.serializer.save(program);
      await mkdir(this.dir, { recursive: true });
      const file = encodeCacheFile(key, payload);
      await writeFile(temporary, file);
      await rename(temporary, path);
      this.onEvent({ kind: 'stored', key, bytes: file.length });
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      this.onEvent({ kind: 'store-failed', key, reason: error instanceof Error ? error.message : String(error) });
    }
  }

  async #reject(key: string, reason: string): Promise<undefined> {
    this.onEvent({ kind: 'rejected', key, reason });
    await rm(this.pathOf(key), { force: true }).catch(() => undefined);
    return undefined;
  }
}
