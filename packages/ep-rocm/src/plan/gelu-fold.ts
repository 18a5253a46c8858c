/**
 * torch's exported GELU (erf form) -- Div(x, √2) → Erf → Add(1) → Mul(x, ·) → Mul(0.5) -- and the bias
 * Add before it (a MatMul's bias: Add(x, B) with B a constant of x's last-axis length) become ONE
 * BiasActivation step (native step_ops_epilogue.cc): one pass over BERT's FFN activation instead of six.
 * Measured on the H200 (BERT b32 fp16) the six kernels took ~2.5 ms of 10 ms of GPU time.
 * Every folded intermediate must be read only by the next node of the chain and be no partition output.
 */
import type { Graph, Node } from '@switchyard/core';
import { UNARY_OPS } from '@switchyard/native-hip';
import { constantOf, staticDims } from './graph-values.js';

/** kernels::UnaryOp::kGeluErf (native-hip's numbering, from launch.h). */
export const GELU_ERF = UNARY_OPS.GeluErf;

export interface GeluFold {
  /** The chain's first node (the bias Add when there is one, else the Div): the step goes at the last. */
  nodes: Node[];
  input: string;
  bias?: string;
  output: string;
}

function scalar(graph: Graph, name: string): number | undefined {
  const t = constantOf(graph, name);
  if (!t || t.location !== 'cpu' || t.size !== 1 || (t.type !== 'float32' && t.type !== 'float64')) return undefined;
  return Number((t.data as ArrayLike<number>)[0]);
}

const near = (v: number | undefined, want: number) => v !== undefined && Math.abs(v - want) <= 1e-4 * Math.abs(want);

/** The other operand of a binary node whose one operand is `known`, or undefined. */
function otherOperand(n: Node, known: string): string | undefined {
  if (n.inputs.length !== 2) return undefined;
  if (n.inputs[0] === known) return n.inputs[1];
  if (n.inputs[1] === known) return n.inputs[0];
  return undefined;
}

/** GELU chains keyed by their last node (the final Mul). */
export function foldableGelus(graph: Graph, nodes: readonly Node[], outputNames: readonly string[]): Map<Node, GeluFold> {
  const readers = new Map<string, Node[]>();
  for (const n of nodes) for (const i of n.inputs) if (i) readers.set(i, [...(readers.get(i) ?? []), n]);
  const outputs = new Set(outputNames);
  /** The single reader of `value` when it has exactly one and is not a partition output. */
  const onlyReader = (value: string, op: string): Node | undefined => {
    const r = readers.get(value);
    return r && r.length === 1 && r[0].opType === op && r[0].domain === '' && !outputs.has(value) ? r[0] : undefined;
  };
  const folds = new Map<Node, GeluFold>();
  for (const div of nodes) {
    if (div.opType !== 'Div' || div.domain !== '' || div.inputs.length !== 2 || !near(scalar(graph, div.inputs[1]), Math.SQRT2)) continue;
    const x = div.inputs[0];
    const erf = onlyReader(div.outputs[0], 'Erf');
    const add = erf && onlyReader(erf.outputs[0], 'Add');
    if (!erf || !add || !near(scalar(graph, otherOperand(add, erf.outputs[0]) ?? ''), 1)) continue;
    const mul = onlyReader(add.outputs[0], 'Mul');
    if (!mul || otherOperand(mul, add.outputs[0]) !== x) continue;
    const half = onlyReader(mul.outputs[0], 'Mul');
    if (!half || !near(scalar(graph, otherOperand(half, mul.outputs[0]) ?? ''), 0.5)) continue;
    // x is read by the Div and the first Mul only: then a bias Add producing x folds in too.
    const chain = [div, erf, add, mul, half];
    const fold: GeluFold = { nodes: chain, input: x, output: half.outputs[0] };
    const producer = nodes.find((n) => n.outputs.includes(x));
    const xReaders = readers.get(x) ?? [];
    if (producer?.opType === 'Add' && producer.domain === '' && xReaders.length === 2 && !outputs.has(x)) {
      const [a, b] = producer.inputs;
      const dims = staticDims(graph, x);
      const last = dims?.[dims.length - 1];
      for (const [value, bias] of [[a, b], [b, a]]) {
        const t = bias ? constantOf(graph, bias) : undefined;
        const same = value ? staticDims(graph, value) : undefined;
        if (t && t.dims.length === 1 && t.dims[0] === last && value && !constantOf(graph, value) && same?.join() === dims?.join()) {
          fold.nodes = [producer, ...chain];
          fold.input = value;
          fold.bias = bias;
          break;
        }
      }
    }
    folds.set(half, fold);
  }
  return folds;
}
