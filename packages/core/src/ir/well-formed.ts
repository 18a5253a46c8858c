/**
 * The shape every stage after loading relies on, checked in one linear walk: each node reads only
 * graph inputs, initializers, values of enclosing graphs, and outputs of nodes before it; no value has
 * two producers; every graph output is defined. The optimizer checks it after each pass, so a pass
 * that breaks the graph is named at once instead of surfacing later as a confusing kernel failure.
 */
import { nodeInputsWithCaptures, nodeLabel, type Graph } from './graph.js';
import { definedOutside, type OuterNames } from './topological-order.js';

/** Names `graph` defines (inputs, initializers, node outputs), as the enclosing scope of its subgraphs. */
export function namesDefinedBy(graph: Graph, outer?: OuterNames): OuterNames {
  const names = new Set<string>(graph.inputs.map((v) => v.name));
  for (const name of graph.initializers.keys()) names.add(name);
  for (const node of graph.nodes) for (const out of node.outputs) if (out) names.add(out);
  return { has: (name) => names.has(name), parent: outer };
}

/**
 * What is wrong with `graph` (nodes only, not inside its subgraphs), or undefined when it is well
 * formed. `outer` holds what enclosing graphs define, for subgraphs.
 */
export function findMalformation(graph: Graph, outer?: OuterNames): string | undefined {
  const produced = new Set<string>();
  for (const node of graph.nodes) for (const out of node.outputs) if (out) produced.add(out);
  const defined = new Set<string>(graph.inputs.map((v) => v.name));
  for (const name of graph.initializers.keys()) defined.add(name);

  for (const node of graph.nodes) {
    for (const name of nodeInputsWithCaptures(node)) {
      if (!name || defined.has(name)) continue;
      // A name this graph writes hides an outer one: reading it before its producer is out of order.
      if (produced.has(name)) return `node '${nodeLabel(node)}' (${node.opType}) reads '${name}' before the node that writes it`;
      if (!definedOutside(outer, name)) return `node '${nodeLabel(node)}' (${node.opType}) reads '${name}', which nothing defines`;
    }
    for (const out of node.outputs) {
      if (!out) continue;
      if (defined.has(out)) return `node '${nodeLabel(node)}' (${node.opType}) writes '${out}', which is already defined (a second producer)`;
      defined.add(out);
    }
  }
  for (const { name } of graph.outputs) {
    if (name && !defined.has(name) && !definedOutside(outer, name)) return `graph output '${name}' is not produced`;
  }
  return undefined;
}
