/**
 * One run at a time per program. MIGraphX's C API makes no promise that `migraphx_program_run` may
 * be entered twice on one program (a compiled program owns one context, its scratch memory and, on
 * the GPU, its stream), so concurrent `session.run()` calls queue per program here, while different
 * programs (other partitions, other shapes) still run side by side. Disposal waits for the queue.
 */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import type { CompiledProgram } from './program-compiler.js';

export class SerializedProgram implements CompiledProgram {
  #tail: Promise<unknown> = Promise.resolve();
  #disposed = false;
  #active = 0;

  constructor(readonly inner: CompiledProgram) {}

  /** Runs queued or in progress. */
  get pending(): number {
    return this.#active;
  }

  run(inputs: ReadonlyMap<string, Tensor>): Promise<Tensor[]> {
    if (this.#disposed) return Promise.reject(new SwitchyardError('RELEASED', 'migraphx EP: this compiled program was released'));
    this.#active++;
    const result = this.#tail.then(() => this.inner.run(inputs));
    const settled = result.finally(() => this.#active--);
    this.#tail = settled.catch(() => undefined);
    return settled;
  }

  /** Releases the program once queued runs finish; later runs are refused. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    void this.#tail.then(() => this.inner.dispose());
  }
}
