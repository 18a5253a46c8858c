/** Small builders for hand-made graphs in the shape-inference tests. */
import { toAttribute, type PlainAttribute } from '../testing/kernel-harness.js';
import { type Dim, Graph, type ValueType } from '../ir/graph.js';
import type { DataType } from '../tensor/data-type.js';
import { Tensor } from '../tensor/tensor.js';

export interface GraphSpec {
  opset?: number;
  /** name → [elemType, shape] (shape undefined = unknown rank). */
  inputs?: Record<string, [DataType, Dim[] | undefined]>;
  initializers?: Record<string, Tensor>;
  parent?: Graph;
}

export function makeGraph(spec: GraphSpec = {}): Graph {
  const g = new Graph({
    name: 'test',
    opsetImports: spec.parent ? new Map() : new Map([['', spec.opset ?? 17]]),
    parent: spec.parent,
  });
  for (const [name, [elemType, shape]] of Object.entries(spec.inputs ?? {})) {
    g.inputs.push({ name, type: shape ? { kind: 'tensor', elemType, shape } : { kind: 'tensor', elemType } });
  }
  for (const [name, t] of Object.entries(spec.initializers ?? {})) g.initializers.set(name, t);
  return g;
}

export function addNode(
  g: Graph,
  opType: string,
  inputs: string[],
  outputs: string[],
  attributes: Record<string, PlainAttribute> = {},
): void {
  g.addNode({
    opType,
    inputs,
    outputs,
    attributes: new Map(Object.entries(attributes).map(([k, v]) => [k, toAttribute(v)])),
  });
}

export function int64(values: number[], dims?: number[]): Tensor {
  return new Tensor('int64', values, dims ?? [values.length]);
}

/** The recorded type of `name`, for `toEqual` against `{kind: 'tensor', elemType, shape}`. */
export function typeOf(g: Graph, name: string): ValueType | undefined {
  return g.valueInfo.get(name)?.type;
}

/** The recorded shape of tensor `name`. */
export function shapeOf(g: Graph, name: string): Dim[] | undefined {
  const t = g.valueInfo.get(name)?.type;
  return t?.kind === 'tensor' ? t.shape : undefined;
}
