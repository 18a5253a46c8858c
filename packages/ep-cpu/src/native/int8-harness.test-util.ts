/**
 * The int8 tests' harness: runs one kernel def on tensors (some of them constant initializers, as the
 * native kernels pack those at creation) and seeded integer / float data. Not exported.
 */
import { AttributeReader, Graph, SwitchyardError, Tensor, type AttributeValue, type DataType, type KernelDef, type KernelRunContext, type Node } from '@switchyard/core';

export type Attr = number | number[] | string;

function toAttribute(v: Attr): AttributeValue {
  if (typeof v === 'string') return { type: 'string', value: v, bytes: new TextEncoder().encode(v) };
  if (Array.isArray(v)) return { type: 'ints', value: v };
  return { type: 'int', value: v };
}

export interface HarnessOptions {
  opset?: number;
  domain?: string;
  attributes?: Record<string, Attr>;
  /** Input indices that are constant initializers (known at creation). */
  constants?: readonly number[];
  outputs?: number;
  threads?: number;
  /** Runs the built kernel this many times (a primitive cache hit after the first). Default 1. */
  runs?: number;
}

/** Runs `def` on `inputs` (undefined = omitted optional input); returns the last run's outputs and the kernel's implementation. */
export async function runDef(def: KernelDef, inputs: Array<Tensor | undefined>, opts: HarnessOptions = {}): Promise<{ outputs: Tensor[]; implementation: string | undefined }> {
  const domain = opts.domain ?? def.domain;
  const graph = new Graph({ name: 'int8-harness', opsetImports: new Map([[domain, opts.opset ?? 17]]) });
  const names = inputs.map((v, i) => (v === undefined ? '' : `in${i}`));
  const outputNames = Array.from({ length: opts.outputs ?? 1 }, (_, i) => `out${i}`);
  const attributes = new Map(Object.entries(opts.attributes ?? {}).map(([k, v]) => [k, toAttribute(v)] as const));
  const node: Node = graph.addNode({ opType: def.opType, domain, inputs: names, outputs: outputNames, attributes });
  const constants = new Map<number, Tensor>();
  inputs.forEach((v, i) => {
    if (!v) return;
    graph.valueInfo.set(names[i], { name: names[i], type: { kind: 'tensor', elemType: v.type, shape: [...v.dims] } });
    if (opts.constants?.includes(i)) {
      constants.set(i, v);
      graph.initializers.set(names[i], v);
    }
  });
  const supported = def.supports ? def.supports(node, graph) : true;
  if (supported !== true) throw new SwitchyardError('UNSUPPORTED', `${def.opType} declined: ${supported}`);
  const kernel = def.create({
    node,
    graph,
    opset: opts.opset ?? 17,
    attrs: new AttributeReader(node),
    inputTypes: names.map((n) => (n ? graph.typeOf(n) : undefined)),
    outputTypes: outputNames.map(() => undefined),
    constantInputs: constants,
    options: {},
    threads: opts.threads ?? 2,
  });
  const ctx: KernelRunContext = {
    node,
    inputs,
    input(i) {
      const v = inputs[i];
      if (!v) throw new SwitchyardError('RUNTIME', `${node.opType}: input ${i} is missing`);
      return v;
    },
    optionalInput: (i) => inputs[i],
    sequenceInput: () => [],
    output: (_i, type, dims) => Tensor.zeros(type, dims),
    runSubgraph: () => Promise.reject(new SwitchyardError('UNSUPPORTED', 'no subgraphs here')),
    threads: opts.threads ?? 2,
  };
  try {
    let outputs: Tensor[] = [];
    for (let r = 0; r < (opts.runs ?? 1); r++) outputs = (await kernel.run(ctx)) as Tensor[];
    return { outputs, implementation: kernel.implementation ?? def.implementation };
  } finally {
    kernel.dispose?.();
  }
}

/** A seeded generator (LCG): the same numbers on every machine. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const RANGES: Partial<Record<DataType, [number, number]>> = { uint8: [0, 255], int8: [-128, 127], int32: [-(2 ** 20), 2 ** 20] };

/** A tensor of uniform random integers over the dtype's range (int32: ±2^20), or over [lo, hi]. */
export function randomInts(type: 'uint8' | 'int8' | 'int32', dims: number[], seed: number, lo?: number, hi?: number): Tensor {
  const [a, b] = [lo ?? RANGES[type]![0], hi ?? RANGES[type]![1]];
  const next = rng(seed);
  const t = Tensor.zeros(type, dims);
  const data = t.data as Uint8Array | Int8Array | Int32Array;
  for (let i = 0; i < data.length; i++) data[i] = a + Math.floor(next() * (b - a + 1));
  return t;
}

export function randomFloats(dims: number[], seed: number, lo = -1, hi = 1): Tensor<'float32'> {
  const next = rng(seed);
  const n = dims.reduce((p, d) => p * d, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = lo + next() * (hi - lo);
  return new Tensor('float32', data, dims);
}

export function scalarTensor(type: DataType, v: number, dims: number[] = []): Tensor {
  const t = Tensor.zeros(type, dims.length ? dims : []);
  (t.data as Float32Array | Uint8Array)[0] = v;
  return t;
}

/** The first index where two tensors' elements differ (NaN equals NaN), or -1; dims and dtypes must match. */
export function firstDifference(a: Tensor, b: Tensor): number {
  if (a.type !== b.type || a.dims.join() !== b.dims.join()) throw new Error(`tensors differ in type/shape: ${a.type}[${a.dims.join(', ')}] vs ${b.type}[${b.dims.join(', ')}]`);
  const x = a.data as ArrayLike<number>;
  const y = b.data as ArrayLike<number>;
  for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i]) && !(x[i] === y[i])) return i;
  return -1;
}
