/**
 * Name resolution across nested graphs. ONNX subgraphs (If/Loop/Scan bodies) may read values of
 * enclosing graphs by name; every rewrite that renames or removes a value must see those reads.
 * Unlike `outerScopeReads` in the IR, a subgraph output that names an outer value directly counts as a read.
 */
import { subgraphsOf, type Graph, type Node } from '../ir/graph.js';
import { constantResolver } from '../ir/constants.js';
import type { Tensor } from '../tensor/tensor.js';

/** Names defined by `graph` itself: inputs, initializers and node outputs. */
export function localNames(graph: Graph): Set<string> {
  const names = new Set<string>();
  for (const v of graph.inputs) names.add(v.name);
  for (const k of graph.initializers.keys()) names.add(k);
  for (const n of graph.nodes) for (const o of n.outputs) if (o) names.add(o);
  return names;
}

/** Names `graph` reads from enclosing scopes, through nested subgraphs and graph outputs. */
export function outerReads(graph: Graph): Set<string> {
  const local = localNames(graph);
  const reads = new Set<string>();
  for (const n of graph.nodes) for (const name of valuesReadBy(n)) if (name && !local.has(name)) reads.add(name);
  for (const o of graph.outputs) if (o.name && !local.has(o.name)) reads.add(o.name);
  return reads;
}

/** Every value a node depends on, once each: its explicit inputs (without '') and what its subgraphs capture. */
export function valuesReadBy(node: Node): string[] {
  const names = new Set(node.inputs.filter((n) => n !== ''));
  for (const g of subgraphsOf(node)) for (const r of outerReads(g)) names.add(r);
  return [...names];
}

/** A graph together with the scopes around it; `protectedNames` must keep their names and producers. */
export interface Scope {
  graph: Graph;
  parent?: Scope;
  protectedNames: ReadonlySet<string>;
}

/** A lookup of the constant tensor a name resolves to from `scope` (see `constantResolver`). */
export function constantLookup(scope: Scope): (name: string) => Tensor | undefined {
  const graphs: Graph[] = [];
  for (let s: Scope | undefined = scope; s; s = s.parent) graphs.push(s.graph);
  return constantResolver(graphs);
}

/** The opset for `domain` in force in `scope` (inner imports win, as in ONNX functions/subgraphs). */
export function opsetIn(scope: Scope, domain: string): number | undefined {
  const d = domain === 'ai.onnx' ? '' : domain;
  return scope.graph.opsetImports.get(d) ?? (scope.parent ? opsetIn(scope.parent, d) : scope.graph.opsetFor(d));
}

/**
 * Renames reads of `from` to `to` inside a subgraph, respecting shadowing. With `apply` false it only
 * answers whether the rename is safe: it is not when an inner graph defines `to` itself (the read would
 * bind to the inner value) or lists `from` as one of its outputs (graph outputs keep their names).
 */
function renameInSubgraph(sub: Graph, from: string, to: string, apply: boolean): boolean {
  const local = localNames(sub);
  if (local.has(from)) return true;
  if (!outerReads(sub).has(from)) return true;
  if (local.has(to)) return false;
  if (sub.outputs.some((o) => o.name === from)) return false;
  for (const n of sub.nodes) {
    for (const inner of subgraphsOf(n)) if (!renameInSubgraph(inner, from, to, apply)) return false;
    if (apply) n.inputs = n.inputs.map((x) => (x === from ? to : x));
  }
  return true;
}

/**
 * Which nodes of one graph read each value (directly or through subgraph captures), kept current as
 * passes rename and remove, so rewrites cost the uses of one name rather than a scan of the graph.
 */
export class UseIndex {
  readonly #users = new Map<string, Set<Node>>();

  constructor(graph: Graph) {
    for (const n of graph.nodes) this.#add(n);
  }

  #add(node: Node): void {
    for (const name of valuesReadBy(node)) {
      let set = this.#users.get(name);
      if (!set) this.#users.set(name, (set = new Set()));
      set.add(node);
    }
  }

  #remove(node: Node): void {
    for (const name of valuesReadBy(node)) this.#users.get(name)?.delete(node);
  }

  users(name: string): ReadonlySet<Node> {
    return this.#users.get(name) ?? new Set();
  }

  isUsed(name: string): boolean {
    return (this.#users.get(name)?.size ?? 0) > 0;
  }

  /** Forget a node the caller is deleting. */
  removeNode(node: Node): void {
    this.#remove(node);
  }

  /** Whether every read of `from` (nested ones included) can become a read of `to`. */
  canReplace(from: string, to: string): boolean {
    for (const n of this.users(from)) for (const g of subgraphsOf(n)) if (!renameInSubgraph(g, from, to, false)) return false;
    return true;
  }

  /** Makes every reader of `from` read `to`; returns false (changing nothing) when that is unsafe. */
  replace(from: string, to: string): boolean {
    if (from === to) return true;
    if (!this.canReplace(from, to)) return false;
    for (const n of [...this.users(from)]) {
      this.#remove(n);
      n.inputs = n.inputs.map((x) => (x === from ? to : x));
      for (const g of subgraphsOf(n)) renameInSubgraph(g, from, to, true);
      this.#add(n);
    }
    return true;
  }
}

