/**
 * 2-D max pooling on channel-blocked tensors (the addon's own loop, blocked_max_pool.cc) against
 * oneDNN's pooling on the same data in NCHW: kernels, strides, asymmetric and ceil-mode padding,
 * channel counts that leave padding lanes, batches, both blocks and thread counts.
 */
import { describe, expect, it } from 'vitest';
import type { ChannelBlock, PoolPrimitiveOptions } from './binding.js';
import { blockedDims, fromBlocked, logicalDims, toBlocked } from './channel-blocked.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && native.binding.PoolPrimitive && native.binding.preferredChannelBlock ? native.binding : undefined;
const size = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

type Window = Omit<PoolPrimitiveOptions, 'inputDims' | 'kind' | 'threads' | 'block'>;

describe.skipIf(!binding)('blocked max pooling', () => {
  const b = binding!;
  const cases: [number[], Window][] = [
    [[1, 64, 15, 15], { kernel: [3, 3], strides: [2, 2] }],
    [[2, 20, 9, 7], { kernel: [3, 3], strides: [2, 2], padsBegin: [1, 1], padsEnd: [1, 1] }],
    // ceil_mode arrives as extra end padding; asymmetric pads and a non-square window.
    [[1, 24, 10, 11], { kernel: [3, 2], strides: [2, 2], padsBegin: [0, 1], padsEnd: [2, 1] }],
    [[1, 3, 5, 5], { kernel: [2, 2], strides: [1, 1] }],
    [[1, 40, 6, 6], { kernel: [6, 6] }],
  ];
  for (const block of [8, 16] as ChannelBlock[]) {
    for (const [x, window] of cases) {
      for (const threads of [1, 2]) {
        it(`matches NCHW pooling: X [${x.join(', ')}] kernel [${window.kernel.join(', ')}], block ${block}, ${threads} thread(s)`, () => {
          // Negative values too, so padding taken as 0 would show.
          const xData = seededFloats(size(x), 7, 3, -1);
          const plain = new b.PoolPrimitive!({ inputDims: x, kind: 'max', ...window, threads });
          const expected = new Float32Array(size(plain.outputDims));
          plain.runSync(xData, expected);
          const padded = logicalDims(blockedDims(x, block), block);
          const pool = new b.PoolPrimitive!({ inputDims: padded, kind: 'max', ...window, threads, block });
          try {
            expect(pool.implementation).toBe('switchyard:blocked_max');
            const y = new Float32Array(size(blockedDims(pool.outputDims, block))).fill(Number.NaN);
            pool.runSync(toBlocked(xData, x, block), y);
            expect(Array.from(fromBlocked(y, plain.outputDims, block))).toEqual(Array.from(expected));
            // Padding lanes (C not a multiple of the block) stay zero: the next blocked conv relies on it.
            const lanes = Array.from(y).filter((_, i) => i % block >= (x[1] % block || block) && Math.floor(i / (size(pool.outputDims.slice(2)) * block)) % Math.ceil(x[1] / block) === Math.ceil(x[1] / block) - 1);
            expect(lanes.every((v) => v === 0)).toBe(true);
          } finally {
            plain.dispose();
            pool.dispose();
          }
        });
      }
    }
  }

  it('leaves average pooling to oneDNN', () => {
    const pool = new b.PoolPrimitive!({ inputDims: [1, 16, 6, 6], kind: 'avgExcludePad', kernel: [2, 2], strides: [2, 2], block: 8 });
    expect(pool.implementation).not.toBe('switchyard:blocked_max');
    pool.dispose();
  });
});
