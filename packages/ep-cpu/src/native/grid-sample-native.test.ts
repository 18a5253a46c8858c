/**
 * The addon's GridSample against the TS kernel, bit for bit: every mode × padding × align_corners at
 * opsets 16 and 20, image sizes down to 1×1, grids far outside [−1, 1] and with NaN entries, sizes
 * that split over threads; then its argument checks.
 */
import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { loadNative } from './load-native.js';
import type { NativeBinding } from './binding.js';
import { nativeGridSampleKernels } from './grid-sample-native.js';
import { gridSampleKernel } from '../kernels/GridSample.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const b = (native.ok && typeof native.binding.gridSample === 'function' ? native.binding : undefined) as Required<NativeBinding> | undefined;

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const SHAPES = [
  { x: [1, 1, 1, 1], out: [2, 3] },
  { x: [2, 3, 5, 7], out: [4, 6] },
  { x: [1, 16, 20, 24], out: [30, 40] },
];

describe.skipIf(!b)('native GridSample', () => {
  const [def] = b ? nativeGridSampleKernels(b, false) : [];
  for (const opset of [16, 20]) {
    for (const mode of opset >= 20 ? ['linear', 'nearest', 'cubic'] : ['bilinear', 'nearest', 'bicubic']) {
      for (const padding of ['zeros', 'border', 'reflection']) {
        for (const align of [0, 1]) {
          it(`matches the TS kernel: opset ${opset}, ${mode}, ${padding}, align_corners=${align}`, async () => {
            const rand = random(opset + align);
            for (const { x: xDims, out } of SHAPES) {
              const x = Float32Array.from({ length: xDims.reduce((p, q) => p * q, 1) }, () => rand() * 4 - 2);
              const gDims = [xDims[0], ...out, 2];
              const g = Float32Array.from({ length: gDims.reduce((p, q) => p * q, 1) }, () => rand() * 6 - 3);
              g[1] = NaN; // a NaN coordinate reads nothing in zeros mode and whatever the TS kernel reads otherwise
              const inputs = [new Tensor('float32', x, xDims), new Tensor('float32', g, gDims)];
              const opts = { opset, attributes: { mode, padding_mode: padding, align_corners: align } };
              const [want] = await runKernel(gridSampleKernel, inputs, opts);
              const [got] = await runKernel(def, inputs, opts);
              expect((got as Tensor).dims).toEqual((want as Tensor).dims);
              expect(Array.from((got as Tensor).data as Float32Array)).toEqual(Array.from((want as Tensor).data as Float32Array));
            }
          });
        }
      }
    }
  }

  it('leaves 5-D input and bad attributes to the TS kernel', async () => {
    const x = new Tensor('float32', new Float32Array(2 * 2 * 2), [1, 1, 2, 2, 2]);
    const g = new Tensor('float32', new Float32Array(3), [1, 1, 1, 1, 3]);
    expect((await runKernel(def, [x, g], { opset: 20 }))[0]).toMatchObject({ dims: [1, 1, 1, 1, 1] });
    const x4 = new Tensor('float32', new Float32Array(4), [1, 1, 2, 2]);
    const g4 = new Tensor('float32', new Float32Array(2), [1, 1, 1, 2]);
    await expect(runKernel(def, [x4, g4], { opset: 16, attributes: { mode: 'linear' } })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
  });

  it('rejects wrong lengths and out-of-range arguments', () => {
    const f = (n: number) => new Float32Array(n);
    expect(() => b!.gridSample(f(24), f(12), f(12), 1, 2, 3, 4, 2, 3, 0, 0, false, 1)).not.toThrow();
    expect(() => b!.gridSample(f(23), f(12), f(12), 1, 2, 3, 4, 2, 3, 0, 0, false, 1)).toThrow(/x/);
    expect(() => b!.gridSample(f(24), f(11), f(12), 1, 2, 3, 4, 2, 3, 0, 0, false, 1)).toThrow(/grid/);
    expect(() => b!.gridSample(f(24), f(12), f(11), 1, 2, 3, 4, 2, 3, 0, 0, false, 1)).toThrow(/y/);
    expect(() => b!.gridSample(f(24), f(12), f(12), 1, 2, 3, 4, 2, 3, 3, 0, false, 1)).toThrow(/mode/);
    expect(() => b!.gridSample(f(24), f(12), f(12), 1, 2, 3, 4, 2, 3, 0, -1, false, 1)).toThrow(/padding/);
    expect(() => b!.gridSample(f(24), f(12), f(12), 1, 2, 3, 4, 2, 3, 0, 0, 1 as unknown as boolean, 1)).toThrow(/alignCorners/);
    expect(() => b!.gridSample(new Float64Array(24) as unknown as Float32Array, f(12), f(12), 1, 2, 3, 4, 2, 3, 0, 0, false, 1)).toThrow();
  });
});
