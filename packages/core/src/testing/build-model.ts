/** Builds small models in code, for tests of sessions, passes and EPs. */
import { Graph, type Model, type ValueInfo } from '../ir/graph.js';
import type { DataType } from '../tensor/data-type.js';
import type { Tensor } from '../tensor/tensor.js';
import { toAttribute, type PlainAttribute } from './kernel-harness.js';

export interface NodeSpec {
  op: string;
  inputs: string[];
  outputs: string[];
  name?: string;
  domain?: string;
  attributes?: Record<string, PlainAttribute>;
}

export interface ModelSpec {
  inputs: Array<[name: string, type: DataType, shape: Array<number | string>]>;
  outputs: Array<[name: string, type: DataType, shape?: Array<number | string>]>;
  nodes: NodeSpec[];
  initializers?: Record<string, Tensor>;
  opset?: number;
}

export function buildModel(spec: ModelSpec): Model {
  const opset = spec.opset ?? 17;
  const info = ([name, type, shape]: [string, DataType, Array<number | string>?]): ValueInfo => ({
    name,
    type: { kind: 'tensor', elemType: type, shape },
  });
  const graph = new Graph({
    name: 'test',
    inputs: spec.inputs.map(info),
    outputs: spec.outputs.map(info),
    initializers: new Map(Object.entries(spec.initializers ?? {})),
    opsetImports: new Map([['', opset]]),
  });
  for (const n of spec.nodes) {
    graph.addNode({
      opType: n.op,
      domain: n.domain ?? '',
      name: n.name,
      inputs: n.inputs,
      outputs: n.outputs,
      attributes: new Map(Object.entries(n.attributes ?? {}).map(([k, v]) => [k, toAttribute(v)] as const)),
    });
  }
  return {
    irVersion: 8,
    opsetImports: graph.opsetImports,
    producerName: 'switchyard-test',
    producerVersion: '',
    domain: '',
    modelVersion: 1,
    docString: '',
    metadata: new Map(),
    graph,
    functionNames: [],
  };
}
