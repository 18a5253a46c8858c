/**
 * Running a native kernel def and its TS def on the same inputs, for the dtype-generic kernels' tests:
 * a one-node graph, the def's kernel, and outputs pre-filled with garbage (so an element the native kernel
 * forgets to write shows), compared bit for bit (data movement) or within a tolerance (math).
 */
import {
  AttributeReader,
  Graph,
  SwitchyardError,
  Tensor,
  type DataType,
  type KernelDef,
  type KernelRunContext,
  type Node,
  type RuntimeValue,
} from '@switchyard/core';
import { toAttribute, type PlainAttribute } from '@switchyard/core/testing';
import { expect } from 'vitest';
import { nativeKernels } from './native-kernels.js';
import { typescriptKernels } from '../register-all.js';
import type { NativeBinding } from './binding.js';

export interface RunOptions {
  attributes?: Record<string, PlainAttribute>;
  opset?: number;
  outputs?: number;
  threads?: number;
  domain?: string;
}

/** The def that serves `opType` at `opset` first among `defs` (as the registry's lookup would try them). */
export function defFor(defs: readonly KernelDef[], opType: string, opset: number, domain = ''): KernelDef {
  const def = defs.find((d) => d.opType === opType && d.domain === domain && d.sinceVersion <= opset && (d.endVersion === undefined || opset <= d.endVersion));
  if (!def) throw new Error(`no def for ${domain}:${opType} at opset ${opset}`);
  return def;
}

/**
 * The native and TS defs of one op, with the native ones taking every size (smallOpsInTs: false). With
 * `everyBuild`, compareDefs runs the native one on every build of the vector loops (for the ops whose
 * inner loops differ by ISA: transposes, Cast, the math).
 */
export function defPair(binding: NativeBinding, opType: string, opset: number, options: { domain?: string; everyBuild?: boolean } = {}) {
  const domain = options.domain ?? '';
  // The dtype-generic def (LayerNormalization's oneDNN def comes before it in the list).
  const native = defFor(nativeKernels(binding, false).filter((d) => d.implementation === 'native'), opType, opset, domain);
  return { native, ts: defFor(typescriptKernels, opType, opset, domain), binding: options.everyBuild === false ? undefined : binding };
}

/** Runs `def` once on `inputs` (undefined: an omitted optional input); outputs start as 0xA5 bytes. */
export async function runDef(def: KernelDef, inputs: ReadonlyArray<Tensor | undefined>, opts: RunOptions = {}): Promise<RuntimeValue[]> {
  const opset = opts.opset ?? 17;
  const domain = opts.domain ?? def.domain;
  const graph = new Graph({ name: 'harness', opsetImports: new Map([[domain, opset]]) });
  const inputNames = inputs.map((v, i) => (v === undefined ? '' : `in${i}`));
  const outputNames = Array.from({ length: opts.outputs ?? 1 }, (_, i) => `out${i}`);
  const attributes = new Map(Object.entries(opts.attributes ?? {}).map(([k, v]) => [k, toAttribute(v)] as const));
  const node: Node = graph.addNode({ opType: def.opType, domain, inputs: inputNames, outputs: outputNames, attributes });
  const threads = opts.threads ?? 1;
  const kernel = def.create({
    node,
    graph,
    opset,
    attrs: new AttributeReader(node),
    inputTypes: inputNames.map(() => undefined),
    outputTypes: outputNames.map(() => undefined),
    constantInputs: new Map(),
    options: {},
    threads,
  });
  const ctx: KernelRunContext = {
    node,
    inputs: [...inputs],
    input(i) {
      const v = inputs[i];
      if (!(v instanceof Tensor)) throw new SwitchyardError('RUNTIME', `${node.opType}: input ${i} is missing`);
      return v;
    },
    optionalInput: (i) => inputs[i],
    sequenceInput() {
      throw new SwitchyardError('UNSUPPORTED', 'no sequences here');
    },
    output(_i, type, dims) {
      const t = Tensor.zeros(type, dims);
      if (type !== 'string') {
        const d = t.data as Uint8Array;
        new Uint8Array(d.buffer, d.byteOffset, d.byteLength).fill(0xa5);
      }
      return t;
    },
    runSubgraph: () => Promise.reject(new SwitchyardError('UNSUPPORTED', 'no subgraphs here')),
    threads,
  };
  try {
    return await kernel.run(ctx);
  } finally {
    kernel.dispose?.();
  }
}

/** A seeded generator (an LCG: the same values on every machine). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

/** Float edge values the kernels must carry through as the TS kernels do. */
export const FLOAT_EDGES = [NaN, Infinity, -Infinity, -0, 0, 1e-40, -1e-40, 65504, 65520, 3e9, -3e9, 1e20, -2.5, 2.5, 0.5];

/** Random data of `dtype` (edge values mixed in when `edges`), as core stores it. */
export function randomTensor(dtype: DataType, dims: readonly number[], r: () => number, edges = false): Tensor {
  const n = dims.reduce((a, b) => a * b, 1);
  const pick = () => edges && r() < 0.2;
  switch (dtype) {
    case 'float32':
    case 'float64': {
      const a = dtype === 'float32' ? new Float32Array(n) : new Float64Array(n);
      for (let i = 0; i < n; i++) a[i] = pick() ? FLOAT_EDGES[int(r, 0, FLOAT_EDGES.length - 1)] : (r() * 2 - 1) * 8;
      return new Tensor(dtype, a, dims);
    }
    case 'float16':
    case 'bfloat16':
    case 'uint16':
    case 'int16': {
      const a = new Uint16Array(n);
      for (let i = 0; i < n; i++) a[i] = int(r, 0, 0xffff);
      return new Tensor(dtype, dtype === 'int16' ? new Int16Array(a.buffer) : a, dims);
    }
    case 'int64':
    case 'uint64': {
      const a = dtype === 'int64' ? new BigInt64Array(n) : new BigUint64Array(n);
      for (let i = 0; i < n; i++) {
        const big = pick() ? BigInt(int(r, 0, 2 ** 31)) * BigInt(int(r, 0, 2 ** 31)) * 7n : BigInt(int(r, -1000, 1000));
        a[i] = dtype === 'int64' ? BigInt.asIntN(64, big) : BigInt.asUintN(64, big);
      }
      return new Tensor(dtype, a, dims);
    }
    case 'int32':
    case 'uint32': {
      const a = dtype === 'int32' ? new Int32Array(n) : new Uint32Array(n);
      for (let i = 0; i < n; i++) a[i] = pick() ? int(r, -(2 ** 31), 2 ** 31 - 1) : int(r, -1000, 1000);
      return new Tensor(dtype, a, dims);
    }
    case 'int8':
    case 'uint8': {
      const a = dtype === 'int8' ? new Int8Array(n) : new Uint8Array(n);
      for (let i = 0; i < n; i++) a[i] = int(r, -128, 255);
      return new Tensor(dtype, a, dims);
    }
    case 'bool': {
      const a = new Uint8Array(n);
      for (let i = 0; i < n; i++) a[i] = r() < 0.5 ? 1 : 0;
      return new Tensor(dtype, a, dims);
    }
    default:
      throw new Error(`no generator for ${dtype}`);
  }
}

export function int64(values: readonly number[], dims = [values.length]): Tensor {
  return new Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);
}

function isNanAt(t: Tensor, i: number): boolean {
  const v = (t.data as ArrayLike<number | bigint>)[i];
  return typeof v === 'number' && (t.type === 'float32' || t.type === 'float64') && Number.isNaN(v);
}

/** Same dims, dtype and elements: bit for bit, except that any two float NaNs match. */
export function expectIdentical(actual: RuntimeValue, expected: RuntimeValue, what: string): void {
  if (!(actual instanceof Tensor) || !(expected instanceof Tensor)) {
    expect(actual, what).toBe(expected);
    return;
  }
  expect(actual.type, what).toBe(expected.type);
  expect([...actual.dims], what).toEqual([...expected.dims]);
  const a = actual.data as ArrayLike<number | bigint>;
  const e = expected.data as ArrayLike<number | bigint>;
  for (let i = 0; i < e.length; i++) {
    if (Object.is(a[i], e[i]) || (isNanAt(actual, i) && isNanAt(expected, i))) continue;
    throw new Error(`${what}: element ${i} is ${a[i]}, expected ${e[i]}`);
  }
}

/** Same dims and dtype; float elements within tol · (1 + |expected|), NaN and ±∞ where expected. */
export function expectClose(actual: RuntimeValue, expected: RuntimeValue, tol: number, what: string): void {
  if (!(actual instanceof Tensor) || !(expected instanceof Tensor)) {
    expect(actual, what).toBe(expected);
    return;
  }
  expect(actual.type, what).toBe(expected.type);
  expect([...actual.dims], what).toEqual([...expected.dims]);
  const a = actual.data as ArrayLike<number>;
  const e = expected.data as ArrayLike<number>;
  for (let i = 0; i < e.length; i++) {
    const x = Number(a[i]);
    const y = Number(e[i]);
    if (Number.isNaN(y) ? Number.isNaN(x) : x === y || Math.abs(x - y) <= tol * (1 + Math.abs(y))) continue;
    throw new Error(`${what}: element ${i} is ${x}, expected ${y}`);
  }
}

/** The builds of the vector loops this CPU runs ('generic', 'avx2', 'avx512'), for `binding.vectorIsa(set)`. */
export function loopBuilds(binding: NativeBinding): Array<'generic' | 'avx2' | 'avx512'> {
  const builds = (['generic', 'avx2', 'avx512'] as const).filter((isa) => {
    try {
      binding.vectorIsa!(isa);
      return true;
    } catch {
      return false;
    }
  });
  binding.vectorIsa!('auto');
  return builds;
}

/**
 * Runs both defs and compares every output: the native one at one and two threads on each build of the
 * loops (the process goes back to the environment's choice after). Returns the native outputs.
 */
export async function compareDefs(
  pair: { native: KernelDef; ts: KernelDef; binding?: NativeBinding },
  inputs: ReadonlyArray<Tensor | undefined>,
  opts: RunOptions & { tol?: number },
  what: string,
): Promise<RuntimeValue[]> {
  const expected = await runDef(pair.ts, inputs, { ...opts, threads: 1 });
  const builds = pair.binding ? loopBuilds(pair.binding) : ['auto' as const];
  let actual: RuntimeValue[] = [];
  try {
    for (const isa of builds) {
      pair.binding?.vectorIsa?.(isa);
      for (const threads of [1, 2]) {
        actual = await runDef(pair.native, inputs, { ...opts, threads });
        expect(actual.length, what).toBe(expected.length);
        const label = (i: number) => `${what} out ${i} (${isa}, ${threads}t)`;
        actual.forEach((t, i) => (opts.tol === undefined ? expectIdentical(t, expected[i], label(i)) : expectClose(t, expected[i], opts.tol, label(i))));
      }
    }
  } finally {
    pair.binding?.vectorIsa?.('auto');
  }
  return actual;
}

/** Both defs must throw; the native one a SwitchyardError with a code. */
export async function expectBothThrow(pair: { native: KernelDef; ts: KernelDef }, inputs: ReadonlyArray<Tensor | undefined>, opts: RunOptions, what: string): Promise<void> {
  await expect(runDef(pair.ts, inputs, opts), what).rejects.toThrow();
  await expect(runDef(pair.native, inputs, opts), what).rejects.toSatisfy((e: unknown) => e instanceof SwitchyardError && typeof e.code === 'string');
}
