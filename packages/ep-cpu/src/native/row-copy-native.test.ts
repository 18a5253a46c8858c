/**
 * The native Trilu (a zero fill and a copy per row) and ReverseSequence (a Gather of whole rows by a
 * computed row list) against the TS kernels, bit for bit: every dtype the addon moves, k far outside the
 * matrix, both axis orders, lengths 0 and T, ranks 2–4, sizes that split over two threads.
 */
import { describe, it } from 'vitest';
import { Tensor, type DataType } from '@switchyard/core';
import { loadNative } from './load-native.js';
import { compareDefs, defPair, expectBothThrow, int, int64, randomTensor, rng } from './native-harness.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && typeof native.binding.trilu === 'function' ? native.binding : undefined;

const DTYPES: DataType[] = ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'bool'];

describe.skipIf(!binding)('native Trilu and ReverseSequence vs the TS kernels', () => {
  it('Trilu: upper and lower, k inside and far outside, batches of matrices, every dtype', async () => {
    const pair = defPair(binding!, 'Trilu', 14, { everyBuild: false });
    const r = rng(601);
    for (let n = 0; n < 3 * DTYPES.length; n++) {
      const dims = [...Array.from({ length: n % 3 }, () => int(r, 1, 3)), int(r, 1, 7), int(r, 1, 7)];
      const k = [0, int(r, -8, 8), 2 ** 40, -(2 ** 40)][n % 4];
      const upper = n % 2;
      const kInput = n % 5 === 4 ? undefined : int64([k], []);
      await compareDefs(pair, [randomTensor(DTYPES[n % DTYPES.length], dims, r, true), kInput], { opset: 14, attributes: { upper } }, `${DTYPES[n % DTYPES.length]} [${dims}] k ${kInput ? k : 'none'} upper ${upper}`);
    }
  });

  it('Trilu: large matrices split over the team, empty ones, and rank 1 rejected', async () => {
    const pair = defPair(binding!, 'Trilu', 14, { everyBuild: false });
    const r = rng(602);
    await compareDefs(pair, [randomTensor('float32', [3, 300, 700], r), int64([-5], [])], { opset: 14, attributes: { upper: 0 } }, 'large lower');
    await compareDefs(pair, [randomTensor('int64', [700, 300], r), int64([17], [])], { opset: 14, attributes: { upper: 1 } }, 'large upper');
    await compareDefs(pair, [new Tensor('float32', new Float32Array(0), [2, 0, 5])], { opset: 14 }, 'no rows');
    await compareDefs(pair, [new Tensor('float32', new Float32Array(0), [4, 0])], { opset: 14 }, 'no columns');
    await expectBothThrow(pair, [randomTensor('float32', [5], r)], { opset: 14 }, 'rank 1');
  });

  it('ReverseSequence: both axis orders, lengths 0…T, inner dims of 0–2 axes, every dtype', async () => {
    const pair = defPair(binding!, 'ReverseSequence', 10, { everyBuild: false });
    const r = rng(603);
    for (let n = 0; n < 2 * DTYPES.length; n++) {
      const [B, T] = [int(r, 1, 5), int(r, 1, 6)];
      const batchAxis = n % 2;
      const inner = Array.from({ length: n % 3 }, () => int(r, 1, 4));
      const dims = batchAxis === 0 ? [B, T, ...inner] : [T, B, ...inner];
      const lens = Array.from({ length: B }, (_, b) => (b === 0 ? T : b === 1 ? 0 : int(r, 0, T)));
      const attributes = { batch_axis: batchAxis, time_axis: 1 - batchAxis };
      await compareDefs(pair, [randomTensor(DTYPES[n % DTYPES.length], dims, r, true), int64(lens)], { opset: 10, attributes }, `${DTYPES[n % DTYPES.length]} [${dims}] lens ${lens}`);
    }
  });

  it('ReverseSequence: a long time-major batch, and bad lengths rejected as the TS kernel does', async () => {
    const pair = defPair(binding!, 'ReverseSequence', 10, { everyBuild: false });
    const r = rng(604);
    const lens = Array.from({ length: 16 }, () => int(r, 0, 200));
    await compareDefs(pair, [randomTensor('float32', [200, 16, 96], r), int64(lens)], { opset: 10, attributes: { batch_axis: 1, time_axis: 0 } }, 'time-major');
    await compareDefs(pair, [randomTensor('float32', [16, 200, 96], r), int64(lens)], { opset: 10, attributes: { batch_axis: 0, time_axis: 1 } }, 'batch-major');
    await expectBothThrow(pair, [randomTensor('float32', [4, 3, 2], r), int64([1, 5, 2])], { opset: 10 }, 'a length past T');
    await expectBothThrow(pair, [randomTensor('float32', [4, 3, 2], r), int64([1, -1, 2])], { opset: 10 }, 'a negative length');
    await expectBothThrow(pair, [randomTensor('float32', [4, 3, 2], r), int64([1, 2])], { opset: 10 }, 'too few lengths');
  });
});
