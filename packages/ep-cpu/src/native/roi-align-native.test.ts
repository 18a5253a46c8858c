/**
 * The addon's RoiAlign against the TS kernel, bit for bit: avg and max, both coordinate modes (and
 * opset 10's fixed one), fixed and adaptive sampling ratios, regions inside, straddling, outside,
 * reversed, zero-sized and NaN; then its argument checks.
 */
import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { loadNative } from './load-native.js';
import type { NativeBinding } from './binding.js';
import { nativeRoiAlignKernels } from './roi-align-native.js';
import { roiAlignKernel } from '../kernels/RoiAlign.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const b = (native.ok && typeof native.binding.roiAlign === 'function' ? native.binding : undefined) as Required<NativeBinding> | undefined;

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe.skipIf(!b)('native RoiAlign', () => {
  const [def] = b ? nativeRoiAlignKernels(b, false) : [];
  const xDims = [2, 5, 13, 17];
  const rand = random(5);
  const x = new Tensor('float32', Float32Array.from({ length: 2 * 5 * 13 * 17 }, () => rand() * 4 - 2), xDims);
  const boxes = [1, 1, 6, 5, -3, -2, 4, 12, 18, 14, 25, 20, 3, 3, 3, 3, 7.5, 6.2, 2.1, 1.3, 0, 0, 16, 12, NaN, 1, 4, 4];
  for (let i = 0; i < 20; i++) {
    const [x0, y0] = [rand() * 18 - 2, rand() * 14 - 2];
    boxes.push(x0, y0, x0 + rand() * 10, y0 + rand() * 8);
  }
  const R = boxes.length / 4;
  const rois = new Tensor('float32', Float32Array.from(boxes), [R, 4]);
  const batch = new Tensor('int64', BigInt64Array.from({ length: R }, (_, i) => BigInt(i % 2)), [R]);
  for (const opset of [10, 16]) {
    for (const mode of ['avg', 'max']) {
      for (const ctm of opset >= 16 ? ['half_pixel', 'output_half_pixel'] : ['(fixed)']) {
        for (const [outH, outW, ratio, scale] of [[2, 3, 2, 1], [7, 7, 0, 1], [1, 4, 0, 0.5], [4, 2, 1, 1.7]]) {
          it(`opset ${opset}, ${mode}, ${ctm}, out ${outH}x${outW}, ratio ${ratio}, scale ${scale}`, async () => {
            const attributes: Record<string, number | string | { float: number }> = { mode, output_height: outH, output_width: outW, sampling_ratio: ratio, spatial_scale: { float: scale } };
            if (opset >= 16) attributes.coordinate_transformation_mode = ctm;
            const [want] = await runKernel(roiAlignKernel, [x, rois, batch], { opset, attributes });
            const [got] = await runKernel(def, [x, rois, batch], { opset, attributes });
            expect((got as Tensor).dims).toEqual((want as Tensor).dims);
            expect(Array.from((got as Tensor).data as Float32Array)).toEqual(Array.from((want as Tensor).data as Float32Array));
          });
        }
      }
    }
  }

  it('leaves bad batch indices to the TS kernel and takes zero regions', async () => {
    const one = new Tensor('float32', Float32Array.of(0, 0, 4, 4), [1, 4]);
    await expect(runKernel(def, [x, one, new Tensor('int64', [2n], [1])], { opset: 16 })).rejects.toThrow(/batch index/);
    const [y] = await runKernel(def, [x, new Tensor('float32', new Float32Array(0), [0, 4]), new Tensor('int64', new BigInt64Array(0), [0])], { opset: 16 });
    expect((y as Tensor).dims).toEqual([0, 5, 1, 1]);
  });

  it('rejects wrong lengths and out-of-range arguments', () => {
    const f = (n: number) => new Float32Array(n);
    const rois2 = Float32Array.of(0, 0, 2, 1, 1, 0, 3, 2);
    const call = (over: Partial<Record<number, unknown>>) => {
      const args: unknown[] = [f(24), rois2, Int32Array.of(0, 0), f(16), 1, 2, 3, 4, 2, 2, 2, 1, false, true, 1];
      for (const [i, v] of Object.entries(over)) args[Number(i)] = v;
      return () => (b!.roiAlign as (...a: unknown[]) => void)(...args);
    };
    expect(call({})).not.toThrow();
    expect(call({ 0: f(23) })).toThrow(/x/);
    expect(call({ 1: f(7) })).toThrow(/rois/);
    expect(call({ 2: Int32Array.of(0) })).toThrow(/batchIndices/);
    expect(call({ 2: Int32Array.of(0, 1) })).toThrow(/batch index 1/);
    expect(call({ 2: new BigInt64Array(2) })).toThrow(/Int32Array/);
    expect(call({ 3: f(15) })).toThrow(/y/);
    expect(call({ 10: -1 })).toThrow(/samplingRatio/);
    expect(call({ 10: 0, 1: Float32Array.of(0, 0, 1e30, 1e30, 0, 0, 1, 1) })).toThrow(/too many samples/);
    expect(call({ 12: 1 })).toThrow(/booleans/);
  });
});
