/**
 * The native GRU and RNN (`gruForward`, `rnnForward`) against the TS kernels, the CPU EP's ground truth:
 * one-node models through an InferenceSession with and without the addon, both outputs compared, both
 * linear_before_reset forms and the RNN's activations; and the cases `supports` hands to TS.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel, type PlainAttribute } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const hasNative = native.ok && typeof native.binding.gruForward === 'function' && typeof native.binding.rnnForward === 'function' && new CpuExecutionProvider().nativeUnavailable === undefined;

const t = (dims: number[], seed: number, scale = 0.5) => new Tensor('float32', seededFloats(dims.reduce((a, b) => a * b, 1), seed, scale), dims);

interface Case {
  op?: 'GRU' | 'RNN';
  seq: number;
  batch: number;
  input: number;
  hidden: number;
  direction?: string;
  lbr?: number;
  bias?: boolean;
  h0?: boolean;
  outputs?: string[];
  constantWeights?: boolean;
  threads?: number;
  extra?: Record<string, PlainAttribute>;
}

async function run(c: Case, useNative: boolean) {
  const dirs = c.direction === 'bidirectional' ? 2 : 1;
  const op = c.op ?? 'GRU';
  const G = (op === 'GRU' ? 3 : 1) * c.hidden;
  // R scaled so its recurrence contracts (a chaotic one turns float32 rounding into O(1) differences over long sequences).
  const inputs: Record<string, Tensor> = { x: t([c.seq, c.batch, c.input], 1, 2), w: t([dirs, G, c.input], 2), r: t([dirs, G, c.hidden], 3, Math.min(0.5, 1.5 / Math.sqrt(c.hidden))) };
  if (c.bias) inputs.b = t([dirs, 2 * G], 4);
  if (c.h0) inputs.h0 = t([dirs, c.batch, c.hidden], 5);
  const constants = c.constantWeights ? ['w', 'r', 'b'] : [];
  const outputs = c.outputs ?? ['y', 'yh'];
  const attributes: Record<string, PlainAttribute> = { hidden_size: c.hidden, ...(c.extra ?? {}) };
  if (c.direction) attributes.direction = c.direction;
  if (c.lbr !== undefined) attributes.linear_before_reset = c.lbr;
  const model = buildModel({
    inputs: Object.entries(inputs).filter(([n]) => !constants.includes(n)).map(([n, v]) => [n, 'float32', [...v.dims]]),
    outputs: outputs.filter(Boolean).map((n) => [n, 'float32']),
    initializers: Object.fromEntries(Object.entries(inputs).filter(([n]) => constants.includes(n))),
    nodes: [{ op, inputs: ['x', 'w', 'r', inputs.b ? 'b' : '', '', inputs.h0 ? 'h0' : ''], outputs, attributes }],
  });
  const s = await InferenceSession.fromModel(model, {
    executionProviders: [new CpuExecutionProvider({ useNative })],
    graphOptimizationLevel: 'disabled',
    intraOpNumThreads: c.threads,
  });
  const implementation = s.placement.nodes[0].implementation;
  const result = await s.run(Object.fromEntries(Object.entries(inputs).filter(([n]) => !constants.includes(n))));
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

describe.skipIf(!hasNative)('native GRU vs the TS kernel', () => {
  const cases: Case[] = [
    { seq: 5, batch: 1, input: 3, hidden: 4 },
    { seq: 5, batch: 1, input: 3, hidden: 4, lbr: 1 },
    { seq: 7, batch: 3, input: 6, hidden: 5, bias: true, h0: true },
    { seq: 7, batch: 3, input: 6, hidden: 5, bias: true, h0: true, lbr: 1 },
    { seq: 4, batch: 2, input: 5, hidden: 3, direction: 'reverse', bias: true, h0: true },
    // PyTorch's nn.GRU export: bidirectional, linear_before_reset 1, constant weights.
    { seq: 12, batch: 2, input: 16, hidden: 24, direction: 'bidirectional', bias: true, h0: true, lbr: 1, constantWeights: true, threads: 2 },
    { seq: 6, batch: 4, input: 8, hidden: 33, direction: 'bidirectional', bias: true, lbr: 0, threads: 1 },
    // Past the skinny kernel's 4 rows a step's h·Rᵀ is oneDNN's sgemm (hr rows 3H apart in both forms).
    { seq: 5, batch: 5, input: 6, hidden: 7, direction: 'bidirectional', bias: true, h0: true, lbr: 0 },
    { seq: 5, batch: 6, input: 6, hidden: 7, direction: 'bidirectional', bias: true, h0: true, lbr: 1 },
    // R past the packing limit (3H x H > 2^20 floats): sgemm per step, also for one row.
    { seq: 3, batch: 1, input: 4, hidden: 600, bias: true, lbr: 1 },
    { seq: 4, batch: 2, input: 3, hidden: 4, bias: true, outputs: ['', 'yh'] },
    { seq: 4, batch: 2, input: 3, hidden: 4, outputs: ['y'], extra: { activations: ['Sigmoid', 'Tanh'] } },
    // RNN: the default Tanh, Relu and Sigmoid, both directions, PyTorch's nn.RNN form.
    { op: 'RNN', seq: 6, batch: 3, input: 5, hidden: 7, bias: true, h0: true },
    { op: 'RNN', seq: 6, batch: 3, input: 5, hidden: 7, direction: 'bidirectional', bias: true, extra: { activations: ['Relu', 'Relu'] } },
    { op: 'RNN', seq: 5, batch: 2, input: 4, hidden: 9, direction: 'reverse', h0: true, extra: { activations: ['Sigmoid'] }, outputs: ['', 'yh'] },
    { op: 'RNN', seq: 40, batch: 1, input: 64, hidden: 128, bias: true, h0: true, constantWeights: true, threads: 2 },
    { op: 'RNN', seq: 4, batch: 7, input: 5, hidden: 6, direction: 'bidirectional', bias: true, h0: true },
  ];
  it.each(cases)('$op seq $seq batch $batch input $input hidden $hidden $direction lbr $lbr outputs $outputs', async (c) => {
    const fast = await run(c, true);
    const slow = await run(c, false);
    expect(fast.implementation).toBe('onednn');
    expect(slow.implementation).toBe('ts');
    const names = Object.keys(slow.result);
    expect(Object.keys(fast.result).sort()).toEqual(names.sort());
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expectSame(fast.result[n], slow.result[n]);
  });

  it('leaves unusual configurations to the TS kernel', async () => {
    const base: Case = { seq: 3, batch: 1, input: 2, hidden: 2 };
    expect((await run({ ...base, extra: { activations: ['Sigmoid', 'Relu'] } }, true)).implementation).toBe('ts');
    expect((await run({ ...base, extra: { layout: 1 } }, true)).implementation).toBe('ts');
    expect((await run({ ...base, extra: { clip: { float: 2 } } }, true)).implementation).toBe('ts');
    const rnn: Case = { ...base, op: 'RNN', direction: 'bidirectional' };
    expect((await run({ ...rnn, extra: { activations: ['Tanh', 'Relu'] } }, true)).implementation).toBe('ts');
    expect((await run({ ...rnn, extra: { activations: ['Softsign', 'Softsign'] } }, true)).implementation).toBe('ts');
  });

  it('rejects bad options and buffer lengths with coded errors', () => {
    const gru = native.ok ? native.binding.gruForward! : undefined;
    if (!gru) return;
    const f = (n: number) => new Float32Array(n);
    const options = { seq: 2, batch: 1, input: 3, hidden: 2 };
    expect(() => gru({ ...options, direction: 'sideways' as 'forward' }, f(6), f(18), f(12), null, null, f(4), null)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => gru(options, f(5), f(18), f(12), null, null, f(4), null)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => gru({ ...options, hidden: 2 ** 40 }, f(6), f(18), f(12), null, null, null, null)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
