/**
 * The partitioner: a loop over EPs in the user's priority order (ONNX Runtime's graph_partitioner).
 * Each EP claims unassigned nodes, singly (a registered kernel) or as fused subgraphs (compiled).
 * Every node keeps the chain of reasons the EPs before its own declined it.
 */
import { SwitchyardError } from '../errors.js';
import { nodeInputsWithCaptures, nodeLabel, type Graph, type Node } from '../ir/graph.js';
import type { Capability, CapabilityResult, ExecutionProvider } from '../ep/execution-provider.js';
import type { DeclineReason, KernelDef } from '../registry/kernel-def.js';
import type { KernelLookup, KernelRegistry } from '../registry/kernel-registry.js';
import { checkFusable } from './fusable.js';

export interface DeclineRecord {
  ep: string;
  reason: DeclineReason;
}

/** One unit of execution: a node run by a kernel, or a fused group compiled by its EP. */
export type PartitionUnit =
  | { kind: 'single'; node: Node; ep: ExecutionProvider; def: KernelDef; schemaVersion: number }
  | { kind: 'fused'; name: string; nodes: Node[]; ep: ExecutionProvider };

export interface PartitionPlan {
  graph: Graph;
  /** Units in an order that respects every data dependency. */
  units: PartitionUnit[];
  /** The unit holding each node. */
  unitOf: Map<Node, PartitionUnit>;
  /** Why EPs earlier in the list declined each node. */
  declines: Map<Node, DeclineRecord[]>;
  /** EPs requested but unavailable, with reasons. */
  skipped: Array<{ name: string; reason: string }>;
  /** Why `partitioning: 'cost'` moved or kept each node it weighed (cost-placement.ts). */
  reasons?: Map<Node, string>;
}

/** The default `getCapability`: each unassigned node one of the EP's kernels serves. */
export function defaultCapability(graph: Graph, lookup: KernelLookup, assigned: ReadonlySet<Node>): CapabilityResult {
  const capabilities: Capability[] = [];
  const declined = new Map<Node, DeclineReason>();
  for (const node of graph.nodes) {
    if (assigned.has(node)) continue;
    const r = lookup(node, graph);
    if (r.ok) capabilities.push({ kind: 'single', nodes: [node] });
    else declined.set(node, r.reason);
  }
  return { capabilities, declined };
}

function addDecline(declines: Map<Node, DeclineRecord[]>, node: Node, ep: string, reason: DeclineReason): void {
  let list = declines.get(node);
  if (!list) declines.set(node, (list = []));
  if (!list.some((d) => d.ep === ep)) list.push({ ep, reason });
}

/** Orders units so that each comes after the producers of everything it reads. */
export function orderUnits(graph: Graph, unitOf: Map<Node, PartitionUnit>): PartitionUnit[] {
  const producers = graph.producers();
  const units = [...new Set(graph.nodes.map((n) => unitOf.get(n)!))];
  const deps = new Map<PartitionUnit, Set<PartitionUnit>>();
  for (const u of units) deps.set(u, new Set());
  for (const node of graph.nodes) {
    const u = unitOf.get(node)!;
    for (const input of nodeReads(node)) {
      const p = producers.get(input);
      if (p) {
        const pu = unitOf.get(p)!;
        if (pu !== u) deps.get(u)!.add(pu);
      }
    }
  }
  const order: PartitionUnit[] = [];
  const state = new Map<PartitionUnit, 'visiting' | 'done'>();
  const visit = (u: PartitionUnit): void => {
    const s = state.get(u);
    if (s === 'done') return;
    if (s === 'visiting') throw new SwitchyardError('INVALID_GRAPH', 'partitioning created a cycle between units');
    state.set(u, 'visiting');
    for (const d of deps.get(u)!) visit(d);
    state.set(u, 'done');
    order.push(u);
  };
  for (const u of units) visit(u);
  return order;
}

function nodeReads(node: Node): string[] {
  return nodeInputsWithCaptures(node).filter((n) => n !== '');
}

/**
 * Assigns every node of `graph` to the first EP in `providers` that takes it.
 * Throws NO_PROVIDER naming each unplaceable node and every EP's reason.
 */
export async function partitionGraph(
  graph: Graph,
  providers: readonly ExecutionProvider[],
  registry: KernelRegistry,
  skipped: Array<{ name: string; reason: string }> = [],
): Promise<PartitionPlan> {
  const unitOf = new Map<Node, PartitionUnit>();
  const declines = new Map<Node, DeclineRecord[]>();
  const assigned = new Set<Node>();
  // EPs that could not start still appear in every node's chain of reasons.
  for (const s of skipped) {
    for (const node of graph.nodes) addDecline(declines, node, s.name, { kind: 'ep-unavailable', message: s.reason });
  }
  let fusedCount = 0;
  for (const ep of providers) {
    const lookup = registry.lookupFor(ep.name);
    const result = ep.getCapability
      ? await ep.getCapability(graph, { lookup, assigned })
      : defaultCapability(graph, lookup, assigned);
    for (const cap of result.capabilities) {
      const fresh = cap.nodes.filter((n) => !assigned.has(n));
      if (fresh.length !== cap.nodes.length || fresh.length === 0) continue; // an EP cannot take assigned nodes
      if (cap.kind === 'single') {
        const node = fresh[0];
        const r = lookup(node, graph);
        if (!r.ok) {
          addDecline(declines, node, ep.name, r.reason);
          continue;
        }
        const unit: PartitionUnit = { kind: 'single', node, ep, def: r.def, schemaVersion: r.schemaVersion };
        unitOf.set(node, unit);
        assigned.add(node);
      } else {
        if (!ep.compile) {
          for (const n of fresh) addDecline(declines, n, ep.name, { kind: 'partition', message: `${ep.name} returned a fused capability but has no compile()` });
          continue;
        }
        const problem = checkFusable(graph, fresh, assigned);
        if (problem) {
          for (const n of fresh) addDecline(declines, n, ep.name, { kind: 'partition', message: problem });
          continue;
        }
        const unit: PartitionUnit = { kind: 'fused', name: cap.name ?? `${ep.name}_partition_${fusedCount++}`, nodes: fresh, ep };
        for (const n of fresh) {
          unitOf.set(n, unit);
          assigned.add(n);
        }
      }
    }
    for (const [node, reason] of result.declined) if (!assigned.has(node)) addDecline(declines, node, ep.name, reason);
    for (const node of graph.nodes) {
      if (!assigned.has(node) && !declines.get(node)?.some((d) => d.ep === ep.name)) {
        addDecline(declines, node, ep.name, { kind: 'other', message: `${ep.name} did not claim it` });
      }
    }
  }
  const unplaced = graph.nodes.filter((n) => !assigned.has(n));
  if (unplaced.length > 0) {
    const lines = unplaced.slice(0, 20).map((n) => {
      const why = (declines.get(n) ?? []).map((d) => `${d.ep}: ${d.reason.message}`).join('; ');
      return `  - ${nodeLabel(n)} (${n.domain ? n.domain + '::' : ''}${n.opType}): ${why || 'no execution provider'}`;
    });
    if (unplaced.length > 20) lines.push(`  … and ${unplaced.length - 20} more`);
    throw new SwitchyardError('NO_PROVIDER', `no execution provider can run ${unplaced.length} node(s):\n${lines.join('\n')}`);
  }
  return { graph, units: orderUnits(graph, unitOf), unitOf, declines, skipped };
}
