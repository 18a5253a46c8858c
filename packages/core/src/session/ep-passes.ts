/**
 * EP-contributed graph passes, each limited to the nodes its EP would run: a fusion must not take
 * nodes away from an EP earlier in the priority list (ONNX Runtime restricts fusions to compatible
 * EPs the same way).
 */
import type { ExecutionProvider } from '../ep/execution-provider.js';
import type { Graph, Node } from '../ir/graph.js';
import type { GraphPass } from '../optimize/index.js';
import { partitionGraph } from '../partition/partition-graph.js';
import type { KernelRegistry } from '../registry/kernel-registry.js';

/**
 * Which EP would take each node if the graph were partitioned now; undefined when partitioning fails
 * (then no EP pass rewrites anything, and the real partitioning reports why).
 */
async function tentativeOwners(
  graph: Graph,
  providers: readonly ExecutionProvider[],
  registry: KernelRegistry,
  skipped: Array<{ name: string; reason: string }>,
): Promise<Map<Node, string> | undefined> {
  try {
    const plan = await partitionGraph(graph, providers, registry, skipped);
    return new Map([...plan.unitOf].map(([node, unit]) => [node, unit.ep.name]));
  } catch {
    return undefined;
  }
}

export function ownedGraphPasses(
  providers: readonly ExecutionProvider[],
  registry: KernelRegistry,
  skipped: Array<{ name: string; reason: string }>,
): GraphPass[] {
  return providers.flatMap((ep) =>
    (ep.graphPasses ?? []).map(
      (pass): GraphPass => ({
        name: pass.name,
        level: pass.level,
        async run(graph, report) {
          // Recomputed per pass: earlier passes replaced nodes.
          const owners = await tentativeOwners(graph, providers, registry, skipped);
          await pass.run(graph, report, { mayRewrite: (node) => owners?.get(node) === ep.name });
        },
      }),
    ),
  );
}
