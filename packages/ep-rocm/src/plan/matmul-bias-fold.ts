/**
 * A Linear layer as torch exports it -- MatMul(x, W) → Add(·, b) with W a 2-D constant and b a 1-D
 * constant of the product's last-axis length -- becomes ONE MatMulBias step (native step_ops_blas.cc):
 * on cuBLAS the bias rides in cublasLt's epilogue, so BERT-base loses 60 elementwise steps (the Q, K,
 * V, attention-output and FFN-output biases of 12 layers). The product must be read only by the Add
 * and be no partition output.
 */
import type { Graph, Node } from '@switchyard/core';
import { constantOf, staticDims } from './graph-values.js';

export interface MatMulBiasFold {
  add: Node;
  bias: string;
  /** The Add's output: the step writes it. */
  output: string;
}

/** Keyed by the MatMul node. */
export function foldableMatMulBiases(graph: Graph, nodes: readonly Node[], outputNames: readonly string[]): Map<Node, MatMulBiasFold> {
  const readers = new Map<string, Node[]>();
  for (const n of nodes) for (const i of n.inputs) if (i) readers.set(i, [...(readers.get(i) ?? []), n]);
  const outputs = new Set(outputNames);
  const folds = new Map<Node, MatMulBiasFold>();
  for (const mm of nodes) {
    if (mm.opType !== 'MatMul' || mm.domain !== '' || mm.inputs.length !== 2) continue;
    const weight = constantOf(graph, mm.inputs[1]);
    const product = mm.outputs[0];
    const dims = staticDims(graph, product);
    if (!weight || weight.dims.length !== 2 || constantOf(graph, mm.inputs[0]) || !dims || outputs.has(product)) continue;
    const r = readers.get(product) ?? [];
    const add = r.length === 1 && r[0].opType === 'Add' && r[0].domain === '' && r[0].inputs.length === 2 ? r[0] : undefined;
    if (!add) continue;
    const bias = add.inputs[0] === product ? add.inputs[1] : add.inputs[0];
    const b = constantOf(graph, bias);
    if (!b || b.dims.length !== 1 || b.dims[0] !== dims[dims.length - 1] || b.type !== weight.type) continue;
    if (staticDims(graph, add.outputs[0])?.join() !== dims.join()) continue; // the Add must not broadcast the product
    folds.set(mm, { add, bias, output: add.outputs[0] });
  }
  return folds;
}
