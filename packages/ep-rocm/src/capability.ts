/**
 * Which nodes the ROCm EP takes, and how they are grouped: every node the kernel table serves (op,
 * opset, dtypes through core's lookup; attribute/shape limits; a step op present in this native
 * build) joins a GPU region, and each maximal connected region that can be contracted without a
 * cycle becomes one fused capability, compiled into one native execution plan.
 */
import { SwitchyardError, defineKernel, inferShapes, nodeInputsWithCaptures, type CapabilityContext, type CapabilityResult, type DeclineReason, type Graph, type KernelDef, type Node } from '@switchyard/core';
import type { RocmKernelRow } from './kernel-table.js';
import { hostNode } from './plan/host-values.js';
import { graphWithBranch } from './plan/if-branches.js';
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
 * Groups accepted nodes into regions, in topological order. A node whose accepted producers lie in
 * several regions merges them all when that makes no cycle -- no path leaves the union through a
 * node outside it and comes back -- so side branches that meet the main one (BERT's attention-mask
 * bias joining every layer's scores) end in one partition, one native plan and one run; otherwise it
 * joins one of them where that makes no cycle; otherwise it starts a region. `reach` holds, per node,
 * the regions it depends on (ids resolved through `find`, since merged regions share one).
 */
export function groupRegions(graph: Graph, accepted: ReadonlySet<Node>): Node[][] {
  const producers = graph.producers();
  const order = new Map(graph.nodes.map((n, i) => [n, i]));
  const parent: number[] = [];
  const find = (r: number): number => {
    while (parent[r] !== r) {
      parent[r] = parent[parent[r]];
      r = parent[r];
    }
    return r;
  };
  const members: Node[][] = [];
  const regionOf = new Map<Node, number>();
  const reach = new Map<Node, Set<number>>();
  // An If reads the values its branches capture as much as its inputs: they join it to their producers' region.
  const predsOf = (node: Node) => [...new Set(nodeInputsWithCaptures(node).filter(Boolean).map((i) => producers.get(i)).filter((p): p is Node => p !== undefined))];
  const inside = (p: Node, set: ReadonlySet<number>) => regionOf.has(p) && set.has(find(regionOf.get(p)!));
  const dependsOn = (p: Node, set: ReadonlySet<number>) => [...(reach.get(p) ?? [])].some((r) => set.has(find(r)));
  // No pred of the union's nodes (or of `node`) outside the union depends on the union.
  const closed = (set: ReadonlySet<number>, node: Node) =>
    [node, ...[...set].flatMap((r) => members[r])].every((m) => predsOf(m).every((p) => inside(p, set) || !dependsOn(p, set)));

  for (const node of graph.nodes) {
    const preds = predsOf(node);
    const mine = new Set<number>();
    for (const p of preds) for (const r of reach.get(p) ?? []) mine.add(find(r));
    if (accepted.has(node)) {
      const candidates = [...new Set(preds.filter((p) => regionOf.has(p)).map((p) => find(regionOf.get(p)!)))];
      let region: number | undefined;
      if (candidates.length > 1 && closed(new Set(candidates), node)) {
        region = candidates[0];
        for (const r of candidates.slice(1)) {
          parent[r] = region;
          members[region].push(...members[r]);
          members[r] = [];
        }
      } else {
        region = candidates.find((r) => preds.every((p) => inside(p, new Set([r])) || !dependsOn(p, new Set([r]))));
      }
      if (region === undefined) {
        region = members.length;
        members.push([]);
        parent.push(region);
      }
      members[region].push(node);
      regionOf.set(node, region);
      mine.add(region);
    }
    reach.set(node, mine);
  }
  // Merged regions were appended to each other: restore the graph's (topological) order.
  return members.filter((m) => m.length > 0).map((m) => m.sort((a, b) => order.get(a)! - order.get(b)!));
}

/**
 * Why an If's branches cannot run on rocm, or undefined: each branch, inlined into a copy of the graph
 * with shapes inferred, must have every node accepted by the same lookup.
 */
function branchDecline(node: Node, graph: Graph, ctx: CapabilityContext): DeclineReason | undefined {
  for (const condition of [true, false]) {
    const inlined = graphWithBranch(graph, node, condition);
    inferShapes(inlined.graph);
    for (const n of inlined.nodes) {
      const r = ctx.lookup(n, inlined.graph);
      if (!r.ok) return { kind: r.reason.kind, message: `its ${condition ? 'then' : 'else'}_branch node ${n.opType} '${n.name}' cannot run on rocm: ${r.reason.message}` };
    }
  }
  return undefined;
}

export function rocmCapability(graph: Graph, ctx: CapabilityContext): CapabilityResult {
  const accepted = new Set<Node>();
  const declined = new Map<Node, DeclineReason>();
  for (const node of graph.nodes) {
    if (ctx.assigned.has(node)) continue;
    const r = ctx.lookup(node, graph);
    const branches = r.ok && node.opType === 'If' ? branchDecline(node, graph, ctx) : undefined;
    if (branches) declined.set(node, branches);
    else if (r.ok) accepted.add(node);
    else declined.set(node, r.reason);
  }
  // A region of shape arithmetic alone would be a plan without a GPU step: its nodes stay with the
  // next EP, which computes them where their readers are.
  const capabilities = [];
  for (const nodes of groupRegions(graph, accepted)) {
    if (nodes.every((n) => hostNode(graph, n))) {
      for (const n of nodes) declined.set(n, { kind: 'partition', message: 'shape arithmetic with no GPU work beside it is left to the next EP (rocm would only compute it on the host)' });
    } else capabilities.push({ kind: 'fused' as const, nodes });
  }
  return { capabilities, declined };
}
