/** Facts about nodes and tensors that decide whether a pass may touch a node. */
import { subgraphsOf, type Node } from '../ir/graph.js';
import { BYTES_PER_ELEMENT } from '../tensor/data-type.js';
import type { Tensor } from '../tensor/tensor.js';

/**
 * Domains whose operators we know. Nodes of other (custom) domains may have state or side effects the
 * optimizer cannot see, so folding and CSE leave them alone.
 */
const KNOWN_DOMAINS = new Set(['', 'ai.onnx', 'ai.onnx.ml', 'com.microsoft']);

/** Operators whose result is random: evaluating them once, or once for two nodes, changes behaviour. */
const NONDETERMINISTIC = new Set([
  'RandomNormal',
  'RandomUniform',
  'RandomNormalLike',
  'RandomUniformLike',
  'Multinomial',
  'Bernoulli',
  // Random in training mode; the identity pass removes it in inference mode.
  'Dropout',
  'BiasDropout',
  'BitmaskDropout',
  'BitmaskBiasDropout',
]);

export function normalizeDomain(domain: string): string {
  return domain === 'ai.onnx' ? '' : domain;
}

/** Default-domain op `opType` (`''` or `ai.onnx`). */
export function isOnnxOp(node: Node, opType: string): boolean {
  return node.opType === opType && normalizeDomain(node.domain) === '';
}

export function hasSubgraphs(node: Node): boolean {
  return subgraphsOf(node).length > 0;
}

/** Whether two identical calls of this node always give identical results, with nothing else observed. */
export function isPure(node: Node): boolean {
  return KNOWN_DOMAINS.has(node.domain) && !NONDETERMINISTIC.has(node.opType) && !hasSubgraphs(node);
}

/** Host bytes a tensor occupies (strings: their UTF-16 code units, a cheap upper-bound-ish estimate). */
export function tensorBytes(t: Tensor): number {
  if (t.type === 'string') {
    let n = 0;
    for (const s of t.data as string[]) n += s.length;
    return n;
  }
  return t.size * BYTES_PER_ELEMENT[t.type];
}
