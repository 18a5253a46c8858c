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

/**
 * The primitives of a node whose constant weights were packed at session creation and the model's copy
 * released: a primitive for another shape packs from one already built (the donor: the last one built
 * that `canDonate`). One built at creation for a guessed shape (`markProbe`: batch 1 for a symbolic
 * batch) is dropped once a run builds its own, unless it is still the donor.
 */
export class RepackingCache<P extends Disposable> {
  readonly #cache = new PrimitiveCache<P>();
  readonly #canDonate: (p: P) => boolean;
  #donor: P | undefined;
  #unusedProbeKey: string | undefined;

  constructor(canDonate: (p: P) => boolean) {
    this.#canDonate = canDonate;
  }

  /** What a primitive built now packs from, if any. */
  get donor(): P | undefined {
    return this.#donor;
  }

  /** The entry for `key`, built by `make` on first use (see PrimitiveCache.get). */
  get(key: string, make: () => P): P {
    if (key === this.#unusedProbeKey) this.#unusedProbeKey = undefined;
    let built = false;
    const primitive = this.#cache.get(key, () => {
      built = true;
      return make();
    });
    if (!built) return primitive;
    if (this.#canDonate(primitive)) this.#donor = primitive;
    if (this.#unusedProbeKey !== undefined && this.#cache.peek(this.#unusedProbeKey) !== this.#donor) {
      this.#cache.delete(this.#unusedProbeKey);
      this.#unusedProbeKey = undefined;
    }
    return primitive;
  }

  /** `key`'s entry was built at creation for a guessed shape: dropped once a run builds another. */
  markProbe(key: string): void {
    this.#unusedProbeKey = key;
  }

  dispose(): void {
    this.#donor = undefined;
    this.#cache.dispose();
  }
}
