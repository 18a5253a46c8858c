/** Runs the graph optimizer for a session and keeps its report for `inspect`. */
import type { Graph } from '../ir/graph.js';
import { optimizeGraph, type EvaluateNode, type GraphPass, type OptimizeReport } from '../optimize/index.js';
import type { GraphOptimizationLevel } from './session-options.js';

export interface OptimizationSummary {
  report: OptimizeReport;
  /** Host arena size, peak vs naive sum of intermediate sizes (bytes). */
  memory: { arenaBytes?: number; peakBytes?: number; naiveBytes?: number; releasedConstantBytes?: number };
}

export async function optimizeModelGraph(
  graph: Graph,
  level: GraphOptimizationLevel,
  evaluateNode: EvaluateNode,
  extraPasses: readonly GraphPass[] = [],
): Promise<OptimizationSummary> {
  const report = await optimizeGraph(graph, { level, evaluateNode, extraPasses });
  return { report, memory: {} };
}
