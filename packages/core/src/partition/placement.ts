/**
 * The placement report: per node, the EP and implementation that run it and why earlier EPs declined;
 * per EP, node count and coverage by nodes and by FLOPs; the copies between devices.
 */
import { nodeLabel, type Graph, type Node } from '../ir/graph.js';
import type { DeclineRecord, PartitionPlan } from './partition-graph.js';
import type { CopyStep } from './copy-insertion.js';
import { deviceOf } from './copy-insertion.js';

export interface NodePlacement {
  /** Path of the graph holding the node: '' for the main graph, `If_3/then_branch` inside subgraphs. */
  graph: string;
  name: string;
  opType: string;
  domain: string;
  ep: string;
  /** `ts`, `onednn`, `compiled`, … */
  implementation: string;
  /** The fused partition holding the node, if any. */
  partition?: string;
  /** Why each EP before `ep` declined this node. */
  declined: DeclineRecord[];
  /** With `partitioning: 'cost'`: why the node was moved to, or kept on, its EP (copies vs compute). */
  reason?: string;
  flops: number;
}

export interface ProviderSummary {
  name: string;
  device: string;
  nodes: number;
  /** Nodes on this EP / all nodes. */
  nodeCoverage: number;
  flops: number;
  /** FLOPs on this EP / all FLOPs (0 when no FLOPs are known). */
  flopCoverage: number;
  description?: string;
}

export interface CopyPlacement {
  value: string;
  from: string;
  to: string;
  ep: string;
}

export interface Placement {
  nodes: NodePlacement[];
  providers: ProviderSummary[];
  /** EPs that were asked for but could not start. */
  skipped: Array<{ name: string; reason: string }>;
  copies: CopyPlacement[];
  totalNodes: number;
  totalFlops: number;
}

export interface PlacementSource {
  partition: PartitionPlan;
  implementationOf: (node: Node) => string;
  copies: readonly CopyStep[];
  subplans: Iterable<{ owner: Node; attribute: string; source: PlacementSource }>;
}

export function buildPlacement(
  root: PlacementSource,
  flopsOf: (node: Node, graph: Graph) => number,
  describe: (epName: string) => string | undefined,
): Placement {
  const nodes: NodePlacement[] = [];
  const copies: CopyPlacement[] = [];
  const devices = new Map<string, string>();
  const order: string[] = [];
  const walk = (src: PlacementSource, path: string): void => {
    const graph = src.partition.graph;
    for (const node of graph.nodes) {
      const unit = src.partition.unitOf.get(node)!;
      devices.set(unit.ep.name, deviceOf(unit.ep));
      if (!order.includes(unit.ep.name)) order.push(unit.ep.name);
      nodes.push({
        graph: path,
        name: nodeLabel(node),
        opType: node.opType,
        domain: node.domain,
        ep: unit.ep.name,
        implementation: src.implementationOf(node),
        partition: unit.kind === 'fused' ? unit.name : undefined,
        declined: src.partition.declines.get(node)?.filter((d) => d.ep !== unit.ep.name) ?? [],
        reason: src.partition.reasons?.get(node),
        flops: flopsOf(node, graph),
      });
    }
    for (const c of src.copies) copies.push({ value: c.source, from: c.from, to: c.to, ep: c.ep.name });
    for (const s of src.subplans) walk(s.source, `${path ? path + '/' : ''}${s.owner.name}/${s.attribute}`);
  };
  walk(root, '');
  const totalNodes = nodes.length;
  const totalFlops = nodes.reduce((a, n) => a + n.flops, 0);
  const providers: ProviderSummary[] = order.map((name) => {
    const mine = nodes.filter((n) => n.ep === name);
    const flops = mine.reduce((a, n) => a + n.flops, 0);
    return {
      name,
      device: devices.get(name) ?? 'cpu',
      nodes: mine.length,
      nodeCoverage: totalNodes ? mine.length / totalNodes : 0,
      flops,
      flopCoverage: totalFlops ? flops / totalFlops : 0,
      description: describe(name),
    };
  });
  return { nodes, providers, skipped: root.partition.skipped, copies, totalNodes, totalFlops };
}
