import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { quantizeLinearKernel } from './QuantizeLinear.js';
import { dequantizeLinearKernel } from './DequantizeLinear.js';
import { dynamicQuantizeLinearKernel } from './DynamicQuantizeLinear.js';
import { matMulIntegerKernel } from './MatMulInteger.js';
import { convIntegerKernel } from './ConvInteger.js';
import { qLinearMatMulKernel } from './QLinearMatMul.js';
import { asTensor } from '../nn/test-helpers.js';

const values = (v: unknown) => Array.from(asTensor(v as Tensor).data as ArrayLike<number>);

describe('QuantizeLinear / DequantizeLinear', () => {
  it('rounds half to even and saturates', async () => {
    const x = new Tensor('float32', [0.5, 1.5, 2.5, -0.5, 300, -300, 7], [7]);
    const [y] = await runKernel(quantizeLinearKernel, [x, new Tensor('float32', [1], []), new Tensor('uint8', [10], [])], { opset: 13 });
    expect(values(y)).toEqual([10, 12, 12, 10, 255, 0, 17]);
    const [z] = await runKernel(quantizeLinearKernel, [x, new Tensor('float32', [1], []), new Tensor('int8', [0], [])], { opset: 13 });
    expect(values(z)).toEqual([0, 2, 2, 0, 127, -128, 7]);
  });

  it('per-axis scales and zero points (opset 13)', async () => {
    const x = new Tensor('float32', [1, 2, 3, 4, 5, 6], [2, 3]);
    const [y] = await runKernel(quantizeLinearKernel, [x, new Tensor('float32', [1, 2, 4], [3]), new Tensor('uint8', [0, 1, 2], [3])], { opset: 13, attributes: { axis: 1 } });
    // x/scale rounded (ties to even) + zp: [1, 1+1, 0.75→1 +2, 4, 2.5→2 +1, 1.5→2 +2]
    expect(values(y)).toEqual([1, 2, 3, 4, 3, 4]);
    const [back] = await runKernel(dequantizeLinearKernel, [y, new Tensor('float32', [1, 2, 4], [3]), new Tensor('uint8', [0, 1, 2], [3])], { opset: 13, attributes: { axis: 1 } });
    expect(values(back)).toEqual([1, 2, 4, 4, 4, 8]);
  });

  it('DynamicQuantizeLinear picks scale and zero point from the range including 0', async () => {
    const x = new Tensor('float32', [-1, 0, 2, 4], [4]);
    const [y, s, z] = await runKernel(dynamicQuantizeLinearKernel, [x], { outputs: 3 });
    const scale = Math.fround(5 / 255);
    expect(values(s)[0]).toBe(scale);
    expect(values(z)[0]).toBe(51); // round(1 / scale) = 51
    expect(values(y)).toEqual([0, 51, Math.round(2 / scale) + 51, 255]);
  });
});

describe('integer products', () => {
  it('MatMulInteger subtracts zero points and accumulates exactly', async () => {
    const A = new Tensor('uint8', [10, 20, 30, 40], [2, 2]);
    const B = new Tensor('int8', [1, -2, 3, 4], [2, 2]);
    const [y] = await runKernel(matMulIntegerKernel, [A, B, new Tensor('uint8', [10], []), new Tensor('int8', [1], [])]);
    // (A - 10) = [[0, 10], [20, 30]], (B - 1) = [[0, -3], [2, 3]]
    expect(asTensor(y).type).toBe('int32');
    expect(values(y)).toEqual([20, 30, 60, 30]);
  });

  it('ConvInteger with a per-channel weight zero point', async () => {
    const X = new Tensor('uint8', [1, 2, 3, 4], [1, 1, 2, 2]);
    const W = new Tensor('uint8', [2, 2, 2, 2, 5, 5, 5, 5], [2, 1, 2, 2]);
    const [y] = await runKernel(convIntegerKernel, [X, W, new Tensor('uint8', [1], []), new Tensor('uint8', [1, 4], [2])]);
    // (X - 1) = [0, 1, 2, 3] summed = 6; channel 0 weights 1 → 6, channel 1 weights 1 → 6
    expect(values(y)).toEqual([6, 6]);
  });

  it('QLinearMatMul requantizes with the combined scale', async () => {
    const A = new Tensor('uint8', [2, 4], [1, 2]);
    const B = new Tensor('uint8', [3, 5], [2, 1]);
    const f = (v: number) => new Tensor('float32', [v], []);
    const u = (v: number) => new Tensor('uint8', [v], []);
    const [y] = await runKernel(qLinearMatMulKernel, [A, f(0.5), u(0), B, f(0.25), u(1), f(0.1), u(3)]);
    // acc = 2·2 + 4·4 = 20; 20 · 0.125 / 0.1 = 25 → + 3
    expect(values(y)).toEqual([28]);
  });
});
