/**
 * Dead-code elimination: drops nodes none of whose outputs reach a protected name (graph outputs), and
 * initializers nothing reads. Reads by subgraphs (captured outer values) count, so run it after the
 * subgraphs themselves are optimized: their dead reads are gone by then.
 *
 * Graph inputs are never removed. Nodes without any output are kept: they can only be there for an
 * effect we cannot see.
 */
import type { Node } from '../ir/graph.js';
import { emptyResult, type PassResult } from './pass-result.js';
import { valuesReadBy, type Scope } from './scope.js';
import { nodeLabel } from '../ir/graph.js';

export function eliminateDeadCode(scope: Scope): PassResult {
  const graph = scope.graph;
  const result = emptyResult();
  const live = new Set<string>(scope.protectedNames);
  const dead = new Set<Node>();

  for (let i = graph.nodes.length - 1; i >= 0; i--) {
    const node = graph.nodes[i];
    const outputs = node.outputs.filter((o) => o !== '');
    if (outputs.length > 0 && !outputs.some((o) => live.has(o))) {
      dead.add(node);
      continue;
    }
    for (const name of valuesReadBy(node)) live.add(name);
  }

  if (dead.size > 0) {
    graph.nodes = graph.nodes.filter((n) => !dead.has(n));
    for (const node of dead) {
      result.nodes.push(nodeLabel(node));
      for (const o of node.outputs) if (o) graph.valueInfo.delete(o);
    }
    result.nodes.reverse();
  }

  const graphInputs = new Set(graph.inputs.map((v) => v.name));
  for (const name of [...graph.initializers.keys()]) {
    if (live.has(name) || graphInputs.has(name)) continue;
    graph.initializers.delete(name);
    graph.valueInfo.delete(name);
    result.initializersRemoved.push(name);
  }
  return result;
}
