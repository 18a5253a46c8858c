/**
 * A run's values that live in buffers the EP's host pool handed out (ExecutionProvider.hostBuffer),
 * with how many of the run's slots hold each buffer. When the last slot holding one is freed, the
 * buffer goes back to the pool at once (releaseHostBuffer), and the run's next large output reuses
 * that memory instead of waiting for the collector: a model whose values have no arena slots (shapes
 * only a run reveals) then peaks at what one run holds live, as with onnxruntime's arena, rather than
 * at everything the run allocated.
 *
 * Only what the run can see is counted: slots, and views sharing a buffer (a Reshape's output) count
 * as holders of the same buffer. A buffer that may be held elsewhere is marked escaped and left to the
 * collector: a graph output, a value the shape memo keeps for later runs, a sequence's element, the
 * source of a copy to a device, an input of a compiled partition.
 */
import type { RuntimeValue } from '../registry/kernel-def.js';
import { Tensor } from '../tensor/tensor.js';

/** Holder count of a buffer that may be referenced outside the run's slots. */
const ESCAPED = -1;

export class PooledBuffers {
  readonly #holders = new Map<ArrayBuffer, number>();

  constructor(private readonly release: (buffer: ArrayBuffer) => boolean) {}

  /** A buffer the pool just gave one of the run's kernels (held by no slot yet). */
  handedOut(buffer: ArrayBuffer): void {
    this.#holders.set(buffer, 0);
  }

  /** A value was stored in a slot. */
  stored(value: RuntimeValue | undefined): void {
    if (Array.isArray(value)) {
      for (const t of value) this.escaped(t);
      return;
    }
    const buffer = bufferOf(value);
    if (buffer === undefined) return;
    const n = this.#holders.get(buffer);
    if (n !== undefined && n !== ESCAPED) this.#holders.set(buffer, n + 1);
  }

  /** A value may be held beyond the run's slots: its buffer is never taken back early. */
  escaped(value: RuntimeValue | undefined): void {
    if (Array.isArray(value)) {
      for (const t of value) this.escaped(t);
      return;
    }
    const buffer = bufferOf(value);
    if (buffer !== undefined && this.#holders.has(buffer)) this.#holders.set(buffer, ESCAPED);
  }

  /** A slot holding `value` was freed: the buffer goes back when that was its last holder. */
  freed(value: RuntimeValue | undefined): void {
    const buffer = bufferOf(value);
    if (buffer === undefined) return;
    const n = this.#holders.get(buffer);
    if (n === undefined || n === ESCAPED) return;
    if (n > 1) {
      this.#holders.set(buffer, n - 1);
      return;
    }
    this.#holders.delete(buffer);
    if (n === 1) this.release(buffer);
  }
}

function bufferOf(value: RuntimeValue | undefined): ArrayBuffer | undefined {
  if (!(value instanceof Tensor) || value.location !== 'cpu' || value.type === 'string') return undefined;
  return (value.data as ArrayBufferView).buffer as ArrayBuffer;
}
