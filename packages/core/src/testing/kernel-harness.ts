/**
 * Runs one kernel on one node outside a session: for kernel unit tests in EP packages.
 * Inputs are given by position; attributes as plain values.
 */
import { AttributeReader } from '../ir/attributes.js';
import { Graph, type AttributeValue, type Node } from '../ir/graph.js';
import type { KernelDef, KernelRunContext, RuntimeValue } from '../registry/kernel-def.js';
import { Tensor } from '../tensor/tensor.js';
import { SwitchyardError } from '../errors.js';

export type PlainAttribute = number | string | number[] | string[] | Tensor | { float: number } | { floats: number[] };

/** Converts plain JS attribute values: integers → int, `{float: x}` → float, arrays of integers → ints. */
export function toAttribute(value: PlainAttribute): AttributeValue {
  if (value instanceof Tensor) return { type: 'tensor', value };
  if (typeof value === 'number') return Number.isInteger(value) ? { type: 'int', value } : { type: 'float', value };
  if (typeof value === 'string') return { type: 'string', value, bytes: new TextEncoder().encode(value) };
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string')) return { type: 'strings', value: value as string[] };
    const nums = value as number[];
    return nums.every(Number.isInteger) ? { type: 'ints', value: nums } : { type: 'floats', value: nums };
  }
  if ('float' in value) return { type: 'float', value: value.float };
  return { type: 'floats', value: value.floats };
}

export interface RunKernelOptions {
  attributes?: Record<string, PlainAttribute>;
  opset?: number;
  /** Number of outputs the node declares (default 1). */
  outputs?: number;
  domain?: string;
  threads?: number;
}

/** Builds a one-node graph, creates the kernel from `def`, runs it, and returns its outputs. */
export async function runKernel(def: KernelDef, inputs: Array<RuntimeValue | undefined>, opts: RunKernelOptions = {}): Promise<RuntimeValue[]> {
  const opset = opts.opset ?? 17;
  const domain = opts.domain ?? def.domain;
  const graph = new Graph({ name: 'harness', opsetImports: new Map([[domain, opset]]) });
  const inputNames = inputs.map((v, i) => (v === undefined ? '' : `in${i}`));
  const outputNames = Array.from({ length: opts.outputs ?? 1 }, (_, i) => `out${i}`);
  const attributes = new Map(Object.entries(opts.attributes ?? {}).map(([k, v]) => [k, toAttribute(v)] as const));
  const node: Node = graph.addNode({ opType: def.opType, domain, inputs: inputNames, outputs: outputNames, attributes });
  for (let i = 0; i < inputs.length; i++) {
    const v = inputs[i];
    if (v instanceof Tensor) graph.valueInfo.set(inputNames[i], { name: inputNames[i], type: { kind: 'tensor', elemType: v.type, shape: [...v.dims] } });
  }
  const kernel = def.create({
    node,
    graph,
    opset,
    attrs: new AttributeReader(node),
    inputTypes: inputNames.map((n) => (n ? graph.typeOf(n) : undefined)),
    outputTypes: outputNames.map(() => undefined),
    constantInputs: new Map(),
    options: {},
    threads: opts.threads ?? 1,
  });
  const ctx: KernelRunContext = {
    node,
    inputs,
    input(i) {
      const v = inputs[i];
      if (!(v instanceof Tensor)) throw new SwitchyardError('RUNTIME', `${node.opType}: input ${i} is missing or not a tensor`);
      return v;
    },
    optionalInput(i) {
      const v = inputs[i];
      return v instanceof Tensor ? v : undefined;
    },
    sequenceInput(i) {
      const v = inputs[i];
      if (!Array.isArray(v)) throw new SwitchyardError('RUNTIME', `${node.opType}: input ${i} is not a sequence`);
      return v;
    },
    output(_i, type, dims) {
      return Tensor.zeros(type, dims);
    },
    runSubgraph() {
      return Promise.reject(new SwitchyardError('UNSUPPORTED', 'runKernel harness cannot run subgraphs; use an InferenceSession'));
    },
    threads: opts.threads ?? 1,
  };
  try {
    return await kernel.run(ctx);
  } finally {
    kernel.dispose?.();
  }
}
