/**
 * The compiled programs of one partition, by input-shape signature, at most `capacity` of them: the
 * least recently used is evicted (and released once its queued runs finish). Room is made before a
 * new program is built, so a build never waits on a program it is about to replace. `onLeave` hears
 * each program as it leaves the pool (evicted, failed or disposed), at once, so what the program is
 * accounted for (memLimit) is free for the next build. Concurrent requests for a shape being compiled
 * share that one compile; a failed compile is not remembered, so it is retried.
 */
import { SerializedProgram } from '../program/serialized-program.js';
import type { CompiledProgram } from '../program/program-compiler.js';

export class ProgramPool {
  readonly #programs = new Map<string, Promise<SerializedProgram>>();

  constructor(
    readonly capacity: number,
    readonly onLeave: (signature: string) => void = () => {},
  ) {}

  get size(): number {
    return this.#programs.size;
  }

  keys(): string[] {
    return [...this.#programs.keys()];
  }

  /** The program for `signature`, built by `build` on a miss. */
  get(signature: string, build: () => Promise<CompiledProgram>): Promise<SerializedProgram> {
    const existing = this.#programs.get(signature);
    if (existing) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.#programs.delete(signature);
      this.#programs.set(signature, existing);
      return existing;
    }
    while (this.#programs.size >= this.capacity && this.evictLeastRecent(signature)) {
      // making room
    }
    const pending = build().then((p) => new SerializedProgram(p));
    this.#programs.set(signature, pending);
    pending.catch(() => {
      if (this.#programs.get(signature) !== pending) return;
      this.#programs.delete(signature);
      this.onLeave(signature);
    });
    return pending;
  }

  /** Evicts the least recently used program other than `keep`; false when there is none. */
  evictLeastRecent(keep?: string): boolean {
    for (const [signature, program] of this.#programs) {
      if (signature === keep) continue;
      this.#programs.delete(signature);
      this.onLeave(signature);
      program.then((p) => p.dispose(), () => undefined);
      return true;
    }
    return false;
  }

  dispose(): void {
    for (const [signature, p] of this.#programs) {
      this.onLeave(signature);
      p.then((program) => program.dispose(), () => undefined);
    }
    this.#programs.clear();
  }
}
