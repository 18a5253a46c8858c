/**
 * The compiled programs of one partition, by input-shape signature, at most `capacity` of them: the
 * least recently used is evicted (and released once its queued runs finish). Concurrent requests for
 * a shape being compiled share that one compile; a failed compile is not remembered, so it is retried.
 */
import { SerializedProgram } from '../program/serialized-program.js';
import type { CompiledProgram } from '../program/program-compiler.js';

export class ProgramPool {
  readonly #programs = new Map<string, Promise<SerializedProgram>>();

  constructor(readonly capacity: number) {}

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
    const pending = build().then((p) => new SerializedProgram(p));
    this.#programs.set(signature, pending);
    pending.catch(() => {
      if (this.#programs.get(signature) === pending) this.#programs.delete(signature);
    });
    this.#evict();
    return pending;
  }

  #evict(): void {
    while (this.#programs.size > this.capacity) {
      const [oldest, program] = this.#programs.entries().next().value as [string, Promise<SerializedProgram>];
      this.#programs.delete(oldest);
      program.then((p) => p.dispose(), () => undefined);
    }
  }

  dispose(): void {
    for (const p of this.#programs.values()) p.then((program) => program.dispose(), () => undefined);
    this.#programs.clear();
  }
}
