import { describe, expect, it } from 'vitest';
import { runKernel } from '@switchyard/core/testing';
import { softmaxKernels } from './Softmax.js';
import { logSoftmaxKernels } from './LogSoftmax.js';
import { hardmaxKernels } from './Hardmax.js';
import { asTensor, expectClose, f32 } from '../nn/test-helpers.js';
import type { KernelDef } from '@switchyard/core';

const byOpset = (defs: KernelDef[], opset: number) => defs.find((d) => d.sinceVersion <= opset && (d.endVersion ?? 99) >= opset)!;

/** Softmax of each group of `len` elements spaced `inner` apart. */
function refSoftmax(x: Float32Array, outer: number, len: number, inner: number, log = false): number[] {
  const out = new Array<number>(x.length);
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < inner; i++) {
      const idx = Array.from({ length: len }, (_, k) => o * len * inner + k * inner + i);
      const sum = idx.reduce((s, j) => s + Math.exp(x[j]), 0);
      for (const j of idx) out[j] = log ? x[j] - Math.log(sum) : Math.exp(x[j]) / sum;
    }
  return out;
}

describe('Softmax family', () => {
  const X = f32([2, 3, 4], 1);
  it('opset 13 normalizes along one axis (default last)', async () => {
    expectClose((await runKernel(byOpset(softmaxKernels, 13), [X], { opset: 13 }))[0], [2, 3, 4], refSoftmax(X.data, 6, 4, 1));
    expectClose((await runKernel(byOpset(softmaxKernels, 13), [X], { opset: 13, attributes: { axis: 1 } }))[0], [2, 3, 4], refSoftmax(X.data, 2, 3, 4));
    expectClose((await runKernel(byOpset(logSoftmaxKernels, 13), [X], { opset: 13, attributes: { axis: 0 } }))[0], [2, 3, 4], refSoftmax(X.data, 1, 2, 12, true));
  });

  it('opset 11 coerces to 2-D at axis (default 1)', async () => {
    expectClose((await runKernel(byOpset(softmaxKernels, 11), [X], { opset: 11 }))[0], [2, 3, 4], refSoftmax(X.data, 2, 12, 1));
    expectClose((await runKernel(byOpset(logSoftmaxKernels, 11), [X], { opset: 11, attributes: { axis: 2 } }))[0], [2, 3, 4], refSoftmax(X.data, 6, 4, 1, true));
  });

  it('is stable for large inputs', async () => {
    const big = f32([1, 3], 2);
    big.data.set([1000, 1001, 1002]);
    expectClose((await runKernel(byOpset(softmaxKernels, 13), [big], { opset: 13 }))[0], [1, 3], refSoftmax(new Float32Array([0, 1, 2]), 1, 3, 1));
  });

  it('Hardmax marks the first maximum', async () => {
    const t = f32([2, 3], 3);
    t.data.set([1, 3, 3, 5, 2, 0]);
    const [y] = await runKernel(byOpset(hardmaxKernels, 13), [t], { opset: 13 });
    expect(Array.from(asTensor(y).data as Float32Array)).toEqual([0, 1, 0, 1, 0, 0]);
    const [z] = await runKernel(byOpset(hardmaxKernels, 11), [t], { opset: 11, attributes: { axis: 0 } });
    expect(Array.from(asTensor(z).data as Float32Array)).toEqual([0, 0, 0, 1, 0, 0]);
  });

  it('rejects an out-of-range axis', async () => {
    await expect(runKernel(byOpset(softmaxKernels, 13), [X], { opset: 13, attributes: { axis: 3 } })).rejects.toThrow(/axis/);
  });
});
