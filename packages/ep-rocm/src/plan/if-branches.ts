/**
 * ONNX If on rocm. A GPU plan is a fixed list of steps, so an If runs on rocm only where the plan can
 * decide it when it is built: its condition computed on the host from constants, shapes and small
 * integer or bool graph inputs, whose values then join the plan's key (shape-inputs.ts). Exporters
 * write Python `if`s on such values this way: a sample-rate test picking the STFT's hop, a shape test
 * picking a padding. The plan then holds the taken branch's nodes in place of the If, and a run with
 * the other value builds (and keeps) the other plan.
 *
 * Claiming needs both branches runnable: each branch is inlined into a copy of the graph and its nodes
 * go through the same lookup as any node (capability.ts). Branches holding control flow of their own
 * are declined (their captures would need renaming through every level).
 */
import { Graph, subgraphsOf, type KnownValue, type Node, type Tensor } from '@switchyard/core';
import { VALUE_OPS, planTimeKnown } from './host-values.js';
// The inputs the partition reads back to key its plans (rocm-partition.ts): what a condition may rest on.
import { MAX_SHAPE_INPUT_ELEMENTS, SHAPE_INPUT_TYPES } from './shape-inputs.js';


/**
 * Whether `name` is known when a plan is built, counting small integer/bool graph inputs as known
 * (their values join the plan's key): constants, shapes, such inputs, and value ops over them.
 */
export function planTimeDecidable(graph: Graph, name: string): boolean {
  if (planTimeKnown(graph, name)) return true;
  const producers = graph.producers();
  const seen = new Set<string>();
  const visit = (value: string): boolean => {
    if (value === '' || planTimeKnown(graph, value)) return true;
    if (seen.has(value)) return false;
    seen.add(value);
    const input = graph.inputs.find((i) => i.name === value);
    if (input) {
      const t = input.type;
      if (t?.kind !== 'tensor' || !SHAPE_INPUT_TYPES.has(t.elemType) || !t.shape) return false;
      const count = t.shape.reduce<number>((n, d) => (typeof d === 'number' ? n * d : Infinity), 1);
      return count <= MAX_SHAPE_INPUT_ELEMENTS;
    }
    const node = producers.get(value);
    // planTimeKnown's value ops: the ones whose outputs inference computes from known inputs.
    if (!node || !VALUE_OPS.has(node.opType) || (node.domain !== '' && node.domain !== 'ai.onnx')) return false;
    return node.inputs.every(visit);
  };
  return visit(name);
}

/** Why the branches of an If cannot be inlined, or undefined. */
export function branchShapeProblem(node: Node): string | undefined {
  for (const key of ['then_branch', 'else_branch']) {
    const a = node.attributes.get(key);
    if (a?.type !== 'graph') return `If without a ${key} graph`;
    const branch = a.value;
    if (branch.inputs.length > 0) return `If ${key} declares inputs (a branch takes none)`;
    if (branch.outputs.length !== node.outputs.length) return `If ${key} has ${branch.outputs.length} outputs, the If ${node.outputs.length}`;
    if (branch.nodes.some((n) => subgraphsOf(n).length > 0)) return `If ${key} holds control flow of its own, which rocm does not inline`;
  }
  return undefined;
}

/**
 * The branch of `node` taken for `condition`, as nodes of the enclosing graph: the branch's own values
 * renamed under the If's name (so they cannot collide with the enclosing graph's), its results written
 * to the If's outputs (an Identity where a result is an outer value, an initializer or repeated), and
 * its initializers. `nextId` numbers the new nodes.
 */
export function inlineBranch(node: Node, condition: boolean, nextId: () => number): { nodes: Node[]; initializers: Map<string, Tensor> } {
  const key = condition ? 'then_branch' : 'else_branch';
  const a = node.attributes.get(key);
  if (a?.type !== 'graph') throw new Error(`If '${node.name}' has no ${key}`);
  const branch = a.value;
  const prefix = `${node.name || `If#${node.id}`}/${key}/`;
  const rename = new Map<string, string>();
  for (const name of branch.initializers.keys()) rename.set(name, prefix + name);
  for (const n of branch.nodes) for (const o of n.outputs) if (o) rename.set(o, prefix + o);
  // A result produced by a branch node (once) is written straight to the If's output.
  const producedOnce = new Map<string, number>();
  branch.outputs.forEach((o, k) => producedOnce.set(o.name, producedOnce.has(o.name) ? -1 : k));
  const produced = new Set(branch.nodes.flatMap((n) => n.outputs));
  const direct = new Set<string>();
  for (const [name, k] of producedOnce) {
    if (k >= 0 && produced.has(name) && node.outputs[k]) {
      rename.set(name, node.outputs[k]);
      direct.add(name);
    }
  }
  const mapName = (name: string) => (name ? rename.get(name) ?? name : name);
  const nodes: Node[] = branch.nodes.map((n) => ({
    ...n,
    id: nextId(),
    name: prefix + (n.name || `${n.opType}#${n.id}`),
    inputs: n.inputs.map(mapName),
    outputs: n.outputs.map(mapName),
    attributes: new Map(n.attributes),
  }));
  branch.outputs.forEach((o, k) => {
    if (!node.outputs[k] || direct.has(o.name)) return;
    nodes.push({ id: nextId(), name: `${prefix}result${k}`, opType: 'Identity', domain: '', inputs: [mapName(o.name)], outputs: [node.outputs[k]], attributes: new Map() });
  });
  const initializers = new Map([...branch.initializers].map(([name, t]) => [prefix + name, t] as const));
  return { nodes, initializers };
}

/** The If nodes among `nodes` whose condition is a known value, each with the branch it takes. */
export function decidedIfs(nodes: readonly Node[], known: ReadonlyMap<string, KnownValue & { values: number[] }>): Map<Node, boolean> {
  const decided = new Map<Node, boolean>();
  for (const n of nodes) {
    if (n.opType !== 'If' || (n.domain !== '' && n.domain !== 'ai.onnx')) continue;
    const cond = known.get(n.inputs[0]);
    if (cond && cond.values.length === 1) decided.set(n, cond.values[0] !== 0);
  }
  return decided;
}

/** `nodes` with every decided If replaced by its taken branch's nodes, and the branches' initializers. */
export function inlineDecided(nodes: readonly Node[], decided: ReadonlyMap<Node, boolean>): { nodes: Node[]; initializers: Map<string, Tensor> } {
  let next = nodes.reduce((m, n) => Math.max(m, n.id + 1), 0);
  const initializers = new Map<string, Tensor>();
  const out = nodes.flatMap((n) => {
    const condition = decided.get(n);
    if (condition === undefined) return [n];
    const inlined = inlineBranch(n, condition, () => next++);
    for (const [k, v] of inlined.initializers) initializers.set(k, v);
    return inlined.nodes;
  });
  return { nodes: out, initializers };
}

/** A copy of `graph` with `node` (an If) replaced by one of its branches; shapes left to the caller. */
export function graphWithBranch(graph: Graph, node: Node, condition: boolean): { graph: Graph; nodes: Node[] } {
  const inlined = inlineDecided(graph.nodes, new Map([[node, condition]]));
  const taken = new Set(inlined.nodes.filter((n) => !graph.nodes.includes(n)));
  const g = new Graph({
    name: graph.name,
    nodes: inlined.nodes,
    inputs: graph.inputs,
    outputs: graph.outputs,
    initializers: new Map([...graph.initializers, ...inlined.initializers]),
    opsetImports: graph.opsetImports,
    parent: graph.parent,
  });
  return { graph: g, nodes: inlined.nodes.filter((n) => taken.has(n)) };
}
