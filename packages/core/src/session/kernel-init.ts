/** The `KernelInit` a kernel is built from: shared by plan building and constant folding. */
import type { ExecutionProvider } from '../ep/execution-provider.js';
import { AttributeReader } from '../ir/attributes.js';
import type { Graph, Node } from '../ir/graph.js';
import type { KernelInit } from '../registry/kernel-def.js';
import type { Tensor } from '../tensor/tensor.js';

export function kernelInitFor(node: Node, graph: Graph, ep: ExecutionProvider, constantInputs: Map<number, Tensor>, threads: number): KernelInit {
  return {
    node,
    graph,
    opset: graph.opsetFor(node.domain) ?? 1,
    attrs: new AttributeReader(node),
    inputTypes: node.inputs.map((n) => (n ? graph.typeOf(n) : undefined)),
    outputTypes: node.outputs.map((n) => (n ? graph.typeOf(n) : undefined)),
    constantInputs,
    options: (ep as { options?: unknown }).options ?? {},
    threads,
  };
}
