/**
 * Native primitives of one node, keyed by the shapes and thread count they were built for.
 * Static shapes give one entry built at session creation; dynamic shapes add one per shape seen,
 * bounded so a model fed ever-changing shapes cannot hold unbounded packed weights.
 */
export interface Disposable {
  dispose(): void;
}

export class PrimitiveCache<P extends Disposable> {
  readonly #entries = new Map<string, P>();
  readonly #limit: number;

  constructor(limit = 8) {
    this.#limit = limit;
  }

  /** The entry for `key`, built by `make` on first use; the least recently used one goes past the limit. */
  get(key: string, make: () => P): P {
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    const made = make();
    this.#entries.set(key, made);
    if (this.#entries.size > this.#limit) {
      const [oldestKey, oldest] = this.#entries.entries().next().value!;
      this.#entries.delete(oldestKey);
      oldest.dispose();
    }
    return made;
  }

  /** The entry for `key` without touching its recency. */
  peek(key: string): P | undefined {
    return this.#entries.get(key);
  }

  /** Disposes and forgets the entry for `key`, if there is one. */
  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    entry.dispose();
  }

  get size(): number {
    return this.#entries.size;
  }

  dispose(): void {
    for (const p of this.#entries.values()) p.dispose();
    this.#entries.clear();
  }
}
