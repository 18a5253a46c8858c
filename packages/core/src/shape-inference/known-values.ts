/**
 * Small tensors whose contents are known before run time: initializers, Constant nodes and the int64
 * shape arithmetic built on Shape. Shape inference needs them for the targets of Reshape, Expand,
 * Slice, ConstantOfShape and friends. Elements may be symbolic (a `Dim`), so `Shape` of `[N, 3]`
 * is the known value `['N', 3]`, and a Reshape fed from it yields `[N, …]`.
 */
import type { Dim, Graph } from '../ir/graph.js';
import type { DataType } from '../tensor/data-type.js';
import { bfloat16BitsToFloat32, float16BitsToFloat32 } from '../tensor/float16.js';
import type { Tensor } from '../tensor/tensor.js';

/** Larger tensors are the optimizer's business (constant folding), not shape inference's. */
export const MAX_KNOWN_ELEMENTS = 1024;

export interface KnownValue {
  type: DataType;
  dims: number[];
  /** Row-major elements as JS numbers (int64 too); a symbol or undefined where only partly known. */
  values: Dim[];
}

/** Whether every element is a known number. */
export function isFullyKnown(v: KnownValue | undefined): v is KnownValue & { values: number[] } {
  return v !== undefined && v.values.every((x) => typeof x === 'number');
}

/** A tensor's elements as a known value, when it is small, numeric and on the host. */
export function knownFromTensor(t: Tensor): KnownValue | undefined {
  if (t.size > MAX_KNOWN_ELEMENTS || t.location !== 'cpu') return undefined;
  if (t.type === 'string' || t.type === 'complex64' || t.type === 'complex128') return undefined;
  const data = t.data;
  const values: number[] = [];
  if (t.type === 'float16' || t.type === 'bfloat16') {
    const toFloat = t.type === 'float16' ? float16BitsToFloat32 : bfloat16BitsToFloat32;
    for (const bits of data as Uint16Array) values.push(toFloat(bits));
  } else {
    for (const x of data as Iterable<number | bigint>) values.push(Number(x));
  }
  return { type: t.type, dims: [...t.dims], values };
}

/**
 * Known values of one graph, falling back to the enclosing graph's store for outer-scope names.
 * Initializers are converted on first use, so a large model pays only for what is read.
 */
export class KnownValueStore {
  readonly #graph: Graph;
  readonly #parent: KnownValueStore | undefined;
  readonly #values = new Map<string, KnownValue | null>();
  #local: Set<string> | undefined;

  constructor(graph: Graph, parent?: KnownValueStore) {
    this.#graph = graph;
    this.#parent = parent;
  }

  get(name: string): KnownValue | undefined {
    const cached = this.#values.get(name);
    if (cached !== undefined) return cached ?? undefined;
    const init = this.#graph.initializers.get(name);
    if (init) {
      const v = knownFromTensor(init) ?? null;
      this.#values.set(name, v);
      return v ?? undefined;
    }
    if (this.#producedHere(name)) return undefined;
    return this.#parent?.get(name);
  }

  set(name: string, value: KnownValue | undefined): void {
    if (value && value.values.length <= MAX_KNOWN_ELEMENTS) this.#values.set(name, value);
    else this.#values.set(name, null);
  }

  /** A value named here shadows the outer scope even when its contents are unknown. */
  #producedHere(name: string): boolean {
    if (!this.#local) {
      this.#local = new Set(this.#graph.inputs.map((v) => v.name));
      for (const n of this.#graph.nodes) for (const o of n.outputs) if (o) this.#local.add(o);
    }
    return this.#local.has(name);
  }

  /** A store for a subgraph of this graph. */
  child(graph: Graph): KnownValueStore {
    return new KnownValueStore(graph, this);
  }
}
