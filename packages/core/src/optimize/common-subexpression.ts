/**
 * Common sub-expression elimination: a pure node with the same op, inputs and attributes as an earlier
 * node computes the same values, so its readers can read the earlier node's outputs and it can go.
 * Nodes are visited in topological order and readers are rewired as we go, so chains of duplicates
 * (e.g. two identical `Shape → Gather` paths) collapse in one visit.
 */
import type { Node } from '../ir/graph.js';
import { attributesEqual } from './attribute-equality.js';
import { isPure, normalizeDomain } from './node-traits.js';
import { emptyResult, type PassResult } from './pass-result.js';
import { UseIndex, type Scope } from './scope.js';
import { nodeLabel } from '../ir/graph.js';

/** Nodes that can only be equal if these match; attributes are compared deeply within a bucket. */
function bucketKey(node: Node): string {
  return JSON.stringify([
    normalizeDomain(node.domain),
    node.opType,
    node.inputs,
    node.outputs.map((o) => o !== ''),
    [...node.attributes.keys()].sort(),
  ]);
}

export function eliminateCommonSubexpressions(scope: Scope): PassResult {
  const graph = scope.graph;
  const result = emptyResult();
  const index = new UseIndex(graph);
  const buckets = new Map<string, Node[]>();
  const removed = new Set<Node>();

  for (const node of graph.nodes) {
    if (!isPure(node) || node.outputs.every((o) => o === '')) continue;
    const key = bucketKey(node);
    const bucket = buckets.get(key);
    const original = bucket?.find((n) => attributesEqual(n.attributes, node.attributes));
    if (!bucket || !original) {
      if (bucket) bucket.push(node);
      else buckets.set(key, [node]);
      continue;
    }

    const pairs = node.outputs.map((o, i) => [o, original.outputs[i]] as const).filter(([o]) => o !== '');
    if (pairs.some(([o]) => scope.protectedNames.has(o))) {
      result.skipped.push({ node: nodeLabel(node), reason: `duplicates '${nodeLabel(original)}' but produces a protected output` });
      continue;
    }
    if (!pairs.every(([from, to]) => index.canReplace(from, to))) {
      result.skipped.push({ node: nodeLabel(node), reason: `duplicates '${nodeLabel(original)}' but a subgraph cannot be rewired` });
      continue;
    }
    index.removeNode(node);
    for (const [from, to] of pairs) {
      index.replace(from, to);
      graph.valueInfo.delete(from);
    }
    removed.add(node);
    result.nodes.push(nodeLabel(node));
  }

  if (removed.size > 0) graph.nodes = graph.nodes.filter((n) => !removed.has(n));
  return result;
}
