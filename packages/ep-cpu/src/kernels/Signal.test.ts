import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64, plain } from '../tensor-ops/test-util.js';
import { expectClose, seeded } from '../nn/test-helpers.js';
import { hannWindowKernel } from './HannWindow.js';
import { hammingWindowKernel } from './HammingWindow.js';
import { blackmanWindowKernel } from './BlackmanWindow.js';
import { dftKernel } from './DFT.js';
import { stftKernel } from './STFT.js';
import { melWeightMatrixKernel } from './MelWeightMatrix.js';

const scalar = (v: number) => i64([v], []);

/** Textbook O(n²) DFT of (re, im) zero-padded or truncated to L, for checking the FFT path. */
function naiveDft(re: number[], im: number[], L: number, inverse: boolean): [number[], number[]] {
  const outRe: number[] = [];
  const outIm: number[] = [];
  const sign = inverse ? 1 : -1;
  for (let k = 0; k < L; k++) {
    let sr = 0;
    let si = 0;
    for (let j = 0; j < Math.min(L, re.length); j++) {
      const a = (sign * 2 * Math.PI * j * k) / L;
      sr += re[j] * Math.cos(a) - im[j] * Math.sin(a);
      si += re[j] * Math.sin(a) + im[j] * Math.cos(a);
    }
    outRe.push(inverse ? sr / L : sr);
    outIm.push(inverse ? si / L : si);
  }
  return [outRe, outIm];
}

const interleave = (re: number[], im: number[]) => re.flatMap((r, i) => [r, im[i]]);

describe('window functions', () => {
  it('match numpy (hanning/blackman symmetric; periodic = symmetric of size + 1 without its last point)', async () => {
    // /usr/bin/python3: np.hanning(5)
    expectClose((await runKernel(hannWindowKernel, [scalar(5)], { attributes: { periodic: 0 } }))[0], [5], [0, 0.5, 1, 0.5, 0], 1e-6);
    // 25/46 − 21/46·cos(2πk/6), k = 0…5 (ONNX's Hamming coefficients; numpy's hamming uses 0.54/0.46)
    const hamming = [0.08695652173913043, 0.3152173913043478, 0.7717391304347825, 1.0, 0.7717391304347827, 0.3152173913043478];
    expectClose((await runKernel(hammingWindowKernel, [scalar(6)]))[0], [6], hamming, 1e-6);
    // np.blackman(7)[:-1] and np.blackman(5)
    expectClose((await runKernel(blackmanWindowKernel, [scalar(6)]))[0], [6], [0, 0.13, 0.63, 1, 0.63, 0.13], 1e-6);
    expectClose((await runKernel(blackmanWindowKernel, [scalar(5)], { attributes: { periodic: 0 } }))[0], [5], [0, 0.34, 1, 0.34, 0], 1e-6);
  });

  it('honours output_datatype, treats a one-point symmetric window as its peak, and rejects bad sizes', async () => {
    const [d] = await runKernel(hannWindowKernel, [new Tensor('int32', Int32Array.of(4), [])], { attributes: { output_datatype: 11 } });
    expect((d as Tensor).type).toBe('float64');
    expectClose(d, [4], [0, 0.5, 1, 0.5], 1e-12);
    expectClose((await runKernel(hannWindowKernel, [scalar(1)], { attributes: { periodic: 0 } }))[0], [1], [1]);
    expect(plain((await runKernel(hannWindowKernel, [scalar(0)]))[0]).dims).toEqual([0]);
    await expect(runKernel(hannWindowKernel, [scalar(-2)])).rejects.toMatchObject({ code: 'RUNTIME' });
    await expect(runKernel(hannWindowKernel, [scalar(3)], { attributes: { output_datatype: 8 } })).rejects.toMatchObject({ code: 'UNSUPPORTED' });
  });
});

describe('DFT', () => {
  it('matches a naive DFT for power-of-two and other lengths, real and complex, forward and inverse', async () => {
    for (const n of [1, 2, 7, 8, 10, 12, 16]) {
      for (const complex of [false, true]) {
        for (const inverse of [false, true]) {
          const re = Array.from(seeded(n, n), (v) => v * 10);
          const im = complex ? Array.from(seeded(n, n + 100)) : new Array<number>(n).fill(0);
          const x = new Tensor('float64', Float64Array.from(complex ? interleave(re, im) : re), [1, n, complex ? 2 : 1]);
          const [y] = await runKernel(dftKernel, [x], { attributes: { inverse: inverse ? 1 : 0 } });
          const [er, ei] = naiveDft(re, im, n, inverse);
          expectClose(y, [1, n, 2], interleave(er, ei), 1e-9);
        }
      }
    }
  });

  it('pads or truncates to dft_length, keeps the onesided bins, and transforms an inner axis', async () => {
    const re = [1, -2, 3, 0.5, 4];
    const x = f32(re, [1, 5, 1]);
    for (const L of [3, 8, 9]) {
      const [er, ei] = naiveDft(re, new Array(5).fill(0), L, false);
      const [y] = await runKernel(dftKernel, [x, scalar(L)]);
      expectClose(y, [1, L, 2], interleave(er, ei), 1e-5);
      const [h] = await runKernel(dftKernel, [x, scalar(L)], { attributes: { onesided: 1 } });
      const bins = Math.floor(L / 2) + 1;
      expectClose(h, [1, bins, 2], interleave(er.slice(0, bins), ei.slice(0, bins)), 1e-5);
    }
    // [batch 2, 3, 4, 1] along axis 2 (and −2, the same axis): rows of 4 transformed independently.
    const data = Array.from(seeded(24, 5));
    for (const axis of [2, -2]) {
      const [y] = await runKernel(dftKernel, [f32(data, [2, 3, 4, 1])], { attributes: { axis } });
      const expected: number[] = [];
      for (let r = 0; r < 6; r++) {
        const [er, ei] = naiveDft(data.slice(r * 4, r * 4 + 4), [0, 0, 0, 0], 4, false);
        expected.push(...interleave(er, ei));
      }
      expectClose(y, [2, 3, 4, 2], expected, 1e-5);
    }
  });

  it('rejects the complex axis, onesided complex input and a bad last dim', async () => {
    await expect(runKernel(dftKernel, [f32([1, 2], [1, 2, 1])], { attributes: { axis: 2 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(runKernel(dftKernel, [f32([1, 2, 3, 4], [1, 2, 2])], { attributes: { onesided: 1 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(runKernel(dftKernel, [f32([1, 2, 3], [1, 1, 3])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(dftKernel, [f32([1, 2], [1, 2, 1]), scalar(0)])).rejects.toMatchObject({ code: 'RUNTIME' });
  });

  it('inverts a one-sided spectrum to a real signal of odd or even length (numpy irfft)', async () => {
    // numpy.fft.irfft([1, 2-1j, 0.5+3j], n) for n = 5 and 4 (n = 4 ignores bin 2's imaginary part).
    const bins = f32([1, 0, 2, -1, 0.5, 3], [1, 3, 2]);
    const [odd] = await runKernel(dftKernel, [bins, scalar(5)], { attributes: { inverse: 1, onesided: 1 } });
    expectClose(odd, [1, 5, 1], [1.2, -0.0395095, 0.9909717, -1.7617921, 0.6103299], 1e-6);
    const [even] = await runKernel(dftKernel, [bins], { attributes: { inverse: 1, onesided: 1 } });
    expectClose(even, [1, 4, 1], [1.375, 0.625, -0.625, -0.375], 1e-6);
  });

  it('takes the axis as an input from opset 20 (default −2) and refuses the complex axis', async () => {
    const x = f32([1, 2, 3, 4], [1, 2, 2, 1]);
    const [byDefault] = await runKernel(dftKernel, [x], { opset: 20 });
    expectClose(byDefault, [1, 2, 2, 2], [3, 0, -1, 0, 7, 0, -1, 0], 1e-6);
    const [outer] = await runKernel(dftKernel, [x, undefined, scalar(1)], { opset: 20 });
    expectClose(outer, [1, 2, 2, 2], [4, 0, 6, 0, -2, 0, -2, 0], 1e-6);
    await expect(runKernel(dftKernel, [x, undefined, scalar(-1)], { opset: 20 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('STFT', () => {
  it('transforms windowed frames (onesided by default) like a naive per-frame DFT', async () => {
    const signal = Array.from(seeded(2 * 20, 9));
    const window = [0.1, 0.5, 1, 0.5, 0.1, 0];
    const [y] = await runKernel(stftKernel, [f32(signal, [2, 20, 1]), scalar(4), f32(window, [6])]);
    const frames = Math.floor((20 - 6) / 4) + 1;
    const expected: number[] = [];
    for (let b = 0; b < 2; b++) {
      for (let f = 0; f < frames; f++) {
        const frame = window.map((w, k) => w * signal[b * 20 + f * 4 + k]);
        const [er, ei] = naiveDft(frame, new Array(6).fill(0), 6, false);
        expected.push(...interleave(er.slice(0, 4), ei.slice(0, 4)));
      }
    }
    expectClose(y, [2, frames, 4, 2], expected, 1e-5);
  });

  it('takes frame_length without a window, two-sided, complex input', async () => {
    const re = Array.from(seeded(9, 1));
    const im = Array.from(seeded(9, 2));
    const [y] = await runKernel(stftKernel, [f32(interleave(re, im), [1, 9, 2]), scalar(3), undefined, scalar(5)], { attributes: { onesided: 0 } });
    const expected: number[] = [];
    for (let f = 0; f < 2; f++) {
      const [er, ei] = naiveDft(re.slice(f * 3, f * 3 + 5), im.slice(f * 3, f * 3 + 5), 5, false);
      expected.push(...interleave(er, ei));
    }
    expectClose(y, [1, 2, 5, 2], expected, 1e-5);
  });

  it('rejects inconsistent window/frame_length and frames longer than the signal', async () => {
    const s = f32(new Array(8).fill(1), [1, 8, 1]);
    await expect(runKernel(stftKernel, [s, scalar(2), f32([1, 1, 1], [3]), scalar(4)])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(runKernel(stftKernel, [s, scalar(2), undefined, scalar(9)])).rejects.toMatchObject({ code: 'RUNTIME' });
    await expect(runKernel(stftKernel, [s, scalar(0), undefined, scalar(4)])).rejects.toMatchObject({ code: 'RUNTIME' });
    await expect(runKernel(stftKernel, [s, scalar(2)])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('MelWeightMatrix', () => {
  it('matches the ONNX reference formula', async () => {
    // /usr/bin/python3 with the reference from onnx/backend/test/case/node/melweightmatrix.py:
    // mel(num_mel_bins=4, dft_length=32, sample_rate=16000, lower=100, upper=6000); rows 8–16 are zero.
    const top = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0, 0, 0, 1, 0, 0, 0, 2 / 3, 0, 0, 0, 1 / 3];
    const [y] = await runKernel(melWeightMatrixKernel, [scalar(4), scalar(32), scalar(16000), f32([100], []), f32([6000], [])]);
    expectClose(y, [17, 4], [...top, ...new Array(9 * 4).fill(0)], 1e-6);
  });

  it('rejects non-positive sizes and an empty band', async () => {
    await expect(runKernel(melWeightMatrixKernel, [scalar(0), scalar(32), scalar(16000), f32([0], []), f32([8000], [])])).rejects.toMatchObject({
      code: 'RUNTIME',
    });
    await expect(runKernel(melWeightMatrixKernel, [scalar(4), scalar(32), scalar(16000), f32([500], []), f32([500], [])])).rejects.toMatchObject({
      code: 'RUNTIME',
    });
  });
});
