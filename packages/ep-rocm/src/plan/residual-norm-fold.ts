/**
 * Add → LayerNormalization, where the sum is read only by the norm (a post-norm transformer's
 * `norm(x + sublayer(x))`), becomes one LayerNormalization step that adds the residual as it loads its
 * row (kernels/norm.hip takes it): one pass over the activations instead of two. BERT has two per layer.
 */
import type { Graph, Node } from '@switchyard/core';
import { constantOf, staticDims } from './graph-values.js';

export interface ResidualNormFold {
  add: Node;
  /** The norm's x and the residual added to it (both the sum's shape). */
  x: string;
  residual: string;
}

/** Keyed by the LayerNormalization node. */
export function foldableResidualNorms(graph: Graph, nodes: readonly Node[], outputNames: readonly string[]): Map<Node, ResidualNormFold> {
  const readers = new Map<string, number>();
  for (const n of nodes) for (const i of n.inputs) if (i) readers.set(i, (readers.get(i) ?? 0) + 1);
  const producer = new Map<string, Node>();
  for (const n of nodes) for (const o of n.outputs) if (o) producer.set(o, n);
  const outputs = new Set(outputNames);
  const folds = new Map<Node, ResidualNormFold>();
  for (const norm of nodes) {
    if (norm.opType !== 'LayerNormalization' || norm.domain !== '') continue;
    const sum = norm.inputs[0];
    const add = producer.get(sum);
    if (!add || add.opType !== 'Add' || add.domain !== '' || readers.get(sum) !== 1 || outputs.has(sum)) continue;
    const [a, b] = add.inputs;
    const dims = staticDims(graph, sum)?.join();
    if (!a || !b || constantOf(graph, a) || constantOf(graph, b)) continue;
    if (staticDims(graph, a)?.join() !== dims || staticDims(graph, b)?.join() !== dims) continue; // no broadcasting
    folds.set(norm, { add, x: a, residual: b });
  }
  return folds;
}
