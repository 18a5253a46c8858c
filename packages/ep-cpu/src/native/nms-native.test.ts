/**
 * The addon's NMS greedy pass against the TS kernel's: same selections for both box encodings, several
 * batches and classes, tied scores, NaN boxes, every kind of threshold and limit; then its argument checks.
 */
import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { loadNative } from './load-native.js';
import type { NativeBinding } from './binding.js';
import { nativeNmsKernels } from './nms-native.js';
import { nonMaxSuppressionKernel } from '../kernels/NonMaxSuppression.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const b = (native.ok && typeof native.binding.nmsSelect === 'function' ? native.binding : undefined) as Required<NativeBinding> | undefined;

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe.skipIf(!b)('native NonMaxSuppression', () => {
  const [def] = b ? nativeNmsKernels(b) : [];
  for (const center of [0, 1]) {
    for (const [B, C, S] of [[1, 1, 1], [2, 3, 50], [1, 2, 500], [2, 2, 0]]) {
      it(`selects as the TS kernel: center_point_box=${center}, ${B}×${C}×${S}`, async () => {
        const rand = random(B * 1000 + C * 100 + S + center);
        const boxes = Float32Array.from({ length: B * S * 4 }, () => Math.round(rand() * 60) / 2);
        if (S > 2) boxes[5] = NaN; // a NaN corner: its IoUs are NaN and suppress
        const scores = Float32Array.from({ length: B * C * S }, () => Math.round(rand() * 20) / 20);
        for (const [limit, iouT, scoreT] of [[5, 0.5, 0.2], [1000, 0.3, -1], [1, 0.7, 0], [0, 0.5, 0], [10, 0.5, 2], [3, 0, 0.5], [50, 1, 0.1]]) {
          const inputs = [
            new Tensor('float32', boxes, [B, S, 4]),
            new Tensor('float32', scores, [B, C, S]),
            new Tensor('int64', [BigInt(limit)], [1]),
            new Tensor('float32', [iouT], [1]),
            new Tensor('float32', [scoreT], [1]),
          ];
          const opts = { attributes: { center_point_box: center } };
          const [want] = await runKernel(nonMaxSuppressionKernel, inputs, opts);
          const [got] = await runKernel(def, inputs, opts);
          expect((got as Tensor).dims).toEqual((want as Tensor).dims);
          expect(Array.from((got as Tensor).data as BigInt64Array)).toEqual(Array.from((want as Tensor).data as BigInt64Array));
        }
      });
    }
  }

  it('rejects wrong lengths and indices', () => {
    const args = (): unknown[] => [Float64Array.of(0, 0, 1, 1, 0, 0, 1, 1), Float64Array.of(1, 1), Int32Array.of(1, 0), Int32Array.of(0, 2), 2, 1, 2, 0.5, new Int32Array(2), new Int32Array(1)];
    const call = (i: number, v: unknown) => () => {
      const a = args();
      a[i] = v;
      (b!.nmsSelect as (...x: unknown[]) => void)(...a);
    };
    expect(call(9, new Int32Array(1))).not.toThrow();
    expect(call(0, new Float64Array(7))).toThrow(/corners/);
    expect(call(0, new Float32Array(8))).toThrow(/Float64Array/);
    expect(call(1, new Float64Array(3))).toThrow(/areas/);
    expect(call(2, Int32Array.of(1, 2))).toThrow(/box indices/);
    expect(call(3, Int32Array.of(0, 3))).toThrow(/orderStarts/);
    expect(call(2, Int32Array.of(1, 0, 0))).toThrow(/orders/);
    expect(call(3, Int32Array.of(0))).toThrow(/orderStarts/);
    expect(call(8, new Int32Array(1))).toThrow(/kept/);
    expect(call(4, 3)).toThrow(/whole batches/);
  });
});
