/**
 * Grouping the nodes an EP can take into fused partitions: each group connected through data edges,
 * and contractible (no path leaves it and comes back, which would make a cycle between units).
 * Greedy in topological order: a node joins the groups of its producers when that stays acyclic.
 * The partitioner re-checks every group (core's `checkFusable`); this only proposes good ones.
 */
import { nodeInputsWithCaptures, type Graph, type Node } from '@switchyard/core';

/** Whether some path leaves `group` and re-enters it (through nodes ordered before its last member). */
function reentersGroup(group: ReadonlySet<Node>, consumers: Map<string, Node[]>, order: Map<Node, number>): boolean {
  let last = 0;
  for (const n of group) last = Math.max(last, order.get(n)!);
  const seen = new Set<Node>();
  const stack: Node[] = [];
  const push = (from: Node): void => {
    for (const o of from.outputs) {
      for (const c of consumers.get(o) ?? []) {
        // A path can only come back to a member ordered before or at the group's last member.
        if (group.has(c) || seen.has(c) || order.get(c)! > last) continue;
        seen.add(c);
        stack.push(c);
      }
    }
  };
  for (const n of group) push(n);
  while (stack.length > 0) {
    const n = stack.pop()!;
    for (const o of n.outputs) for (const c of consumers.get(o) ?? []) if (group.has(c)) return true;
    push(n);
  }
  return false;
}

/**
 * Groups `candidates` (nodes of `graph`) into maximal connected, acyclic partitions, in topological
 * order of their first node. Nodes not in `candidates` are never included.
 */
export function groupPartitions(graph: Graph, candidates: ReadonlySet<Node>): Node[][] {
  const order = new Map(graph.nodes.map((n, i) => [n, i] as const));
  const producers = graph.producers();
  const consumers = graph.consumers();
  const groupOf = new Map<Node, Set<Node>>();
  const groups: Array<Set<Node>> = [];

  for (const node of graph.nodes) {
    if (!candidates.has(node)) continue;
    const joinable: Array<Set<Node>> = [];
    for (const input of nodeInputsWithCaptures(node)) {
      const p = input ? producers.get(input) : undefined;
      const g = p && groupOf.get(p);
      if (g && !joinable.includes(g)) joinable.push(g);
    }
    // Largest first, so a node that can join only one group joins the one worth most.
    joinable.sort((a, b) => b.size - a.size);
    let placed: Set<Node> | undefined;
    const merged = new Set<Node>([node, ...joinable.flatMap((g) => [...g])]);
    if (joinable.length > 0 && !reentersGroup(merged, consumers, order)) {
      placed = joinable[0];
      for (const g of joinable.slice(1)) {
        for (const n of g) {
          placed.add(n);
          groupOf.set(n, placed);
        }
        groups.splice(groups.indexOf(g), 1);
      }
      placed.add(node);
    } else {
      for (const g of joinable) {
        const trial = new Set(g).add(node);
        if (!reentersGroup(trial, consumers, order)) {
          placed = g.add(node);
          break;
        }
      }
    }
    if (!placed) {
      placed = new Set([node]);
      groups.push(placed);
    }
    groupOf.set(node, placed);
  }
  // Members in graph (topological) order; groups by their first member.
  return groups
    .map((g) => [...g].sort((a, b) => order.get(a)! - order.get(b)!))
    .sort((a, b) => order.get(a[0])! - order.get(b[0])!);
}
