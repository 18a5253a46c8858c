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

/**
 * Which shapes the FLOP counts were read from. A model with symbolic dims (a dynamic batch) has no
 * size for its values until a run binds them: counted from the declared shapes, its compute nodes'
 * FLOPs are unknown (0) and coverage by FLOPs means little, so sessions count them again from the
 * last run's input shapes, or from dims a caller gives (`InferenceSession.placementFor`).
 */
export interface FlopShapes {
  /**
   * `declared`: the model's shapes as inferred at creation; `freeDimensionOverrides`: the same, with
   * the session's overrides fixing named dims; `lastRun`: the symbols bound to the input shapes of
   * the latest run; `given`: bound to the dims passed to `placementFor`.
   */
  source: 'declared' | 'freeDimensionOverrides' | 'lastRun' | 'given';
  /** The sizes the symbolic dims were bound to (symbol → size); empty for `declared`. */
  dims: Record<string, number>;
  /** Compute nodes whose FLOPs stay unknown (a shape still not static with these sizes): counted as 0. */
  unknownNodes: number;
}

export interface Placement {
  nodes: NodePlacement[];
  providers: ProviderSummary[];
  /** EPs that were asked for but could not start. */
  skipped: Array<{ name: string; reason: string }>;
  copies: CopyPlacement[];
  totalNodes: number;
  totalFlops: number;
  /** The shapes `totalFlops` and each EP's FLOP coverage were counted from. */
  flopShapes: FlopShapes;
}

export interface PlacementSource {
  partition: PartitionPlan;
  implementationOf: (node: Node) => string;
  copies: readonly CopyStep[];
  subplans: Iterable<{ owner: Node; attribute: string; source: PlacementSource }>;
}

/** A node's FLOPs, or undefined when its shapes are not static (counted 0, and as unknown). */
export type FlopsOf = (node: Node, graph: Graph) => number | undefined;

export function buildPlacement(
  root: PlacementSource,
  flopsOf: FlopsOf,
  describe: (epName: string) => string | undefined,
  shapes: Omit<FlopShapes, 'unknownNodes'> = { source: 'declared', dims: {} },
): Placement {
  let unknownNodes = 0;
  const nodes: NodePlacement[] = [];
  const copies: CopyPlacement[] = [];
  const devices = new Map<string, string>();
  const order: string[] = [];
  const countFlops = (node: Node, graph: Graph): number => {
    const f = flopsOf(node, graph);
    if (f === undefined) unknownNodes++;
    return f ?? 0;
  };
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
        flops: countFlops(node, graph),
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
  return { nodes, providers, skipped: root.partition.skipped, copies, totalNodes, totalFlops, flopShapes: { ...shapes, unknownNodes } };
}
