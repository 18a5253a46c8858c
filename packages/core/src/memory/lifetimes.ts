/**
 * Value lifetimes over the steps of a graph (step = index of the node in `graph.nodes`). A value lives
 * from the step of the node that writes it to the last step of a node that reads it; reads inside a
 * subgraph count at the step of the outer node that runs the subgraph. A value nobody reads still
 * lives at its own step, while its producer writes it.
 */
import { SwitchyardError } from '../errors.js';
import type { Graph } from '../ir/graph.js';
import { valuesReadBy } from '../optimize/scope.js';

export interface ValueLifetime {
  /** Step of the producing node. */
  start: number;
  /** Last step that reads the value (inclusive); `start` when nothing reads it. */
  end: number;
}

/** Lifetimes of every value produced by a node of `graph` (not of its subgraphs). */
export function valueLifetimes(graph: Graph): Map<string, ValueLifetime> {
  const lifetimes = new Map<string, ValueLifetime>();
  graph.nodes.forEach((node, step) => {
    for (const out of node.outputs) {
      if (!out) continue;
      if (lifetimes.has(out)) {
        throw new SwitchyardError('INVALID_GRAPH', `value '${out}' is produced by more than one node (again by '${node.name}')`);
      }
      lifetimes.set(out, { start: step, end: step });
    }
  });
  graph.nodes.forEach((node, step) => {
    for (const name of valuesReadBy(node)) {
      const life = lifetimes.get(name);
      if (!life) continue;
      if (step <= life.start) {
        throw new SwitchyardError(
          'INVALID_GRAPH',
          `node '${node.name}' (step ${step}) reads '${name}' before it is produced (step ${life.start}): nodes are not in topological order`,
        );
      }
      life.end = Math.max(life.end, step);
    }
  });
  return lifetimes;
}
