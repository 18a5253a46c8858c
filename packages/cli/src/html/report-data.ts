/**
 * What the HTML report shows, as plain data: every node with its placement, reasons, attributes and
 * value types; the main graph's edges with copies marked; coverage, copies, memory plan, optimizer
 * summary and (with a profile) time per node.
 */
import { BYTES_PER_ELEMENT, nodeLabel, type AttributeValue, type DataType, type Graph, type InferenceSession, type Node, type SessionMemoryPlan, type ValueType } from '@switchyard/core';

export interface ValueRef {
  name: string;
  /** `float32[1, 3, 224, 224]`, or '' when unknown. */
  type: string;
}

export interface ReportNode {
  id: number;
  name: string;
  /** '' for the main graph, else the path of the subgraph holding it. */
  graph: string;
  op: string;
  domain: string;
  ep: string;
  impl: string;
  partition?: string;
  declined: Array<{ ep: string; kind: string; message: string }>;
  /** With partitioning 'cost': why it was moved to or kept on its EP. */
  reason?: string;
  flops: number;
  inputs: ValueRef[];
  outputs: ValueRef[];
  attributes: Array<[string, string]>;
  /** Milliseconds in the profiled run(s), when profiled. */
  ms?: number;
}

export interface ReportEdge {
  /** Node ids; graph inputs and outputs are `in:<name>` / `out:<name>`. */
  from: string;
  to: string;
  value: string;
  /** Set when the value is copied between devices on this edge. */
  copy?: string;
}

export interface ReportData {
  model: string;
  requested: string[];
  providers: Array<{ name: string; device: string; nodes: number; nodeCoverage: number; flopCoverage: number; description?: string }>;
  skipped: Array<{ name: string; reason: string }>;
  totalNodes: number;
  totalFlops: number;
  copies: Array<{ value: string; from: string; to: string; bytes?: number }>;
  /** Bytes copied per run, over copies whose size is known. */
  copyBytes: number;
  memory: { arenaBytes?: number; peakBytes?: number; naiveBytes?: number };
  /** session.memoryPlan (or memoryPlanFor the inputs given): per device weights, activations, per-run, workspace. */
  memoryPlan?: SessionMemoryPlan;
  optimizer: { level: string; nodesBefore: number; nodesAfter: number; passes: Array<{ name: string; count: number }> };
  inputs: ValueRef[];
  outputs: ValueRef[];
  nodes: ReportNode[];
  edges: ReportEdge[];
  profile?: { file: string; runs: number };
}

function typeText(t: ValueType | undefined): string {
  if (!t) return '';
  if (t.kind === 'tensor') return `${t.elemType}${t.shape ? `[${t.shape.map((d) => d ?? '?').join(', ')}]` : ''}`;
  if (t.kind === 'sequence' || t.kind === 'optional') return `${t.kind}<${typeText(t.elem)}>`;
  return t.kind;
}

function valueTypeOf(graph: Graph, name: string): { text: string; bytes?: number } {
  const init = graph.initializers.get(name);
  if (init) return { text: `${init.type}[${init.dims.join(', ')}] (constant)`, bytes: init.size * BYTES_PER_ELEMENT[init.type] };
  const info = graph.valueInfo.get(name) ?? graph.inputs.find((v) => v.name === name) ?? graph.outputs.find((v) => v.name === name);
  const t = info?.type;
  const text = typeText(t);
  if (t?.kind === 'tensor' && t.shape && t.shape.every((d) => typeof d === 'number')) {
    const n = (t.shape as number[]).reduce((a, b) => a * b, 1);
    return { text, bytes: n * BYTES_PER_ELEMENT[t.elemType as DataType] };
  }
  return { text };
}

function attributeText(a: AttributeValue): string {
  const list = (xs: readonly unknown[]) => `[${xs.slice(0, 16).map(String).join(', ')}${xs.length > 16 ? `, … ${xs.length} in all` : ''}]`;
  switch (a.type) {
    case 'int':
    case 'float':
    case 'string':
      return String(a.value);
    case 'ints':
    case 'floats':
    case 'strings':
      return list(a.value);
    case 'tensor':
      return `tensor ${a.value.type}[${a.value.dims.join(', ')}]`;
    case 'graph':
      return `graph '${a.value.name}' (${a.value.nodes.length} nodes)`;
    case 'graphs':
      return `${a.value.length} graphs`;
    default:
      return a.type;
  }
}

/** Graphs by placement path ('' main, `owner/attr` nested), to look nodes up by label. */
function graphsByPath(graph: Graph, path = '', out = new Map<string, Graph>()): Map<string, Graph> {
  out.set(path, graph);
  for (const node of graph.nodes) {
    for (const [attr, a] of node.attributes) {
      const subs = a.type === 'graph' ? [a.value] : a.type === 'graphs' ? a.value : [];
      for (const g of subs) graphsByPath(g, `${path ? path + '/' : ''}${node.name}/${attr}`, out);
    }
  }
  return out;
}

export function buildReportData(
  session: InferenceSession,
  model: string,
  requested: readonly string[],
  profile?: { file: string; runs: number; msByNode: ReadonlyMap<string, number> },
  memoryPlan: SessionMemoryPlan = session.memoryPlan,
): ReportData {
  const placement = session.placement;
  const graphs = graphsByPath(session.model.graph);
  const main = session.model.graph;
  const deviceOf = new Map(placement.providers.map((p) => [p.name, p.device]));
  const nodes: ReportNode[] = [];
  const producer = new Map<string, number>();
  const graphNodeOf = (path: string, label: string): Node | undefined => graphs.get(path)?.nodes.find((n) => nodeLabel(n) === label);
  placement.nodes.forEach((p, id) => {
    const g = graphs.get(p.graph) ?? main;
    const node = graphNodeOf(p.graph, p.name);
    const ref = (name: string): ValueRef => ({ name, type: name ? valueTypeOf(g, name).text : '' });
    nodes.push({
      id,
      name: p.name,
      graph: p.graph,
      op: p.opType,
      domain: p.domain,
      ep: p.ep,
      impl: p.implementation,
      partition: p.partition,
      declined: p.declined.map((d) => ({ ep: d.ep, kind: d.reason.kind, message: d.reason.message })),
      reason: p.reason,
      flops: p.flops,
      inputs: node ? node.inputs.map(ref) : [],
      outputs: node ? node.outputs.map(ref) : [],
      attributes: node ? [...node.attributes].map(([k, a]) => [k, attributeText(a)] as [string, string]) : [],
      ms: profile?.msByNode.get(p.name),
    });
    if (p.graph === '' && node) for (const o of node.outputs) if (o) producer.set(o, id);
  });
  const copied = new Set(placement.copies.map((c) => c.value));
  const edges: ReportEdge[] = [];
  const graphInputs = new Set(main.inputs.map((v) => v.name));
  for (const n of nodes) {
    if (n.graph !== '') continue;
    for (const input of n.inputs) {
      if (!input.name) continue;
      const from = producer.get(input.name);
      const source = from !== undefined ? String(from) : graphInputs.has(input.name) ? `in:${input.name}` : undefined;
      if (source === undefined) continue; // a constant
      const fromDevice = from !== undefined ? deviceOf.get(nodes[from].ep) : 'cpu';
      const toDevice = deviceOf.get(n.ep);
      const copy = copied.has(input.name) && fromDevice !== toDevice ? `${fromDevice} → ${toDevice}` : undefined;
      edges.push({ from: source, to: String(n.id), value: input.name, copy });
    }
  }
  for (const o of main.outputs) {
    const from = producer.get(o.name);
    if (from === undefined) continue;
    const fromDevice = deviceOf.get(nodes[from].ep);
    edges.push({ from: String(from), to: `out:${o.name}`, value: o.name, copy: copied.has(o.name) && fromDevice !== 'cpu' ? `${fromDevice} → cpu` : undefined });
  }
  const copies = placement.copies.map((c) => ({ value: c.value, from: c.from, to: c.to, bytes: valueTypeOf(main, c.value).bytes }));
  const opt = session.optimization.report;
  const mem = session.optimization.memory;
  return {
    model,
    requested: [...requested],
    providers: placement.providers.map((p) => ({ name: p.name, device: p.device, nodes: p.nodes, nodeCoverage: p.nodeCoverage, flopCoverage: p.flopCoverage, description: p.description })),
    skipped: placement.skipped,
    totalNodes: placement.totalNodes,
    totalFlops: placement.totalFlops,
    copies,
    copyBytes: copies.reduce((a, c) => a + (c.bytes ?? 0), 0),
    memory: { arenaBytes: mem.arenaBytes, peakBytes: mem.peakBytes, naiveBytes: mem.naiveBytes },
    memoryPlan,
    optimizer: { level: opt.level, nodesBefore: opt.nodesBefore, nodesAfter: opt.nodesAfter, passes: opt.passes.filter((p) => p.count).map((p) => ({ name: p.name, count: p.count })) },
    inputs: main.inputs.map((v) => ({ name: v.name, type: typeText(v.type) })),
    outputs: main.outputs.map((v) => ({ name: v.name, type: typeText(v.type) })),
    nodes,
    edges,
    profile: profile && { file: profile.file, runs: profile.runs },
  };
}
