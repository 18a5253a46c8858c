/** Cuts a fused unit out of its graph as a standalone graph, for an EP's `compile()`. */
import type { FusedPartition } from '../ep/execution-provider.js';
import { Graph, type ValueInfo } from '../ir/graph.js';
import { constantResolver, enclosingGraphs } from '../ir/constants.js';
import type { PartitionUnit } from './partition-graph.js';
import type { Tensor } from '../tensor/tensor.js';
import { unitInputs } from './copy-insertion.js';

function opsetChain(graph: Graph): Map<string, number> {
  const out = new Map<string, number>();
  for (let g: Graph | undefined = graph; g; g = g.parent) for (const [d, v] of g.opsetImports) if (!out.has(d)) out.set(d, v);
  return out;
}

/**
 * The fused unit as a graph of its own. Constants it reads become its initializers; everything else,
 * overridable initializers (graph inputs with a default) included, becomes an input.
 */
export function extractPartition(
  graph: Graph,
  unit: Extract<PartitionUnit, { kind: 'fused' }>,
  outputNames: string[],
  constantOf: (name: string) => Tensor | undefined = constantResolver(enclosingGraphs(graph)),
): FusedPartition {
  const reads = unitInputs(unit);
  const initializers = new Map<string, Tensor>();
  const inputs: ValueInfo[] = [];
  for (const name of reads) {
    const init = constantOf(name);
    if (init) initializers.set(name, init);
    else inputs.push({ name, type: graph.typeOf(name) });
  }
  const valueInfo = new Map<string, ValueInfo>();
  for (const n of unit.nodes) for (const o of n.outputs) if (o) valueInfo.set(o, { name: o, type: graph.typeOf(o) });
  const sub = new Graph({
    name: unit.name,
    nodes: unit.nodes,
    inputs,
    outputs: outputNames.map((name) => ({ name, type: graph.typeOf(name) })),
    initializers,
    valueInfo,
    opsetImports: opsetChain(graph),
  });
  return { name: unit.name, graph: sub, nodes: unit.nodes, inputNames: inputs.map((i) => i.name), outputNames };
}
