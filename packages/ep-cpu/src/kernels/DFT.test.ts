/**
 * DFT over batches of signals (real ones are transformed two at a time) against the O(n²) definition:
 * real and complex, forward and inverse, onesided, every axis, dft_length padding and truncation,
 * non-power-of-two and length-1 signals, odd signal counts (one signal left unpaired).
 */
import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { dftKernel } from './DFT.js';

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5);
}

/** Expected output of DFT along `axis` of x [..., parts], as the spec defines it (zero-pad / truncate to L). */
function reference(x: Float32Array, dims: number[], axis: number, L: number, inverse: boolean, onesided: boolean): { data: number[]; dims: number[] } {
  const r = dims.length;
  const parts = dims[r - 1];
  const n = dims[axis];
  const outer = dims.slice(0, axis).reduce((p, q) => p * q, 1);
  const inner = dims.slice(axis + 1, r - 1).reduce((p, q) => p * q, 1);
  const bins = onesided ? Math.floor(L / 2) + 1 : L;
  const out = new Array<number>(outer * bins * inner * 2).fill(0);
  const sign = inverse ? 1 : -1;
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      for (let k = 0; k < bins; k++) {
        let sr = 0;
        let si = 0;
        for (let j = 0; j < Math.min(n, L); j++) {
          const at = ((o * n + j) * inner + i) * parts;
          const xr = x[at];
          const xi = parts === 2 ? x[at + 1] : 0;
          const angle = (sign * 2 * Math.PI * ((j * k) % L)) / L;
          sr += xr * Math.cos(angle) - xi * Math.sin(angle);
          si += xr * Math.sin(angle) + xi * Math.cos(angle);
        }
        const d = ((o * bins + k) * inner + i) * 2;
        out[d] = inverse ? sr / L : sr;
        out[d + 1] = inverse ? si / L : si;
      }
    }
  }
  const outDims = [...dims];
  outDims[axis] = bins;
  outDims[r - 1] = 2;
  return { data: out, dims: outDims };
}

describe('DFT over batches of signals matches the definition', () => {
  const shapes: Array<{ dims: number[]; axis: number }> = [
    { dims: [5, 12, 1], axis: 1 },
    { dims: [4, 16, 1], axis: 1 },
    { dims: [3, 7, 3, 1], axis: 1 },
    { dims: [2, 3, 10, 1], axis: 2 },
    { dims: [3, 1, 1], axis: 1 },
    { dims: [1, 9, 2, 1], axis: 0 },
    { dims: [3, 6, 2], axis: 1 },
  ];
  for (const { dims, axis } of shapes) {
    for (const inverse of [false, true]) {
      for (const onesided of [false, true]) {
        const complex = dims[dims.length - 1] === 2;
        if (onesided && (complex || inverse)) continue; // onesided inverse is the inverse real transform, tested in Signal.test.ts
        for (const length of [undefined, dims[axis] + 3, Math.max(1, dims[axis] - 2)]) {
          it(`[${dims.join(', ')}] axis ${axis}, inverse=${inverse}, onesided=${onesided}, dft_length ${length ?? 'none'}`, async () => {
            const rand = random(dims.reduce((p, q) => p * q, 1) + axis);
            const x = Float32Array.from({ length: dims.reduce((p, q) => p * q, 1) }, rand);
            const inputs = [new Tensor('float32', x, dims), length === undefined ? undefined : new Tensor('int64', [BigInt(length)], [])];
            const [y] = await runKernel(dftKernel, inputs, { opset: 17, attributes: { axis, inverse: Number(inverse), onesided: Number(onesided) } });
            const want = reference(x, dims, axis, length ?? dims[axis], inverse, onesided);
            expect((y as Tensor).dims).toEqual(want.dims);
            const got = (y as Tensor).data as Float32Array;
            want.data.forEach((v, i) => expect(Math.abs(got[i] - v)).toBeLessThan(1e-5));
          });
        }
      }
    }
  }
});
