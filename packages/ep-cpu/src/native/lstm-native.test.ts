/**
 * The native LSTM (`lstmForward`) against the TS kernel, the CPU EP's ground truth: one-node models
 * through an InferenceSession with and without the addon, all three outputs compared; and the
 * cases `supports` hands to TS.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel, type PlainAttribute } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const hasNative = native.ok && typeof native.binding.lstmForward === 'function' && new CpuExecutionProvider().nativeUnavailable === undefined;

const data = (n: number, seed: number, scale = 0.5) => seededFloats(n, seed, scale);
const t = (dims: number[], seed: number, scale?: number) => new Tensor('float32', data(dims.reduce((a, b) => a * b, 1), seed, scale), dims);

interface Case {
  seq: number;
  batch: number;
  input: number;
  hidden: number;
  direction?: string;
  bias?: boolean;
  h0?: boolean;
  c0?: boolean;
  clip?: number;
  /** Which outputs the node has ('' = omitted). */
  outputs?: string[];
  constantWeights?: boolean;
  /** intraOpNumThreads (default: the machine's). */
  threads?: number;
  extra?: Record<string, PlainAttribute>;
}

async function run(c: Case, useNative: boolean) {
  const dirs = c.direction === 'bidirectional' ? 2 : 1;
  const G = 4 * c.hidden;
  const inputs: Record<string, Tensor> = {
    x: t([c.seq, c.batch, c.input], 1, 2),
    w: t([dirs, G, c.input], 2),
    r: t([dirs, G, c.hidden], 3),
  };
  if (c.bias) inputs.b = t([dirs, 2 * G], 4);
  if (c.h0) inputs.h0 = t([dirs, c.batch, c.hidden], 5);
  if (c.c0) inputs.c0 = t([dirs, c.batch, c.hidden], 6);
  const constants = c.constantWeights ? ['w', 'r', 'b'] : [];
  const outputs = c.outputs ?? ['y', 'yh', 'yc'];
  const attributes: Record<string, PlainAttribute> = { hidden_size: c.hidden, ...(c.extra ?? {}) };
  if (c.direction) attributes.direction = c.direction;
  if (c.clip !== undefined) attributes.clip = c.clip;
  const model = buildModel({
    inputs: Object.entries(inputs).filter(([n]) => !constants.includes(n)).map(([n, v]) => [n, 'float32', [...v.dims]]),
    outputs: outputs.filter(Boolean).map((n) => [n, 'float32']),
    initializers: Object.fromEntries(Object.entries(inputs).filter(([n]) => constants.includes(n))),
    nodes: [{ op: 'LSTM', inputs: ['x', 'w', 'r', inputs.b ? 'b' : '', '', inputs.h0 ? 'h0' : '', inputs.c0 ? 'c0' : ''], outputs, attributes }],
  });
  const s = await InferenceSession.fromModel(model, {
    executionProviders: [new CpuExecutionProvider({ useNative })],
    graphOptimizationLevel: 'disabled',
    intraOpNumThreads: c.threads,
  });
  const implementation = s.placement.nodes[0].implementation;
  const feeds = Object.fromEntries(Object.entries(inputs).filter(([n]) => !constants.includes(n)));
  const result = await s.run(feeds);
  await s.release();
  return { implementation, result: result as Record<string, Tensor> };
}

function expectSame(a: Tensor, b: Tensor, tol = 1e-5): void {
  expect(a.dims).toEqual(b.dims);
  const x = a.data as Float32Array;
  const y = b.data as Float32Array;
  for (let i = 0; i < y.length; i++) {
    if (!(Math.abs(x[i] - y[i]) <= tol * (1 + Math.abs(y[i])))) throw new Error(`element ${i}: onednn ${x[i]}, ts ${y[i]}`);
  }
}

describe.skipIf(!hasNative)('native LSTM vs the TS kernel', () => {
  const cases: Case[] = [
    { seq: 5, batch: 1, input: 3, hidden: 4 },
    { seq: 7, batch: 3, input: 6, hidden: 5, bias: true, h0: true, c0: true },
    { seq: 4, batch: 2, input: 5, hidden: 3, direction: 'reverse', bias: true, h0: true },
    { seq: 6, batch: 2, input: 4, hidden: 8, direction: 'bidirectional', bias: true, h0: true, c0: true, constantWeights: true },
    { seq: 3, batch: 2, input: 4, hidden: 3, direction: 'bidirectional', bias: true, clip: 0.4 },
    { seq: 32, batch: 1, input: 64, hidden: 128, bias: true, h0: true, c0: true, constantWeights: true, threads: 1 },
    // Enough work per step for the two-thread recurrence (each thread its blocks, a barrier per step).
    { seq: 32, batch: 1, input: 64, hidden: 128, bias: true, h0: true, c0: true, constantWeights: true, threads: 2 },
    { seq: 5, batch: 8, input: 5, hidden: 40, direction: 'bidirectional', bias: true, h0: true, c0: true, constantWeights: true, threads: 2 },
    // Hidden sizes that leave a partial last block of 16 units; weights packed per run.
    { seq: 4, batch: 6, input: 5, hidden: 20, bias: true, h0: true, c0: true },
    { seq: 3, batch: 5, input: 9, hidden: 17, direction: 'reverse', bias: true, h0: true, constantWeights: true },
    // Four batch rows share each load of R (the AVX2 step's four-row path), with the gates clipped.
    { seq: 5, batch: 4, input: 6, hidden: 24, direction: 'bidirectional', bias: true, h0: true, c0: true, clip: 0.5, constantWeights: true },
    // Constant W and R without B: packed with a zero bias.
    { seq: 6, batch: 2, input: 3, hidden: 33, c0: true, constantWeights: true },
    { seq: 4, batch: 2, input: 3, hidden: 4, bias: true, outputs: ['', 'yh'] },
    { seq: 4, batch: 2, input: 3, hidden: 4, outputs: ['y'], extra: { activations: ['Sigmoid', 'Tanh', 'Tanh'] } },
  ];
  it.each(cases)('seq $seq batch $batch input $input hidden $hidden $direction outputs $outputs threads $threads', async (c) => {
    const fast = await run(c, true);
    const slow = await run(c, false);
    expect(fast.implementation).toBe('onednn');
    expect(slow.implementation).toBe('ts');
    const names = Object.keys(slow.result);
    expect(Object.keys(fast.result).sort()).toEqual(names.sort());
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expectSame(fast.result[n], slow.result[n]);
  });

  it('packs constant weights once: the session releases the initializers and runs other sequence lengths', async () => {
    const [seq, batch, input, hidden] = [3, 2, 4, 5];
    const G = 4 * hidden;
    const model = buildModel({
      inputs: [['x', 'float32', ['seq', 'batch', 'input']]],
      outputs: [['y', 'float32']],
      initializers: { w: t([1, G, input], 2), r: t([1, G, hidden], 3), b: t([1, 2 * G], 4) },
      nodes: [{ op: 'LSTM', inputs: ['x', 'w', 'r', 'b'], outputs: ['y'], attributes: { hidden_size: hidden } }],
    });
    const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: 'disabled' });
    try {
      expect(s.placement.nodes[0].implementation).toBe('onednn');
      expect(s.optimization.memory?.releasedConstantBytes).toBe(4 * (G * input + G * hidden + 2 * G));
      for (const steps of [seq, 7]) {
        const out = (await s.run({ x: t([steps, batch, input], 1, 2) })).y as Tensor;
        expect(out.dims).toEqual([steps, 1, batch, hidden]);
      }
      // W is gone, so the kernel itself names the shape X must have.
      await expect(s.run({ x: t([seq, batch, input + 1], 1) })).rejects.toThrow(/X must be float32 \[seq >= 1, batch >= 1, 4\]/);
    } finally {
      await s.release();
    }
  });

  it('leaves peepholes-free but unusual configurations to the TS kernel', async () => {
    const base: Case = { seq: 3, batch: 1, input: 2, hidden: 2 };
    expect((await run({ ...base, extra: { activations: ['Sigmoid', 'Relu', 'Tanh'] } }, true)).implementation).toBe('ts');
    expect((await run({ ...base, extra: { input_forget: 1 } }, true)).implementation).toBe('ts');
    expect((await run({ ...base, extra: { layout: 1 } }, true)).implementation).toBe('ts');
  });
});
