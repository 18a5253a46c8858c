/**
 * `memLimit`: the device memory the EP's programs may hold together, by the estimate of
 * program-memory.ts. A program is reserved before it is compiled or loaded (so concurrent compiles
 * cannot overshoot together) and released as it leaves its partition's pool (evicted, or the session
 * released; its memory is freed once runs in flight on it finish). A program that would take the
 * total past the limit is refused with OUT_OF_MEMORY, and nothing is compiled.
 */
import { SwitchyardError } from '@switchyard/core';

export class DeviceMemoryBudget {
  #held = 0;
  #programs = 0;

  /** `limit`: bytes; Infinity for none. */
  constructor(readonly limit: number) {}

  get heldBytes(): number {
    return this.#held;
  }

  get programs(): number {
    return this.#programs;
  }

  fits(bytes: number): boolean {
    return this.#held + bytes <= this.limit;
  }

  /** Reserves `bytes` for `what`, or throws OUT_OF_MEMORY; returns the release (safe to call twice). */
  reserve(bytes: number, what: string): () => void {
    if (!this.fits(bytes)) {
      const held = this.#programs > 0 ? `; ${this.#programs} other program(s) of this EP hold about ${this.#held} bytes` : '';
      throw new SwitchyardError('OUT_OF_MEMORY', `migraphx EP: ${what} needs about ${bytes} bytes of device memory, past memLimit (${this.limit} bytes)${held}`);
    }
    this.#held += bytes;
    this.#programs++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held -= bytes;
      this.#programs--;
    };
  }
}
