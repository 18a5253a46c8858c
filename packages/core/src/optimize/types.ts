/** Public option and report types of the graph optimizer. */
import type { Graph, Node } from '../ir/graph.js';
import type { Tensor } from '../tensor/tensor.js';

/** onnxruntime's `graphOptimizationLevel` names. Core implements `basic`; EPs add `extended`/`all` passes. */
export type GraphOptimizationLevel = 'disabled' | 'basic' | 'extended' | 'all';

/** Where a node being evaluated lives: the graph that holds it and the opset in force for its domain. */
export interface EvaluateNodeContext {
  graph: Graph;
  opset: number | undefined;
}

/**
 * Runs one node on host tensors (the session passes a CPU-EP evaluator).
 * `inputs[i]` is `undefined` where the node omits optional input `i` (its name is '').
 * Returns one tensor per node output, in order. Throwing or rejecting just leaves the node unfolded.
 */
export type EvaluateNode = (
  node: Node,
  inputs: ReadonlyArray<Tensor | undefined>,
  context: EvaluateNodeContext,
) => Promise<Tensor[]> | Tensor[];

/** What one pass did, summed over every round and every (sub)graph. */
export interface PassReport {
  name: string;
  level: Exclude<GraphOptimizationLevel, 'disabled'>;
  /** Nodes the pass removed or replaced; subgraph nodes are qualified as `outerNode.attr/node`. */
  nodes: string[];
  /** `nodes.length`, for quick display. */
  count: number;
  initializersAdded: string[];
  initializersRemoved: string[];
  /** Candidates the pass looked at and left alone, with the reason (too large, evaluation failed, …). */
  skipped: Array<{ node: string; reason: string }>;
  /**
   * Where removed nodes went, for passes that replace several nodes by one (fusions, layout rewrites):
   * the new node's label and the labels of the nodes it stands for. `switchyard explain` follows these.
   */
  replacements?: Array<{ nodes: string[]; by: string }>;
}

export interface GraphPassContext {
  mayRewrite(node: Node): boolean;
}

/** A pass contributed by an EP or a later stage for the `extended` or `all` level. */
export interface GraphPass {
  name: string;
  level: 'extended' | 'all';
  /**
   * Mutates `graph` in place (keeping topological order) and records what it did in `report`.
   * `context.mayRewrite` says which nodes the pass may touch: a pass an EP contributes must leave
   * alone the nodes an EP earlier in the priority list would take.
   */
  run(graph: Graph, report: PassReport, context?: GraphPassContext): void | Promise<void>;
}

export interface OptimizeOptions {
  level: GraphOptimizationLevel;
  evaluateNode: EvaluateNode;
  /** Constant-folded outputs larger than this stay computed at run time (default 16 MiB). */
  maxFoldBytes?: number;
  /**
   * Values of the main graph that must survive under their own name besides the graph outputs
   * (e.g. intermediates a caller fetches for debugging). They are treated exactly like graph outputs.
   */
  keepOutputs?: Iterable<string>;
  /** Passes for `extended`/`all`, run after the basic passes when `level` reaches theirs. */
  extraPasses?: readonly GraphPass[];
}

export interface OptimizeReport {
  level: GraphOptimizationLevel;
  /** One entry per pass, in the order they run. */
  passes: PassReport[];
  /** Node counts including nodes of subgraphs. */
  nodesBefore: number;
  nodesAfter: number;
  /** Fixed-point rounds the basic passes took on the main graph. */
  rounds: number;
}
