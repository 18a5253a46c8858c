/**
 * What every fusion pass needs from the graph: who produces and who reads each value, which values
 * are constants, and a way to replace a matched chain of nodes by one node without breaking
 * topological order or losing a value anyone else still reads. Passes run on the main graph only;
 * reads from inside subgraphs (captures) count as reads, so a captured intermediate is never fused away.
 */
import {
  AttributeReader,
  float16BitsToFloat32,
  float32ToFloat16Bits,
  Tensor,
  nodeLabel,
  valuesReadBy,
  type AttributeValue,
  type DataType,
  type Dim,
  type Graph,
  type Node,
  type PassReport,
} from '@switchyard/core';

export interface NewNode {
  opType: string;
  domain: string;
  inputs: string[];
  outputs: string[];
  attributes: Map<string, AttributeValue>;
  name: string;
}

export class GraphRewriter {
  readonly graph: Graph;
  readonly #report: PassReport;
  readonly #producers = new Map<string, Node>();
  readonly #readers = new Map<string, Set<Node>>();
  readonly #graphOutputs: Set<string>;
  readonly #graphInputs: Set<string>;
  readonly #removed = new Set<Node>();
  readonly #mayRewrite: (node: Node) => boolean;

  constructor(graph: Graph, report: PassReport, mayRewrite: (node: Node) => boolean = () => true) {
    this.graph = graph;
    this.#report = report;
    this.#mayRewrite = mayRewrite;
    this.#graphOutputs = new Set(graph.outputs.map((o) => o.name));
    this.#graphInputs = new Set(graph.inputs.map((i) => i.name));
    for (const n of graph.nodes) this.#index(n);
  }

  #index(node: Node): void {
    for (const o of node.outputs) if (o) this.#producers.set(o, node);
    for (const name of valuesReadBy(node)) {
      let set = this.#readers.get(name);
      if (!set) this.#readers.set(name, (set = new Set()));
      set.add(node);
    }
  }

  #unindex(node: Node): void {
    for (const o of node.outputs) if (o && this.#producers.get(o) === node) this.#producers.delete(o);
    for (const name of valuesReadBy(node)) this.#readers.get(name)?.delete(node);
  }

  /**
   * Whether every node may be rewritten: nodes an EP earlier in the priority list would run are left
   * to it. Records the skip when not. Passes check this before changing anything.
   */
  owned(nodes: readonly Node[]): boolean {
    const foreign = nodes.find((n) => !this.#mayRewrite(n));
    if (foreign) this.skip(foreign, 'an earlier execution provider takes this node');
    return !foreign;
  }

  #assertOwned(nodes: readonly Node[]): void {
    const foreign = nodes.find((n) => !this.#mayRewrite(n));
    if (foreign) throw new Error(`fusion pass rewrote '${nodeLabel(foreign)}' without checking owned()`);
  }

  /** Nodes to visit: a snapshot, in order; nodes removed meanwhile are skipped by `isLive`. */
  nodes(): Node[] {
    return [...this.graph.nodes];
  }

  isLive(node: Node): boolean {
    return !this.#removed.has(node);
  }

  producer(name: string): Node | undefined {
    return this.#producers.get(name);
  }

  /** The one node reading `name`, when exactly one does and it is not a graph output (so it may vanish). */
  soleReader(name: string): Node | undefined {
    if (!name || this.#graphOutputs.has(name)) return undefined;
    const readers = this.#readers.get(name);
    if (!readers || readers.size !== 1) return undefined;
    const [only] = readers;
    // A node reading it twice (Mul(d, d)) is still one reader; a capture inside a subgraph is not fusable.
    return only.inputs.includes(name) ? only : undefined;
  }

  /** Every node reading `name` (directly or through a subgraph). */
  readers(name: string): ReadonlySet<Node> {
    return this.#readers.get(name) ?? new Set();
  }

  isGraphOutput(name: string): boolean {
    return this.#graphOutputs.has(name);
  }

  /** A constant initializer (an initializer that is also a graph input may be overridden, so it is not one). */
  constant(name: string): Tensor | undefined {
    if (!name || this.#graphInputs.has(name) || this.#producers.has(name)) return undefined;
    return this.graph.initializers.get(name);
  }

  /** A constant holding one number (any rank with one element), as a JS number. */
  scalar(name: string): number | undefined {
    const t = this.constant(name);
    if (!t || t.size !== 1 || (t.type !== 'float32' && t.type !== 'float64' && t.type !== 'float16')) return undefined;
    if (t.type === 'float16') return undefined;
    return (t.data as Float32Array | Float64Array)[0];
  }

  /** The static shape of a value when every dim is a number. */
  staticShape(name: string): number[] | undefined {
    const t = this.graph.typeOf(name);
    if (t?.kind !== 'tensor' || !t.shape) return undefined;
    return t.shape.every((d: Dim) => typeof d === 'number') ? (t.shape as number[]) : undefined;
  }

  rank(name: string): number | undefined {
    const t = this.graph.typeOf(name);
    return t?.kind === 'tensor' ? t.shape?.length : undefined;
  }

  elemType(name: string): DataType | undefined {
    return this.graph.elemTypeOf(name);
  }

  opset(domain = ''): number | undefined {
    return this.graph.opsetFor(domain);
  }

  attrs(node: Node): AttributeReader {
    return new AttributeReader(node);
  }

  /** Imports `domain` at `version` when the model does not import it yet (so the new op's kernel resolves). */
  ensureOpset(domain: string, version: number): void {
    if (this.graph.opsetFor(domain) === undefined) this.graph.opsetImports.set(domain, version);
  }

  /** Adds a constant under a fresh name derived from `base`. */
  addInitializer(base: string, tensor: Tensor): string {
    let name = base;
    for (let i = 1; this.graph.initializers.has(name) || this.#producers.has(name) || this.#graphInputs.has(name); i++) name = `${base}_${i}`;
    this.graph.initializers.set(name, tensor);
    this.#report.initializersAdded.push(name);
    return name;
  }

  /** Drops initializers no node reads any more (those replaced by folded copies). */
  dropIfUnused(names: Iterable<string>): void {
    for (const name of names) {
      if (!name || this.#graphInputs.has(name) || this.#graphOutputs.has(name) || (this.#readers.get(name)?.size ?? 0) > 0) continue;
      if (this.graph.initializers.delete(name)) this.#report.initializersRemoved.push(name);
    }
  }

  /**
   * Replaces `matched` (a connected chain whose intermediates nobody else reads) by `replacement`,
   * placed where the last matched node was: every input of the chain is defined before that point and
   * every reader of its outputs comes after. Returns the new node.
   */
  replace(matched: readonly Node[], replacement: NewNode): Node {
    this.#assertOwned(matched);
    const nodes = this.graph.nodes;
    const positions = matched.map((n) => nodes.indexOf(n));
    const at = Math.max(...positions);
    const id = this.graph.nextNodeId();
    const node: Node = { id, ...replacement };
    const keptValues = new Set(replacement.outputs);
    for (const m of matched) {
      this.#unindex(m);
      this.#removed.add(m);
      for (const o of m.outputs) if (o && !keptValues.has(o)) this.graph.valueInfo.delete(o);
      this.#report.nodes.push(nodeLabel(m));
    }
    (this.#report.replacements ??= []).push({ nodes: matched.map(nodeLabel), by: nodeLabel(node) });
    nodes[at] = node;
    const drop = new Set(matched);
    this.graph.nodes = nodes.filter((n) => !drop.has(n));
    this.#index(node);
    return node;
  }

  /**
   * Adds `added` right after `anchor` (or first when there is none, for values of graph inputs):
   * a new node whose inputs are all defined by then. Returns it.
   */
  insertAfter(anchor: Node | undefined, added: NewNode): Node {
    const node: Node = { id: this.graph.nextNodeId(), ...added };
    const nodes = this.graph.nodes;
    nodes.splice(anchor ? nodes.indexOf(anchor) + 1 : 0, 0, node);
    this.#index(node);
    return node;
  }

  /** Whether `name` is already taken by a value of the graph (a fresh name must avoid it). */
  isNameTaken(name: string): boolean {
    return this.#producers.has(name) || this.#graphInputs.has(name) || this.graph.initializers.has(name) || this.graph.valueInfo.has(name) || this.#readers.has(name);
  }

  /** Rewires one node's inputs/outputs in place (Conv+BN folding keeps the Conv). */
  update(node: Node, change: (node: Node) => void): void {
    this.#assertOwned([node]);
    this.#unindex(node);
    change(node);
    this.#index(node);
  }

  /** Removes a node whose output was taken over by another (the folded BatchNormalization). */
  remove(node: Node): void {
    this.#assertOwned([node]);
    this.#unindex(node);
    this.#removed.add(node);
    this.graph.nodes = this.graph.nodes.filter((n) => n !== node);
    this.#report.nodes.push(nodeLabel(node));
  }

  /** Records a node changed in place into another node (same op, new types) as replaced, for the report. */
  noteReplaced(node: Node): void {
    this.#report.nodes.push(nodeLabel(node));
  }

  skip(node: Node, reason: string): void {
    this.#report.skipped.push({ node: nodeLabel(node), reason });
  }
}

/** float32 rounding of the constants a model stores (√2 as 1.4142135, 1/6 as 0.16666667). */
const CONSTANT_REL_TOL = 1e-6;

/**
 * Whether a model's constant `v` stands for the exact `target`: within float32 rounding of it, or
 * exactly the target rounded to float16 (a float16 model's constant, now float32 once
 * float16-in-float32 converted it: √2 as 1.4140625). A float32 model holds no such value by chance, and
 * the exact constant differs from it by less than the model's own float16 precision.
 */
export function nearConstant(v: number | undefined, target: number): boolean {
  return v !== undefined && (Math.abs(v - target) <= CONSTANT_REL_TOL * Math.abs(target) || v === float16BitsToFloat32(float32ToFloat16Bits(target)));
}

/** A float32 tensor (the only dtype the fusions rewrite weights in). */
export function float32Tensor(data: Float32Array, dims: readonly number[]): Tensor {
  return new Tensor('float32', data, [...dims]);
}

/** Whether `node` exists and is the default-domain op `opType` (narrows away `undefined`). */
export function isOp(node: Node | undefined, opType: string): node is Node {
  return node !== undefined && hasOp(node, opType);
}

/** Whether `node` is the default-domain op `opType` (no narrowing, for nodes known to exist). */
export function hasOp(node: Node, opType: string): boolean {
  return node.opType === opType && (node.domain === '' || node.domain === 'ai.onnx');
}

/** The input of a binary node other than `name` (undefined when both are `name`). */
export function otherInput(node: Node, name: string): string | undefined {
  if (node.inputs.length !== 2) return undefined;
  if (node.inputs[0] === name && node.inputs[1] !== name) return node.inputs[1];
  if (node.inputs[1] === name && node.inputs[0] !== name) return node.inputs[0];
  return undefined;
}
