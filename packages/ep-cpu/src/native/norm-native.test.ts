/** The native Softmax and LayerNormalization against the TS kernels, one-node models through a session. */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel, type NodeSpec } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

const native = loadNative({ env: {} });
const hasNative =
  native.ok && typeof native.binding.softmaxRows === 'function' && typeof native.binding.layerNormRows === 'function' &&
  new CpuExecutionProvider().nativeUnavailable === undefined;

const data = (n: number, seed: number, scale: number, offset = 0) => seededFloats(n, seed, scale, offset);
const t = (dims: number[], seed: number, scale = 1, offset = 0) => new Tensor('float32', data(dims.reduce((a, b) => a * b, 1), seed, scale, offset), dims);

interface Case {
  node: NodeSpec;
  inputs: Record<string, Tensor>;
  opset?: number;
  outputs?: string[];
}

async function run(c: Case, useNative: boolean) {
  const outputs = c.outputs ?? ['y'];
  const model = buildModel({
    opset: c.opset,
    inputs: Object.entries(c.inputs).map(([n, v]) => [n, 'float32', [...v.dims]]),
    outputs: outputs.map((n) => [n, 'float32']),
    nodes: [c.node],
  });
  const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider({ useNative })], graphOptimizationLevel: 'disabled' });
  const implementation = s.placement.nodes[0].implementation;
  const result = (await s.run(c.inputs)) as Record<string, Tensor>;
  await s.release();
  return { implementation, result };
}

function expectSame(a: Tensor, b: Tensor, tol: number): void {
  expect(a.dims).toEqual(b.dims);
  const x = a.data as Float32Array;
  const y = b.data as Float32Array;
  for (let i = 0; i < y.length; i++) {
    if (!(Math.abs(x[i] - y[i]) <= tol * (1 + Math.abs(y[i])))) throw new Error(`element ${i}: onednn ${x[i]}, ts ${y[i]}`);
  }
}

async function compare(c: Case, expectImplementation: string, tol = 2e-6) {
  const fast = await run(c, true);
  const slow = await run(c, false);
  expect(fast.implementation).toBe(expectImplementation);
  expect(slow.implementation).toBe('ts');
  for (const name of Object.keys(slow.result)) expectSame(fast.result[name], slow.result[name], tol);
}

describe.skipIf(!hasNative)('native Softmax vs the TS kernel', () => {
  const x = t([2, 3, 17], 1, 8);
  it.each([
    { opset: 13, axis: -1 },
    { opset: 13, axis: 2 },
    { opset: 13, axis: 1 }, // not the last axis: the TS kernel serves the run
    { opset: 11, axis: 1 }, // flattens [3, 17] into one row
    { opset: 11, axis: -1 },
    { opset: 11, axis: 0 },
  ])('opset $opset axis $axis', async ({ opset, axis }) => {
    await compare({ opset, node: { op: 'Softmax', inputs: ['x'], outputs: ['y'], attributes: { axis } }, inputs: { x } }, 'onednn');
  });

  it('handles large logits without overflow', async () => {
    await compare({ node: { op: 'Softmax', inputs: ['x'], outputs: ['y'] }, inputs: { x: t([4, 64], 2, 80, 40) } }, 'onednn');
  });
});

describe.skipIf(!hasNative)('native LayerNormalization vs the TS kernel', () => {
  const x = t([2, 5, 48], 3, 2, 7); // an offset mean, as real activations have
  const scale = t([48], 4);
  const bias = t([48], 5);
  it('normalizes the last axis with Scale and B', async () => {
    await compare({ node: { op: 'LayerNormalization', inputs: ['x', 's', 'b'], outputs: ['y'], attributes: { epsilon: 1e-5 } }, inputs: { x, s: scale, b: bias } }, 'onednn', 1e-5);
  });

  it('normalizes from axis 1 (two dims at once), without B', async () => {
    const s2 = t([5, 48], 6);
    await compare({ node: { op: 'LayerNormalization', inputs: ['x', 's'], outputs: ['y'], attributes: { axis: 1 } }, inputs: { x, s: s2 } }, 'onednn', 1e-5);
  });

  it('leaves broadcast Scale to the TS kernel at run time, and Mean/InvStdDev outputs at creation', async () => {
    const s2 = t([48], 7);
    await compare({ node: { op: 'LayerNormalization', inputs: ['x', 's'], outputs: ['y'], attributes: { axis: 1 } }, inputs: { x, s: s2 } }, 'onednn', 1e-5);
    await compare(
      { node: { op: 'LayerNormalization', inputs: ['x', 's', 'b'], outputs: ['y', 'mean', 'inv'] }, inputs: { x, s: scale, b: bias }, outputs: ['y', 'mean', 'inv'] },
      'ts',
      1e-5,
    );
  });
});
