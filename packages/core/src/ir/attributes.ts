/** Typed access to a node's attributes, with defaults and clear errors for wrong types. */
import { SwitchyardError } from '../errors.js';
import type { Tensor } from '../tensor/tensor.js';
import { nodeLabel, type AttributeValue, type Graph, type Node } from './graph.js';

export class AttributeReader {
  readonly #node: Node;
  constructor(node: Node) {
    this.#node = node;
  }

  has(name: string): boolean {
    return this.#node.attributes.has(name);
  }

  #get<K extends AttributeValue['type']>(name: string, type: K): Extract<AttributeValue, { type: K }> | undefined {
    const a = this.#node.attributes.get(name);
    if (a === undefined) return undefined;
    if (a.type !== type) {
      throw new SwitchyardError(
        'INVALID_MODEL',
        `node '${nodeLabel(this.#node)}' (${this.#node.opType}): attribute '${name}' is ${a.type}, expected ${type}`,
      );
    }
    return a as Extract<AttributeValue, { type: K }>;
  }

  #required(name: string): never {
    throw new SwitchyardError('INVALID_MODEL', `node '${nodeLabel(this.#node)}' (${this.#node.opType}): required attribute '${name}' is missing`);
  }

  int(name: string, fallback?: number): number {
    const a = this.#get(name, 'int');
    return a ? a.value : fallback ?? this.#required(name);
  }

  float(name: string, fallback?: number): number {
    const a = this.#get(name, 'float');
    return a ? a.value : fallback ?? this.#required(name);
  }

  string(name: string, fallback?: string): string {
    const a = this.#get(name, 'string');
    return a ? a.value : fallback ?? this.#required(name);
  }

  ints(name: string, fallback?: number[]): number[] {
    const a = this.#get(name, 'ints');
    return a ? a.value : fallback ?? this.#required(name);
  }

  floats(name: string, fallback?: number[]): number[] {
    const a = this.#get(name, 'floats');
    return a ? a.value : fallback ?? this.#required(name);
  }

  strings(name: string, fallback?: string[]): string[] {
    const a = this.#get(name, 'strings');
    return a ? a.value : fallback ?? this.#required(name);
  }

  tensor(name: string): Tensor | undefined {
    return this.#get(name, 'tensor')?.value;
  }

  tensors(name: string): Tensor[] | undefined {
    return this.#get(name, 'tensors')?.value;
  }

  graph(name: string): Graph {
    return this.#get(name, 'graph')?.value ?? this.#required(name);
  }

  /** The raw attribute, for attributes whose type varies (e.g. Constant's `value_*`). */
  raw(name: string): AttributeValue | undefined {
    return this.#node.attributes.get(name);
  }
}
