/**
 * Test helpers for the optimizer tests (not shipped: `*.test.*` is excluded from the package).
 * A tiny evaluator for Add/Mul/Shape and a reference interpreter for flat graphs.
 */
import { Graph, type AttributeValue, type Node, type ValueInfo } from '../ir/graph.js';
import { Tensor } from '../tensor/tensor.js';
import { constantNodeValue } from './constant-folding.js';
import type { EvaluateNode } from './types.js';

export function f32(values: number[], dims: number[] = [values.length]): Tensor {
  return new Tensor('float32', Float32Array.from(values), dims);
}

export function i64(values: number[], dims: number[] = [values.length]): Tensor {
  return new Tensor('int64', BigInt64Array.from(values, BigInt), dims);
}

export function input(name: string, elemType: 'float32' | 'int64' = 'float32', shape?: Array<number | string>): ValueInfo {
  return { name, type: { kind: 'tensor', elemType, shape } };
}

export function newGraph(init: { inputs?: ValueInfo[]; outputs?: string[]; initializers?: Record<string, Tensor> } = {}): Graph {
  return new Graph({
    name: 'test',
    inputs: init.inputs ?? [],
    outputs: (init.outputs ?? []).map((name) => ({ name })),
    initializers: new Map(Object.entries(init.initializers ?? {})),
    opsetImports: new Map([['', 17]]),
  });
}

export function node(
  graph: Graph,
  opType: string,
  inputs: string[],
  outputs: string[],
  extra: { name?: string; attributes?: Record<string, AttributeValue>; domain?: string } = {},
): Node {
  return graph.addNode({
    opType,
    inputs,
    outputs,
    name: extra.name ?? outputs[0] ?? opType,
    domain: extra.domain,
    attributes: new Map(Object.entries(extra.attributes ?? {})),
  });
}

/** Element-wise op on same-shape tensors or a scalar/one-element right operand. */
function elementwise(a: Tensor, b: Tensor, f: (x: number, y: number) => number): Tensor {
  const [x, y] = [Array.from(a.data as ArrayLike<number | bigint>, Number), Array.from(b.data as ArrayLike<number | bigint>, Number)];
  if (y.length !== x.length && y.length !== 1) throw new Error(`shape mismatch ${a.dims} vs ${b.dims}`);
  const out = x.map((v, i) => f(v, y.length === 1 ? y[0] : y[i]));
  return a.type === 'int64' ? i64(out, [...a.dims]) : f32(out, [...a.dims]);
}

/** Counts evaluations by op; throws for ops it does not know, like a CPU EP without a kernel. */
export function tinyEvaluator(): EvaluateNode & { calls: string[] } {
  const calls: string[] = [];
  const evaluate = (node: Node, inputs: ReadonlyArray<Tensor | undefined>): Tensor[] => {
    calls.push(node.name);
    const [a, b] = inputs;
    switch (node.opType) {
      case 'Add':
        return [elementwise(a!, b!, (x, y) => x + y)];
      case 'Mul':
        return [elementwise(a!, b!, (x, y) => x * y)];
      case 'Shape':
        return [i64([...a!.dims])];
      case 'Identity':
      case 'Dropout': // inference mode, no mask requested
        return [a!];
      case 'Constant':
        return [constantNodeValue(node)!];
      default:
        throw new Error(`tinyEvaluator: no kernel for ${node.opType}`);
    }
  };
  return Object.assign(evaluate, { calls });
}

/** Runs a graph with `evaluate`, handling `If` itself (cond: first element > 0); returns its outputs by name. */
export async function interpret(
  graph: Graph,
  feeds: Record<string, Tensor>,
  evaluate: EvaluateNode,
  outer: ReadonlyMap<string, Tensor> = new Map(),
): Promise<Map<string, Tensor>> {
  const values = new Map<string, Tensor>([...outer, ...graph.initializers, ...Object.entries(feeds)]);
  for (const n of graph.nodes) {
    const ins = n.inputs.map((name) => {
      if (!name) return undefined;
      const v = values.get(name);
      if (!v) throw new Error(`interpret: '${name}' read by '${n.name}' is not defined yet`);
      return v;
    });
    let outs: Tensor[];
    if (n.opType === 'If') {
      const branch = n.attributes.get(Number((ins[0]!.data as Float32Array)[0]) > 0 ? 'then_branch' : 'else_branch');
      if (branch?.type !== 'graph') throw new Error('interpret: If without branch');
      const result = await interpret(branch.value, {}, evaluate, values);
      outs = branch.value.outputs.map((o) => result.get(o.name)!);
    } else {
      outs = await evaluate(n, ins, { graph, opset: 17 });
    }
    n.outputs.forEach((o, i) => o && values.set(o, outs[i]));
  }
  return new Map(graph.outputs.map((o) => [o.name, values.get(o.name)!]));
}

/**
 * Asserts every node reads only names defined before it (inputs, initializers, earlier outputs, outer
 * scope), in subgraphs too, and that every graph output is defined.
 */
export function assertTopological(graph: Graph, outer: ReadonlySet<string> = new Set()): void {
  const defined = new Set<string>([...outer, ...graph.inputs.map((v) => v.name), ...graph.initializers.keys()]);
  for (const n of graph.nodes) {
    for (const name of n.inputs) if (name && !defined.has(name)) throw new Error(`'${n.name}' reads '${name}' before it is defined`);
    for (const a of n.attributes.values()) if (a.type === 'graph') assertTopological(a.value, defined);
    for (const o of n.outputs) if (o) defined.add(o);
  }
  for (const o of graph.outputs) if (!defined.has(o.name)) throw new Error(`graph output '${o.name}' is not defined`);
}

export function values(t: Tensor | undefined): number[] {
  if (!t) throw new Error('no tensor');
  return Array.from(t.data as ArrayLike<number | bigint>, Number);
}
