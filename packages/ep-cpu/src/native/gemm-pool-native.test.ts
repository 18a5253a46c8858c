/**
 * The oneDNN Gemm and pooling kernels against the TS kernels (the CPU EP's ground truth), one-node
 * models through an InferenceSession so constant initializers, static shapes and the run-time paths
 * are all exercised; and the `supports` answers that hand odd cases to TS.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, type Model } from '@switchyard/core';
import { buildModel, type NodeSpec, type PlainAttribute } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

// The addon's own checks ignore SWITCHYARD_CPU_NATIVE=0; the session comparisons need the EP to use it.
const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const hasBinding = native.ok && Boolean(native.binding.GemmPrimitive && native.binding.PoolPrimitive);
const hasNative = hasBinding && new CpuExecutionProvider().nativeUnavailable === undefined;

const data = (n: number, seed: number) => seededFloats(n, seed);
const t = (dims: number[], seed: number) => new Tensor('float32', data(dims.reduce((a, b) => a * b, 1), seed), dims);

interface Case {
  node: NodeSpec;
  inputs: Record<string, Tensor>;
  /** Inputs that become initializers (constants) rather than feeds. */
  constants?: string[];
}

function modelOf(c: Case): Model {
  const constants = new Set(c.constants ?? []);
  const feeds = Object.entries(c.inputs).filter(([n]) => !constants.has(n));
  return buildModel({
    inputs: feeds.map(([n, v]) => [n, 'float32', [...v.dims]]),
    outputs: [['y', 'float32']],
    initializers: Object.fromEntries(Object.entries(c.inputs).filter(([n]) => constants.has(n))),
    nodes: [c.node],
  });
}

/** Runs the case with the addon and without; returns both outputs and the native run's implementation. */
async function both(c: Case): Promise<{ onednn: Tensor; ts: Tensor; implementation: string }> {
  const feeds = Object.fromEntries(Object.entries(c.inputs).filter(([n]) => !(c.constants ?? []).includes(n)));
  const out: Tensor[] = [];
  let implementation = '';
  for (const useNative of [true, false]) {
    const s = await InferenceSession.fromModel(modelOf(c), { executionProviders: [new CpuExecutionProvider({ useNative, smallOpsInTs: false })], graphOptimizationLevel: 'disabled' });
    if (useNative) implementation = s.placement.nodes[0].implementation;
    out.push((await s.run(feeds)).y as Tensor);
    await s.release();
  }
  return { onednn: out[0], ts: out[1], implementation };
}

function expectSame(a: Tensor, b: Tensor, tol = 1e-5): void {
  expect(a.dims).toEqual(b.dims);
  const x = a.data as Float32Array;
  const y = b.data as Float32Array;
  for (let i = 0; i < y.length; i++) {
    if (!(Math.abs(x[i] - y[i]) <= tol * (1 + Math.abs(y[i])))) throw new Error(`element ${i}: onednn ${x[i]}, ts ${y[i]}`);
  }
}

describe.skipIf(!hasNative)('oneDNN Gemm vs the TS kernel', () => {
  const M = 5, K = 7, N = 6;
  const cShapes: Array<number[] | undefined> = [undefined, [], [N], [1, N], [M, 1], [M, N], [1, 1]];
  const cases: Array<{ transA: number; transB: number; alpha: number; beta: number; c?: number[]; constants: string[] }> = [];
  for (const transA of [0, 1])
    for (const transB of [0, 1])
      for (const c of cShapes) cases.push({ transA, transB, alpha: 1, beta: 1, c, constants: transB ? ['b', 'c'] : [] });
  // Constant B without transB: the 1x1-convolution route reads B [K, N] as ihwo filters.
  for (const c of [undefined, [N], [1, N]]) cases.push({ transA: 0, transB: 0, alpha: 1, beta: 1, c, constants: ['b', 'c'] });
  cases.push({ transA: 0, transB: 1, alpha: 0.5, beta: 2, c: [N], constants: ['b'] });
  cases.push({ transA: 1, transB: 0, alpha: -1.5, beta: 0.25, c: [M, N], constants: [] });
  cases.push({ transA: 0, transB: 0, alpha: 2, beta: 0, c: [M, N], constants: ['c'] });

  it.each(cases)('transA $transA transB $transB alpha $alpha beta $beta C $c, constants $constants', async (g) => {
    const attributes: Record<string, PlainAttribute> = { transA: g.transA, transB: g.transB, alpha: { float: g.alpha }, beta: { float: g.beta } };
    const inputs: Record<string, Tensor> = { a: t(g.transA ? [K, M] : [M, K], 1), b: t(g.transB ? [N, K] : [K, N], 2) };
    if (g.c) inputs.c = t(g.c, 3);
    const { onednn, ts, implementation } = await both({
      node: { op: 'Gemm', inputs: g.c ? ['a', 'b', 'c'] : ['a', 'b'], outputs: ['y'], attributes },
      inputs,
      constants: g.constants.filter((n) => n in inputs),
    });
    expect(implementation).toBe('onednn');
    expectSame(onednn, ts);
  });

  it('runs a large Linear layer (async path) and agrees', async () => {
    const { onednn, ts } = await both({
      node: { op: 'Gemm', inputs: ['a', 'w', 'bias'], outputs: ['y'], attributes: { transB: 1 } },
      inputs: { a: t([32, 256], 4), w: t([128, 256], 5), bias: t([128], 6) },
      constants: ['w', 'bias'],
    });
    expectSame(onednn, ts, 1e-4);
  });
});

describe.skipIf(!hasNative)('oneDNN pooling vs the TS kernels', () => {
  const pools: Array<{ op: string; dims: number[]; attributes: Record<string, PlainAttribute> }> = [];
  for (const dims of [[1, 3, 9, 9], [2, 4, 8, 7]]) {
    for (const ceil_mode of [0, 1])
      for (const [k, s, p] of [[3, 2, 1], [2, 2, 0], [3, 1, 1], [3, 2, 0]] as const) {
        const common = { kernel_shape: [k, k], strides: [s, s], pads: [p, p, p, p], ceil_mode };
        pools.push({ op: 'MaxPool', dims, attributes: common });
        pools.push({ op: 'AveragePool', dims, attributes: { ...common, count_include_pad: 0 } });
        pools.push({ op: 'AveragePool', dims, attributes: { ...common, count_include_pad: 1 } });
      }
    pools.push({ op: 'MaxPool', dims, attributes: { kernel_shape: [3, 2], strides: [2, 1], auto_pad: 'SAME_UPPER' } });
    pools.push({ op: 'AveragePool', dims, attributes: { kernel_shape: [2, 3], strides: [1, 2], auto_pad: 'SAME_LOWER' } });
    pools.push({ op: 'GlobalAveragePool', dims, attributes: {} });
    pools.push({ op: 'GlobalMaxPool', dims, attributes: {} });
  }
  pools.push({ op: 'MaxPool', dims: [1, 2, 11], attributes: { kernel_shape: [3], strides: [2], pads: [1, 1] } });
  pools.push({ op: 'AveragePool', dims: [1, 2, 4, 5, 6], attributes: { kernel_shape: [2, 2, 2], strides: [2, 2, 2], ceil_mode: 1 } });
  pools.push({ op: 'GlobalAveragePool', dims: [1, 64, 56, 56], attributes: {} });
  pools.push({ op: 'GlobalMaxPool', dims: [2, 64, 28, 28], attributes: {} });
  pools.push({ op: 'GlobalMaxPool', dims: [1, 5, 7, 3, 4], attributes: {} });
  // Channel counts on and off the 8-channel block of the fast (blocked-layout) path.
  for (const dims of [[1, 64, 15, 15], [2, 13, 10, 11]]) {
    pools.push({ op: 'MaxPool', dims, attributes: { kernel_shape: [3, 3], strides: [2, 2], ceil_mode: 1 } });
    pools.push({ op: 'AveragePool', dims, attributes: { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], count_include_pad: 0 } });
  }

  it.each(pools)('$op $dims $attributes', async (p) => {
    const { onednn, ts } = await both({ node: { op: p.op, inputs: ['x'], outputs: ['y'], attributes: p.attributes }, inputs: { x: t(p.dims, 7) } });
    expectSame(onednn, ts);
  });

  it('names oneDNN in the placement, and leaves Indices and dilations to the TS kernel', async () => {
    const placed = async (node: NodeSpec, outputs = 1) => {
      const model = buildModel({
        inputs: [['x', 'float32', [1, 2, 6, 6]]],
        outputs: [['y', 'float32'], ...(outputs > 1 ? [['i', 'int64'] as ['i', 'int64']] : [])],
        nodes: [node],
      });
      const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()] });
      const n = s.placement.nodes[0];
      await s.release();
      return n;
    };
    expect((await placed({ op: 'MaxPool', inputs: ['x'], outputs: ['y'], attributes: { kernel_shape: [2, 2] } })).implementation).toBe('onednn');
    const indices = await placed({ op: 'MaxPool', inputs: ['x'], outputs: ['y', 'i'], attributes: { kernel_shape: [2, 2] } }, 2);
    expect(indices.implementation).toBe('ts');
    const dilated = await placed({ op: 'MaxPool', inputs: ['x'], outputs: ['y'], attributes: { kernel_shape: [2, 2], dilations: [2, 2] } });
    expect(dilated.implementation).toBe('ts');
  });
});

describe.skipIf(!hasBinding)('the Gemm and pool primitives', () => {
  it('builds Gemm and pool primitives with the session thread count', async () => {
    const binding = native.ok ? native.binding : undefined;
    const gemm = new binding!.GemmPrimitive!({ aDims: [4, 4], bDims: [4, 4], threads: 1 });
    expect(gemm.threads).toBe(1);
    gemm.dispose();
    const pool = new binding!.PoolPrimitive!({ inputDims: [1, 1, 4, 4], kind: 'max', kernel: [2, 2], threads: 1 });
    expect(pool.threads).toBe(1);
    expect(pool.outputDims).toEqual([1, 1, 3, 3]);
    pool.dispose();
  });

  it('picks an optimized pooling implementation, not the plain-layout scalar loop', () => {
    const binding = native.ok ? native.binding : undefined;
    for (const kind of ['max', 'avgExcludePad'] as const) {
      const pool = new binding!.PoolPrimitive!({ inputDims: [1, 64, 111, 111], kind, kernel: [3, 3], strides: [2, 2], padsEnd: [1, 1], threads: 1 });
      expect(pool.implementation).not.toMatch(/^(simple|ref)/);
      pool.dispose();
    }
  });

  it('rejects bad options with coded errors instead of crashing', () => {
    const binding = native.ok ? native.binding : undefined;
    expect(() => new binding!.GemmPrimitive!({ aDims: [4, 3], bDims: [4, 4] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => new binding!.PoolPrimitive!({ inputDims: [1, 1, 4, 4], kind: 'median' as 'max', kernel: [2, 2] })).toThrow(/kind must be/);
    expect(() => new binding!.PoolPrimitive!({ inputDims: [1, 1, 4, 4], kind: 'max', kernel: [2, 2], padsBegin: [2, 2] })).toThrow(/smaller than the kernel/);
  });
});
