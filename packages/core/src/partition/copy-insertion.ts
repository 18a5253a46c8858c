/**
 * Copy insertion: after partitioning, values that cross between devices get copy steps, and only
 * those. Graph inputs, initializers and outer-scope values start on the host ('cpu').
 */
import type { ExecutionProvider } from '../ep/execution-provider.js';
import type { Graph, Node } from '../ir/graph.js';
import { nodeInputsWithCaptures } from '../ir/graph.js';
import type { PartitionUnit } from './partition-graph.js';

export const HOST = 'cpu';

export function deviceOf(ep: ExecutionProvider): string {
  return ep.device ?? HOST;
}

export interface CopyStep {
  kind: 'copy';
  /** The value copied. */
  source: string;
  /** Name of the copy (the value's name on the target device). */
  target: string;
  from: string;
  to: string;
  /** The EP whose device is involved (it does the transfer). */
  ep: ExecutionProvider;
}

export interface UnitStep {
  kind: 'unit';
  unit: PartitionUnit;
  /** Original value name → the name it has on this unit's device (itself unless copied). */
  rename: Map<string, string>;
  /** Values the unit reads from outside, as named on its device. */
  inputs: string[];
  /** Values the unit makes that are read outside it. */
  outputs: string[];
}

export type PlannedStep = UnitStep | CopyStep;

/** Values a unit reads from outside itself, in first-use order. */
export function unitInputs(unit: PartitionUnit): string[] {
  const nodes = unit.kind === 'single' ? [unit.node] : unit.nodes;
  const produced = new Set(nodes.flatMap((n) => n.outputs));
  const reads: string[] = [];
  for (const n of nodes) for (const i of nodeInputsWithCaptures(n)) if (i && !produced.has(i) && !reads.includes(i)) reads.push(i);
  return reads;
}

/** Values a unit produces that something outside it (or the graph's outputs) reads. */
export function unitOutputs(unit: PartitionUnit, graph: Graph, consumersOutside: (name: string, unit: PartitionUnit) => boolean): string[] {
  if (unit.kind === 'single') return unit.node.outputs.filter((o) => o !== '');
  const graphOutputs = new Set(graph.outputs.map((o) => o.name));
  return unit.nodes.flatMap((n) => n.outputs).filter((o) => o && (graphOutputs.has(o) || consumersOutside(o, unit)));
}

/**
 * Lays out the steps: units in order, with a copy before a unit for each input that lives on another
 * device, and copies to the host for graph outputs left on a device (unless `keepOnDevice` says so).
 * Each (value, device) pair is copied at most once. Device-to-device moves go through the host.
 */
export function insertCopies(
  graph: Graph,
  units: readonly PartitionUnit[],
  options: { keepOnDevice?: (output: string) => boolean } = {},
): { steps: PlannedStep[]; copies: CopyStep[]; locationOf: Map<string, string>; hostNameOf: (output: string) => string } {
  const unitByNode = new Map<Node, PartitionUnit>();
  for (const u of units) for (const n of u.kind === 'single' ? [u.node] : u.nodes) unitByNode.set(n, u);
  const consumers = graph.consumers();
  const consumersOutside = (name: string, unit: PartitionUnit): boolean =>
    (consumers.get(name) ?? []).some((c) => unitByNode.get(c) !== unit);

  const location = new Map<string, string>(); // value → device it is produced on
  const copiesOf = new Map<string, Map<string, string>>(); // value → device → name there
  const epForDevice = new Map<string, ExecutionProvider>();
  for (const u of units) epForDevice.set(deviceOf(u.ep), u.ep);
  const steps: PlannedStep[] = [];
  const copies: CopyStep[] = [];

  const where = (v: string): string => location.get(v) ?? HOST;
  const nameOn = (v: string, device: string): string => {
    if (where(v) === device) return v;
    const existing = copiesOf.get(v)?.get(device);
    if (existing) return existing;
    // Device → other device goes through the host.
    let source = v;
    let from = where(v);
    if (from !== HOST && device !== HOST) {
      source = nameOn(v, HOST);
      from = HOST;
    }
    const target = `${v}@${device}`;
    const ep = epForDevice.get(from === HOST ? device : from)!;
    const step: CopyStep = { kind: 'copy', source, target, from, to: device, ep };
    steps.push(step);
    copies.push(step);
    let m = copiesOf.get(v);
    if (!m) copiesOf.set(v, (m = new Map()));
    m.set(device, target);
    return target;
  };

  for (const unit of units) {
    const device = deviceOf(unit.ep);
    const rename = new Map<string, string>();
    for (const v of unitInputs(unit)) rename.set(v, nameOn(v, device));
    const inputs = [...rename.values()];
    const outputs = unitOutputs(unit, graph, consumersOutside);
    const nodes = unit.kind === 'single' ? [unit.node] : unit.nodes;
    for (const n of nodes) for (const o of n.outputs) if (o) location.set(o, device);
    steps.push({ kind: 'unit', unit, rename, inputs, outputs });
  }
  for (const out of graph.outputs) {
    if (where(out.name) !== HOST && !options.keepOnDevice?.(out.name)) nameOn(out.name, HOST);
  }
  const hostNameOf = (output: string): string => (where(output) === HOST ? output : copiesOf.get(output)?.get(HOST) ?? output);
  return { steps, copies, locationOf: location, hostNameOf };
}
