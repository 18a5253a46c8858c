/**
 * `partitioning: 'cost'`: a pass after the first-capable partitioner that undoes round trips not worth
 * making. Each island of single-node units on one device (nodes joined by values that stay on it) is
 * weighed against running it on the host EP that comes next: the copies it causes (bytes over the EP's
 * link bandwidth, plus a fixed latency per copy) against the arithmetic the device saves (its FLOPs at
 * the host's throughput minus at the device's). When the copies cost more, the island moves to the
 * host, so a cheap device island between host nodes, or cheap device nodes beside host ones, no
 * longer ping-pong. Only moves towards the host are possible: a node sits on the host because every
 * device EP before it declined it. Fused (compiled) units are left as their EP made them. Every
 * node weighed gets a reason, moved or kept, for the placement.
 */
import type { ExecutionProvider } from '../ep/execution-provider.js';
import { nodeInputsWithCaptures, type Graph, type Node } from '../ir/graph.js';
import type { KernelRegistry } from '../registry/kernel-registry.js';
import { BYTES_PER_ELEMENT } from '../tensor/data-type.js';
import { deviceOf, HOST } from './copy-insertion.js';
import { copySeconds, flopsPerSecondOf, formatBytes, formatFlops, formatSeconds } from './cost-model.js';
import { orderUnits, type PartitionPlan, type PartitionUnit } from './partition-graph.js';

export interface CostPlacementOptions {
  providers: readonly ExecutionProvider[];
  registry: KernelRegistry;
  flopsOf: (node: Node, graph: Graph) => number;
}

interface Copies {
  bytes: number;
  count: number;
  seconds: number;
}

/** Returns the plan with islands moved to the host where that costs less; `reasons` says why for every node weighed. */
export function placeByCost(plan: PartitionPlan, options: CostPlacementOptions): PartitionPlan {
  const graph = plan.graph;
  const unitOf = new Map(plan.unitOf);
  const hostEps = options.providers.filter((ep) => deviceOf(ep) === HOST);
  const reasons = new Map<Node, string>(plan.reasons ?? []);
  const declines = new Map(plan.declines);
  if (hostEps.length === 0) return plan;

  const producers = graph.producers();
  const consumers = graph.consumers();
  const graphOutputs = new Set(graph.outputs.map((o) => o.name));
  const epOfDevice = new Map<string, ExecutionProvider>();
  for (const u of unitOf.values()) if (deviceOf(u.ep) !== HOST && !epOfDevice.has(deviceOf(u.ep))) epOfDevice.set(deviceOf(u.ep), u.ep);
  const where = (n: Node, moved: ReadonlySet<Node>): string => (moved.has(n) ? HOST : deviceOf(unitOf.get(n)!.ep));

  const bytesOf = (v: string): number | undefined => {
    const t = graph.typeOf(v);
    if (t?.kind !== 'tensor' || !t.shape || t.elemType === 'string' || !t.shape.every((d) => typeof d === 'number')) return undefined;
    return (t.shape as number[]).reduce((a, b) => a * b, 1) * BYTES_PER_ELEMENT[t.elemType];
  };
  const isWeight = (v: string): boolean => !producers.has(v) && graph.initializers.has(v) && !graph.inputs.some((i) => i.name === v);

  /** The copies value `v` needs when the nodes in `moved` run on the host (device ↔ device goes through the host). */
  const copiesOf = (v: string, moved: ReadonlySet<Node>): Copies => {
    const producer = producers.get(v);
    const from = producer ? where(producer, moved) : HOST;
    const targets = new Set<string>();
    for (const c of consumers.get(v) ?? []) targets.add(where(c, moved));
    if (graphOutputs.has(v)) targets.add(HOST);
    targets.delete(from);
    const links = new Set<string>();
    for (const to of targets) {
      if (from !== HOST && to !== HOST) {
        links.add(`${from}>${HOST}`);
        links.add(`${HOST}>${to}`);
      } else links.add(`${from}>${to}`);
    }
    const bytes = bytesOf(v) ?? 0;
    let seconds = 0;
    for (const link of links) {
      const device = link.split('>').find((d) => d !== HOST)!;
      seconds += copySeconds(bytes, 1, epOfDevice.get(device)!);
    }
    return { bytes: bytes * links.size, count: links.size, seconds };
  };

  const moved = new Set<Node>();
  const hostUnits = new Map<Node, PartitionUnit>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const island of islandsOf(graph, unitOf, moved, producers)) {
      const device = deviceOf(unitOf.get(island[0])!.ep);
      const devEp = unitOf.get(island[0])!.ep;
      const count = `${island.length === 1 ? 'this node' : `these ${island.length} nodes`}`;
      // The host EP that would run each node: the first host EP in priority order with a kernel for it.
      const onHost = new Map<Node, PartitionUnit>();
      let blocker: string | undefined;
      for (const n of island) {
        for (const ep of hostEps) {
          const r = options.registry.lookupFor(ep.name)(n, graph);
          if (r.ok) {
            onHost.set(n, { kind: 'single', node: n, ep, def: r.def, schemaVersion: r.schemaVersion });
            break;
          }
        }
        if (!onHost.has(n)) {
          blocker = `no host EP can run '${n.name}' (${n.opType})`;
          break;
        }
      }
      const hostEp = blocker ? hostEps[0] : onHost.get(island[0])!.ep;
      if (blocker) {
        for (const n of island) reasons.set(n, `kept on ${device}: ${blocker}`);
        continue;
      }
      const touched = new Set<string>();
      for (const n of island) {
        for (const v of nodeInputsWithCaptures(n)) if (v && !isWeight(v)) touched.add(v);
        for (const v of n.outputs) if (v) touched.add(v);
      }
      const unknown = [...touched].find((v) => bytesOf(v) === undefined && (consumers.get(v)?.length || graphOutputs.has(v)));
      if (unknown) {
        for (const n of island) reasons.set(n, `kept on ${device}: the size of '${unknown}' is not known before a run, so its copies cannot be weighed`);
        continue;
      }
      const withIsland = new Set([...moved, ...island]);
      const before = sum([...touched].map((v) => copiesOf(v, moved)));
      const after = sum([...touched].map((v) => copiesOf(v, withIsland)));
      const flops = island.reduce((a, n) => a + options.flopsOf(n, graph), 0);
      const onDevice = island.reduce((a, n) => a + options.flopsOf(n, graph) / flopsPerSecondOf(unitOf.get(n)!.ep), 0);
      const atHost = island.reduce((a, n) => a + options.flopsOf(n, graph) / flopsPerSecondOf(onHost.get(n)!.ep), 0);
      const copySaved = before.seconds - after.seconds;
      const computeAdded = atHost - onDevice;
      const copyText = `${before.count} cop${before.count === 1 ? 'y' : 'ies'} of ${formatBytes(before.bytes)} (${formatSeconds(before.seconds)}) vs ${after.count} of ${formatBytes(after.bytes)} on ${hostEp.name}`;
      if (copySaved > computeAdded) {
        const reason = `moved from ${devEp.name} to ${hostEp.name}: on ${device} ${count} would need ${copyText}, for ${formatFlops(flops)} (${formatSeconds(computeAdded)} more on ${hostEp.name})`;
        for (const n of island) {
          moved.add(n);
          hostUnits.set(n, onHost.get(n)!);
          reasons.set(n, reason);
          const list = [...(declines.get(n) ?? []).filter((d) => d.ep !== devEp.name), { ep: devEp.name, reason: { kind: 'cost' as const, message: reason } }];
          declines.set(n, list);
        }
        changed = true;
      } else {
        const reason = `kept on ${device}: moving ${count} to ${hostEp.name} would save ${formatSeconds(Math.max(0, copySaved))} of copies (${copyText}) but add ${formatSeconds(computeAdded)} of compute (${formatFlops(flops)})`;
        for (const n of island) reasons.set(n, reason);
      }
    }
  }
  if (moved.size === 0) return { ...plan, reasons };
  for (const [n, u] of hostUnits) unitOf.set(n, u);
  return { ...plan, units: orderUnits(graph, unitOf), unitOf, declines, reasons };
}

function sum(list: Copies[]): Copies {
  return list.reduce((a, c) => ({ bytes: a.bytes + c.bytes, count: a.count + c.count, seconds: a.seconds + c.seconds }), { bytes: 0, count: 0, seconds: 0 });
}

/**
 * Groups of single-node units on one non-host device joined by values that stay on it, in graph
 * order, leaving out nodes already moved. Nodes of fused units are never part of an island.
 */
function islandsOf(graph: Graph, unitOf: ReadonlyMap<Node, PartitionUnit>, moved: ReadonlySet<Node>, producers: ReadonlyMap<string, Node>): Node[][] {
  const parent = new Map<Node, Node>();
  const find = (n: Node): Node => {
    let r = n;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(n, r);
    return r;
  };
  const candidate = (n: Node): boolean => {
    const u = unitOf.get(n)!;
    return u.kind === 'single' && deviceOf(u.ep) !== HOST && !moved.has(n);
  };
  for (const n of graph.nodes) if (candidate(n)) parent.set(n, n);
  for (const n of graph.nodes) {
    if (!candidate(n)) continue;
    for (const v of nodeInputsWithCaptures(n)) {
      const p = v ? producers.get(v) : undefined;
      if (p && candidate(p) && deviceOf(unitOf.get(p)!.ep) === deviceOf(unitOf.get(n)!.ep)) parent.set(find(p), find(n));
    }
  }
  const groups = new Map<Node, Node[]>();
  for (const n of graph.nodes) {
    if (!candidate(n)) continue;
    const root = find(n);
    let g = groups.get(root);
    if (!g) groups.set(root, (g = []));
    g.push(n);
  }
  return [...groups.values()];
}
