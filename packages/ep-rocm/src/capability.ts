/**
 * Which nodes the ROCm EP takes, and how they are grouped: every node the kernel table serves (op,
 * opset, dtypes through core's lookup; attribute/shape limits; a step op present in this native
 * build) joins a GPU region, and each maximal connected region that can be contracted without a
 * cycle becomes one fused capability, compiled into one native execution plan.
 */
import { SwitchyardError, defineKernel, type CapabilityContext, type CapabilityResult, type DeclineReason, type Graph, type KernelDef, type Node } from '@switchyard/core';
import type { RocmKernelRow } from './kernel-table.js';
import { commonLimits } from './plan/op-limits.js';

/**
 * Kernel definitions for the table's rows. `availableSteps` is what the native build can run
 * (undefined: do not check, e.g. for tests of the table alone); `create` refuses, since these nodes
 * only ever run inside a compiled partition.
 */
export function rocmKernelDefs(table: readonly RocmKernelRow[], availableSteps?: ReadonlySet<string>): KernelDef[] {
  return table.map((row) =>
    defineKernel({
      ep: 'rocm',
      domain: row.domain,
      opType: row.opType,
      sinceVersion: row.sinceVersion,
      endVersion: row.endVersion,
      typeConstraints: row.types,
      supports(node: Node, graph: Graph) {
        const missing = availableSteps ? row.steps.filter((s) => !availableSteps.has(s)) : [];
        if (missing.length > 0) return `this build of @switchyard/native-hip has no GPU kernel for step ${missing.join(', ')} (kernel sources not compiled in)`;
        const common = commonLimits(node, graph);
        if (common !== true) return common;
        return row.limits ? row.limits(node, graph) : true;
      },
      create() {
        throw new SwitchyardError('EP_FAILED', `rocm runs ${row.opType} only inside a fused GPU partition`);
      },
      implementation: 'hip',
    }),
  );
}

/**
 * Groups accepted nodes into regions, in topological order: a node joins the region of one of its
 * accepted producers when no path from that region reaches it through a node outside the region
 * (joining would then make a cycle); otherwise it starts a region. `reach` holds, per value, the
 * regions it depends on.
 */
export function groupRegions(graph: Graph, accepted: ReadonlySet<Node>): Node[][] {
  const producers = graph.producers();
  const regionOf = new Map<Node, number>();
  const reach = new Map<Node, Set<number>>();
  const regions: Node[][] = [];
  for (const node of graph.nodes) {
    const preds = [...new Set(node.inputs.filter(Boolean).map((i) => producers.get(i)).filter((p): p is Node => p !== undefined))];
    const mine = new Set<number>();
    for (const p of preds) for (const r of reach.get(p) ?? []) mine.add(r);
    if (accepted.has(node)) {
      const candidates = [...new Set(preds.filter((p) => regionOf.has(p)).map((p) => regionOf.get(p)!))];
      // A region R is joinable when no producer outside R depends on R.
      const joinable = candidates.find((r) => preds.every((p) => regionOf.get(p) === r || !(reach.get(p) ?? new Set()).has(r)));
      let region = joinable;
      if (region === undefined) {
        region = regions.length;
        regions.push([]);
      }
      regions[region].push(node);
      regionOf.set(node, region);
      mine.add(region);
    }
    reach.set(node, mine);
  }
  return regions;
}

export function rocmCapability(graph: Graph, ctx: CapabilityContext): CapabilityResult {
  const accepted = new Set<Node>();
  const declined = new Map<Node, DeclineReason>();
  for (const node of graph.nodes) {
    if (ctx.assigned.has(node)) continue;
    const r = ctx.lookup(node, graph);
    if (r.ok) accepted.add(node);
    else declined.set(node, r.reason);
  }
  const capabilities = groupRegions(graph, accepted).map((nodes) => ({ kind: 'fused' as const, nodes }));
  return { capabilities, declined };
}
