/**
 * Shape folding: the parts of an exported model's shape arithmetic that do not depend on a dynamic
 * dim become initializers. `Gather(Shape(x), 2)` is a constant whenever x's dim 2 is static, even when
 * x's batch dim is symbolic; constant folding cannot see that (Shape's input is no constant), so
 * ViT-style and GPT-style exports kept hundreds of Shape → Gather → Div → Cast → Unsqueeze nodes that
 * ran every time. Shape inference already computes these contents (its known values); here the
 * outputs it computed in full, of the ops that only move shape elements, are written to the graph, and
 * constant folding then evaluates the arithmetic after them with the real kernels.
 *
 * Only the top-level graph (inference reports known values there). An initializer that is also a
 * graph input is a default the caller may override, so it is hidden from inference while it runs.
 */
import type { Graph, Node } from '../ir/graph.js';
import { nodeLabel } from '../ir/graph.js';
import { inferShapes } from '../shape-inference/index.js';
import type { KnownValue } from '../shape-inference/index.js';
import { INT_TYPES, allocateData, type DataType } from '../tensor/data-type.js';
import { Tensor } from '../tensor/tensor.js';
import { isOnnxOp, isPure } from './node-traits.js';
import { emptyResult, type PassResult } from './pass-result.js';
import type { Scope } from './scope.js';

/**
 * Ops whose known contents inference takes from their inputs' elements without arithmetic (their value
 * rules move symbols through exactly), so folding them cannot disagree with their kernels.
 */
const ELEMENT_MOVING_OPS = ['Shape', 'Size', 'Gather', 'Slice', 'Concat', 'Unsqueeze', 'Squeeze', 'Reshape', 'Flatten', 'Identity'];

/** Known contents with every element a number (no symbols, nothing unknown). */
type FullyKnown = Omit<KnownValue, 'values'> & { values: number[] };

/** The known contents as a tensor, for integer dtypes whose values are all exact in a JS number. */
function tensorOf(value: FullyKnown): Tensor | undefined {
  const type: DataType = value.type;
  if (!INT_TYPES.includes(type) || !value.values.every((v) => Number.isSafeInteger(v))) return undefined;
  if (type === 'int64') return new Tensor('int64', BigInt64Array.from(value.values, BigInt), value.dims);
  if (type === 'uint64') return value.values.every((v) => v >= 0) ? new Tensor('uint64', BigUint64Array.from(value.values, BigInt), value.dims) : undefined;
  const data = allocateData(type, value.values.length) as Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array;
  value.values.forEach((v, i) => (data[i] = v));
  // A value the dtype cannot hold (inference keeps JS numbers) is left to the kernels.
  return data.every((v, i) => v === value.values[i]) ? new Tensor(type, data, value.dims) : undefined;
}

/** Runs inference with the overridable initializers hidden; returns every output it knew in full. */
function knownOutputs(graph: Graph): Map<string, FullyKnown> {
  const known = new Map<string, FullyKnown>();
  const hidden = graph.inputs.filter((v) => graph.initializers.has(v.name)).map((v) => [v.name, graph.initializers.get(v.name)!] as const);
  for (const [name] of hidden) graph.initializers.delete(name);
  try {
    inferShapes(graph, { onKnownValue: (name, value) => known.set(name, value) });
  } finally {
    for (const [name, t] of hidden) graph.initializers.set(name, t);
  }
  return known;
}

export function foldShapes(scope: Scope): PassResult {
  const result = emptyResult();
  const graph = scope.graph;
  if (scope.parent) return result;
  const candidates = (node: Node) => ELEMENT_MOVING_OPS.some((op) => isOnnxOp(node, op)) && isPure(node);
  if (!graph.nodes.some(candidates)) return result;
  const known = knownOutputs(graph);
  const folded = new Set<Node>();
  for (const node of graph.nodes) {
    if (!candidates(node) || node.outputs.length !== 1) continue;
    const out = node.outputs[0];
    const value = out ? known.get(out) : undefined;
    if (!out || !value || scope.protectedNames.has(out)) continue;
    const tensor = tensorOf(value);
    if (!tensor) continue;
    graph.initializers.set(out, tensor);
    result.initializersAdded.push(out);
    result.nodes.push(nodeLabel(node));
    folded.add(node);
  }
  if (folded.size > 0) graph.nodes = graph.nodes.filter((n) => !folded.has(n));
  return result;
}
