/**
 * The walker: visits nodes in topological order, derives each output's type from the op schema and the
 * op's shape rule, merges it with any declared type, and records it in `graph.valueInfo`. Subgraphs
 * are visited with their inputs seeded. Nothing here throws for unknown ops or odd attributes: such
 * outputs keep whatever could be derived, and `onWarning` hears why.
 */
import { type Graph, type Node, type ValueType, subgraphsOf } from '../ir/graph.js';
import { InferContext, type SubgraphInferrer, type WarningSink } from './context.js';
import { mergeTypes } from './dims.js';
import { valueRules } from './folding.js';
import { KnownValueStore, isFullyKnown, knownFromTensor, type KnownValue } from './known-values.js';
import type { Tensor } from '../tensor/tensor.js';
import { SHAPE_RULES } from './rules/index.js';
import { applySchemaTypes } from './schema-dtypes.js';

export interface InferShapesOptions {
  /**
   * Hears about declared types that disagree with inference (the declaration is kept) and rules that
   * failed on malformed nodes. Default: ignore.
   */
  onWarning?: (message: string) => void;
  /**
   * Hears every node output of the top-level graph whose contents inference computed in full (the
   * int64 shape arithmetic over Shape, small constant chains). A compiling EP that knows its concrete
   * input shapes turns these into constants instead of running them. Default: ignore.
   */
  onKnownValue?: (name: string, value: KnownValue & { values: number[] }) => void;
  /**
   * Contents of graph inputs known to the caller (a compiling EP holding a run's small int64 inputs
   * that feed Reshape/Expand targets): inference folds through them as through initializers.
   */
  knownInputs?: ReadonlyMap<string, Tensor>;
}

/**
 * Records a `ValueType` in `graph.valueInfo` for every node output of `graph` and its subgraphs.
 * Where the model declared a type, the more specific of declaration and inference wins, dim by dim.
 */
export function inferShapes(graph: Graph, options: InferShapesOptions = {}): void {
  const warn: WarningSink = options.onWarning ?? (() => {});
  const values = new KnownValueStore(graph);
  for (const [name, tensor] of options.knownInputs ?? []) values.set(name, knownFromTensor(tensor));
  inferGraph(graph, values, warn, options.onKnownValue);
}

function inferGraph(graph: Graph, values: KnownValueStore, warn: WarningSink, onKnownValue?: InferShapesOptions['onKnownValue']): void {
  const inferSubgraph: SubgraphInferrer = (body, inputTypes) => {
    seedInputs(body, inputTypes);
    inferGraph(body, values.child(body), warn);
  };
  for (const node of graph.nodes) {
    inferNode(node, graph, values, warn, inferSubgraph);
    if (!onKnownValue) continue;
    for (const name of node.outputs) {
      const v = name ? values.get(name) : undefined;
      if (isFullyKnown(v)) onKnownValue(name, v);
    }
  }
}

function isDefaultDomain(node: Node): boolean {
  return node.domain === '' || node.domain === 'ai.onnx';
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function inferNode(node: Node, graph: Graph, values: KnownValueStore, warn: WarningSink, inferSubgraph: SubgraphInferrer): void {
  const ctx = new InferContext(node, graph, values, warn, inferSubgraph);
  try {
    applySchemaTypes(ctx);
    if (isDefaultDomain(node)) SHAPE_RULES.get(node.opType)?.(ctx);
  } catch (e) {
    ctx.warn(`shape inference failed: ${describe(e)}`);
  }
  if (isDefaultDomain(node) && !ctx.outputValues[0]) {
    try {
      ctx.setValue(0, valueRules[node.opType]?.(ctx));
    } catch (e) {
      ctx.warn(`value propagation failed: ${describe(e)}`);
    }
  }
  // Subgraphs of ops without a rule (custom domains, SequenceMap-like ops) are still inferred inside.
  if (!ctx.subgraphsDone) for (const body of subgraphsOf(node)) inferSubgraph(body, []);

  node.outputs.forEach((name, i) => {
    if (!name) return;
    const existing = graph.valueInfo.get(name);
    const declared = existing?.type ?? graph.outputs.find((v) => v.name === name)?.type;
    const merged = mergeTypes(declared, ctx.outputs[i], (m) => ctx.warn(`output '${name}': ${m}`));
    if (merged) graph.valueInfo.set(name, { ...existing, name, type: merged });
    values.set(name, ctx.outputValues[i]);
  });
}

/** Gives a subgraph's inputs the types the enclosing node feeds them, where those say more. */
function seedInputs(body: Graph, inputTypes: readonly (ValueType | undefined)[]): void {
  body.inputs.forEach((input, i) => {
    const seed = inputTypes[i];
    if (!seed) return;
    const existing = body.valueInfo.get(input.name);
    const merged = mergeTypes(existing?.type ?? input.type, seed);
    if (merged) body.valueInfo.set(input.name, { ...existing, name: input.name, type: merged });
  });
}
