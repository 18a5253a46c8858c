/**
 * The TS LRN kernel against a per-element reference (each output's channel window summed on its own, as
 * the ONNX definition reads), bit for bit: odd and even sizes, windows wider than the channels, ranks 2–5,
 * float32/float64/float16, edge values.
 */
import { describe, expect, it } from 'vitest';
import { Tensor, float16BitsToFloat32, float32ToFloat16Bits } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { lrnKernel } from './LRN.js';
import { expectIdentical, int, randomTensor, rng } from '../native/native-harness.test-util.js';

function reference(x: ArrayLike<number>, dims: readonly number[], size: number, alpha: number, beta: number, bias: number): Float64Array {
  const [N, C] = dims;
  const S = dims.slice(2).reduce((a, b) => a * b, 1);
  const y = new Float64Array(x.length);
  for (let n = 0; n < N; n++) {
    for (let c = 0; c < C; c++) {
      for (let s = 0; s < S; s++) {
        let sq = 0;
        for (let cc = Math.max(0, c - Math.floor((size - 1) / 2)); cc <= Math.min(C - 1, c + Math.ceil((size - 1) / 2)); cc++) sq += x[(n * C + cc) * S + s] ** 2;
        const i = (n * C + c) * S + s;
        y[i] = x[i] / (bias + (alpha / size) * sq) ** beta;
      }
    }
  }
  return y;
}

async function check(x: Tensor, size: number, alpha: number, beta: number, bias: number, what: string): Promise<void> {
  const [y] = await runKernel(lrnKernel, [x], { attributes: { size, alpha: { float: alpha }, beta: { float: beta }, bias: { float: bias } } });
  let expected: Tensor;
  if (x.type === 'float16') {
    const wide = Float32Array.from(x.data as Uint16Array, float16BitsToFloat32);
    expected = new Tensor('float16', Uint16Array.from(Float32Array.from(reference(wide, x.dims, size, alpha, beta, bias)), float32ToFloat16Bits), x.dims);
  } else {
    const ref = reference(x.data as Float32Array, x.dims, size, alpha, beta, bias);
    expected = new Tensor(x.type, x.type === 'float32' ? Float32Array.from(ref) : ref, x.dims);
  }
  expectIdentical(y, expected, what);
}

describe('LRN (TS) against the per-element reference', () => {
  it('sizes 1–8, ranks 2–5, several alpha/beta/bias', async () => {
    const r = rng(501);
    for (let k = 0; k < 30; k++) {
      const dims = [int(r, 1, 3), int(r, 1, 9), ...Array.from({ length: k % 4 }, () => int(r, 1, 6))];
      const size = int(r, 1, 8);
      const beta = [0.75, 0.5, 1, 0.6][k % 4];
      await check(randomTensor(k % 3 === 2 ? 'float64' : 'float32', dims, r, k % 5 === 0), size, [1e-4, 0.2, 2][k % 3], beta, [1, 2, 0.5][k % 3], `[${dims}] size ${size} beta ${beta}`);
    }
  });

  it('float16 computes in float32 storage, as before', async () => {
    const r = rng(502);
    const bits = Uint16Array.from({ length: 2 * 6 * 3 * 3 }, () => float32ToFloat16Bits((r() * 2 - 1) * 3));
    await check(new Tensor('float16', bits, [2, 6, 3, 3]), 5, 1e-4, 0.75, 1, 'float16');
  });

  it('empty tensors, and the attribute and rank errors', async () => {
    const [y] = await runKernel(lrnKernel, [new Tensor('float32', new Float32Array(0), [2, 0, 4])], { attributes: { size: 3 } });
    expect([...(y as Tensor).dims]).toEqual([2, 0, 4]);
    await expect(runKernel(lrnKernel, [randomTensor('float32', [4], rng(1))], { attributes: { size: 3 } })).rejects.toThrow(/rank ≥ 2/);
    await expect(runKernel(lrnKernel, [randomTensor('float32', [1, 4], rng(1))], { attributes: { size: 0 } })).rejects.toThrow(/size must be ≥ 1/);
  });
});
