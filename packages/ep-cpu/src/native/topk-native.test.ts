/**
 * The native TopK (`topK`) against the TS kernel, the CPU EP's ground truth: ties (lower index first), NaN
 * (after every number), largest and smallest, any axis, k of 0, 1 and the whole lane, and the K-attribute form
 * of opset 1; and what stays on TS.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const hasNative = native.ok && typeof native.binding.topK === 'function' && new CpuExecutionProvider().nativeUnavailable === undefined;

/** Values on a coarse grid (many ties), with a few NaN. */
function data(dims: number[], seed: number): Tensor<'float32'> {
  const v = seededFloats(dims.reduce((a, b) => a * b, 1), seed, 4).map((x, i) => (i % 17 === 5 ? NaN : Math.round(x)));
  return new Tensor('float32', v, dims);
}

async function run(dims: number[], k: number, attrs: { axis?: number; largest?: number }, useNative: boolean, opset = 17) {
  const model = buildModel({
    opset,
    inputs: [['x', 'float32', dims]],
    outputs: [['v', 'float32'], ['i', 'int64']],
    initializers: opset >= 10 ? { k: new Tensor('int64', BigInt64Array.of(BigInt(k)), [1]) } : {},
    nodes: [{ op: 'TopK', inputs: opset >= 10 ? ['x', 'k'] : ['x'], outputs: ['v', 'i'], attributes: { ...attrs, ...(opset < 10 ? { k } : {}) } }],
  });
  const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider({ useNative, smallOpsInTs: false })] });
  try {
    const out = await s.run({ x: data(dims, 7) });
    return { implementation: s.placement.nodes[0].implementation, v: out.v as Tensor, i: out.i as Tensor };
  } finally {
    await s.release();
  }
}

describe.skipIf(!hasNative)('native TopK vs the TS kernel', () => {
  const cases: Array<[number[], number, { axis?: number; largest?: number }]> = [
    [[64, 100], 5, {}],
    [[64, 100], 100, { largest: 0 }],
    [[3, 40, 6], 7, { axis: 1 }],
    [[3, 40, 6], 1, { axis: 1, largest: 0 }],
    [[5, 9], 0, { axis: -1 }],
    [[200], 200, { axis: 0 }],
  ];
  it.each(cases)('%j k %i %j', async (dims, k, attrs) => {
    const fast = await run(dims, k, attrs, true);
    const slow = await run(dims, k, attrs, false);
    expect(fast.implementation).toBe('native');
    expect(slow.implementation).toBe('ts');
    expect(fast.v.dims).toEqual(slow.v.dims);
    expect(Array.from(fast.i.data as BigInt64Array)).toEqual(Array.from(slow.i.data as BigInt64Array));
    expect(Array.from(fast.v.data as Float32Array)).toEqual(Array.from(slow.v.data as Float32Array));
  });

  it('opset 1 (K as an attribute)', async () => {
    const fast = await run([8, 30], 4, {}, true, 9);
    const slow = await run([8, 30], 4, {}, false, 9);
    expect(Array.from(fast.i.data as BigInt64Array)).toEqual(Array.from(slow.i.data as BigInt64Array));
  });

  it('rejects bad arguments with coded errors', () => {
    const topK = native.ok ? native.binding.topK! : undefined;
    if (!topK) return;
    const f = (n: number) => new Float32Array(n);
    expect(() => topK(f(6), 2, 3, 1, 4, true, f(8), new BigInt64Array(8))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => topK(f(6), 2, 3, 1, 2, true, f(4), new BigInt64Array(3))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => topK(f(5), 2, 3, 1, 2, true, f(4), new BigInt64Array(4))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
