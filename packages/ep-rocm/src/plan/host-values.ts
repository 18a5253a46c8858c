/**
 * Shape arithmetic on the host. Exported models compute Reshape targets, Expand shapes and Slice
 * bounds with Shape → Gather → Unsqueeze → Concat chains over int64 (and Equal/Where/Cast over them).
 * A partition's plan is built per concrete input shape, so every such value is known when the plan
 * is built: core's shape inference computes them (its known values), and the plan takes them as
 * constants instead of running kernels on a few int64 elements -- no steps, no device copies, and
 * the nodes never split a GPU partition.
 *
 * Two halves: `planTimeKnown` answers at claim time (shapes may be symbolic) whether a value will be
 * known once the plan's input shapes are; `foldKnownValues` turns the known values of a concrete
 * graph into initializers.
 */
import { Tensor, type DataType, type Graph, type KnownValue, type Node } from '@switchyard/core';

/** Ops whose output depends only on their input's shape. */
const SHAPE_OPS = new Set(['Shape', 'Size']);
/**
 * Ops core's value rules evaluate (shape-inference/folding.ts, generators.ts) when every input is
 * known; a node of these over known inputs is known too.
 */
export const VALUE_OPS: ReadonlySet<string> = new Set([
  'Identity', 'Reshape', 'Flatten', 'Squeeze', 'Unsqueeze', 'Cast', 'Gather', 'Slice', 'Concat', 'Expand',
  'Add', 'Sub', 'Mul', 'Div', 'Mod', 'Neg', 'Abs', 'Max', 'Min', 'Equal', 'Less', 'LessOrEqual', 'Greater',
  'GreaterOrEqual', 'Not', 'And', 'Or', 'Where', 'ReduceProd', 'ReduceSum', 'ReduceMax', 'ReduceMin',
  'ConstantOfShape', 'Range', 'Constant',
]);
/** Types a folded value may have: integer and bool results are exact on the host. */
const FOLDED_TYPES = new Set<DataType>(['int64', 'int32', 'bool']);
/** Float results are folded only where the host computes them exactly (no arithmetic). */
const EXACT_FLOAT_OPS = new Set(['ConstantOfShape', 'Cast', 'Constant', 'Range']);

const knownCache = new WeakMap<Graph, Map<string, boolean>>();

/**
 * Whether `name` will be known on the host when the plan is built: an initializer, a Shape/Size
 * output, or the output of a value op whose inputs all are.
 */
export function planTimeKnown(graph: Graph, name: string | undefined): boolean {
  if (!name) return false;
  let memo = knownCache.get(graph);
  if (!memo) {
    memo = new Map();
    knownCache.set(graph, memo);
  }
  const producers = graph.producers();
  const visit = (value: string): boolean => {
    const cached = memo!.get(value);
    if (cached !== undefined) return cached;
    memo!.set(value, false); // a cycle (malformed graph) reads as unknown
    let known = false;
    for (let g: Graph | undefined = graph; g && !known; g = g.parent) known = g.initializers.has(value);
    const node = known ? undefined : producers.get(value);
    if (node && (node.domain === '' || node.domain === 'ai.onnx')) {
      if (SHAPE_OPS.has(node.opType)) known = true;
      else if (VALUE_OPS.has(node.opType)) known = node.inputs.every((i) => i === '' || visit(i));
    }
    memo!.set(value, known);
    return known;
  };
  return visit(name);
}

/** Whether every output of `node` is known at plan time (the node runs on the host, not as a step). */
export function hostNode(graph: Graph, node: Node): boolean {
  const outs = node.outputs.filter((o) => o !== '');
  return outs.length > 0 && outs.every((o) => planTimeKnown(graph, o));
}

/** A known value as a host tensor of its type; undefined for types the plan does not fold. */
export function tensorOfKnown(value: KnownValue & { values: number[] }): Tensor | undefined {
  const { type, dims, values } = value;
  switch (type) {
    case 'int64':
      return new Tensor('int64', BigInt64Array.from(values, (v) => BigInt(Math.trunc(v))), dims);
    case 'int32':
      return new Tensor('int32', Int32Array.from(values), dims);
    case 'bool':
      return new Tensor('bool', Uint8Array.from(values, (v) => (v ? 1 : 0)), dims);
    case 'float32':
      return new Tensor('float32', Float32Array.from(values), dims);
    default:
      return undefined;
  }
}

/**
 * The partition nodes of a concrete graph whose outputs inference computed, with those outputs as
 * tensors: the caller adds them to the graph's initializers, and the plan emits no step for them.
 */
export function foldKnownValues(graph: Graph, nodes: readonly Node[], known: ReadonlyMap<string, KnownValue & { values: number[] }>): Map<string, Tensor> {
  const folded = new Map<string, Tensor>();
  for (const node of nodes) {
    const outs = node.outputs.filter((o) => o !== '');
    if (outs.length === 0) continue;
    const tensors = outs.map((o) => {
      const v = known.get(o);
      if (!v || graph.initializers.has(o)) return undefined;
      if (!FOLDED_TYPES.has(v.type) && !(v.type === 'float32' && EXACT_FLOAT_OPS.has(node.opType))) return undefined;
      return tensorOfKnown(v);
    });
    if (tensors.some((t) => t === undefined)) continue;
    outs.forEach((o, i) => folded.set(o, tensors[i]!));
  }
  return folded;
}
