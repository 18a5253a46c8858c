/** Checks that a set of nodes can run as one fused unit without creating a cycle. */
import type { Graph, Node } from '../ir/graph.js';

/**
 * A fused group is valid when no path leaves the group and re-enters it through outside nodes
 * (contracting it would make a cycle). Returns a reason when invalid, else undefined.
 */
export function checkFusable(graph: Graph, group: readonly Node[], assigned: ReadonlySet<Node>): string | undefined {
  const inGroup = new Set(group);
  for (const n of group) if (assigned.has(n)) return `node '${n.name}' is already assigned`;
  const consumers = graph.consumers();
  // Outside nodes reachable from the group's outputs.
  const reached = new Set<Node>();
  const stack: Node[] = [];
  for (const n of group) {
    for (const o of n.outputs) for (const c of consumers.get(o) ?? []) if (!inGroup.has(c) && !reached.has(c)) { reached.add(c); stack.push(c); }
  }
  while (stack.length) {
    const n = stack.pop()!;
    for (const o of n.outputs) {
      for (const c of consumers.get(o) ?? []) {
        if (inGroup.has(c)) return `fusing would create a cycle through '${n.name}' (${n.opType})`;
        if (!reached.has(c)) { reached.add(c); stack.push(c); }
      }
    }
  }
  return undefined;
}
