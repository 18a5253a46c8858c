/**
 * The native float32 reductions, ArgMax/ArgMin and Softmax/LogSoftmax/Hardmax against the TS kernels on
 * random shapes and axes (attribute and input forms, keepdims, noop_with_empty_axes, both Softmax opset
 * forms), with NaN, ±∞ and ties, on every build of the loops at one and two threads.
 */
import { describe, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { loadNative } from './load-native.js';
import { compareDefs, defPair, int, int64, randomTensor, rng } from './native-harness.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && typeof native.binding.reduce === 'function' && typeof native.binding.softmax === 'function' ? native.binding : undefined;

const REDUCTIONS = ['ReduceSum', 'ReduceMean', 'ReduceSumSquare', 'ReduceL1', 'ReduceL2', 'ReduceLogSum', 'ReduceLogSumExp', 'ReduceMax', 'ReduceMin', 'ReduceProd'];

/** Values where a product of many stays finite, and sums positive enough for ReduceLogSum. */
function data(dims: number[], r: () => number, edges: boolean): Tensor {
  const t = randomTensor('float32', dims, r, false);
  const d = t.data as Float32Array;
  for (let i = 0; i < d.length; i++) {
    d[i] = 0.5 + r();
    if (edges && r() < 0.03) d[i] = [NaN, Infinity, -Infinity, -0][int(r, 0, 3)];
  }
  return t;
}

function randomAxes(r: () => number, rank: number): number[] {
  return Array.from({ length: rank }, (_, i) => i).filter(() => r() < 0.5).map((a) => (r() < 0.3 ? a - rank : a));
}

describe.skipIf(!binding)('native reductions vs the TS kernels', () => {
  it('every reduction over random axes: opset 13 attribute, opset 18 input, keepdims, empty axes', async () => {
    const r = rng(51);
    for (const op of REDUCTIONS) {
      const v13 = defPair(binding!, op, 13);
      const v18 = defPair(binding!, op, 18);
      for (let k = 0; k < 12; k++) {
        const rank = int(r, 1, 5);
        const dims = Array.from({ length: rank }, () => int(r, 1, 6));
        const axes = randomAxes(r, rank);
        const keepdims = k % 2;
        const x = data(dims, r, k % 3 === 0);
        const what = `${op} [${dims}] axes [${axes}] keepdims ${keepdims}`;
        // ReduceSum reads its axes from an input already at 13.
        if (op === 'ReduceSum') await compareDefs(v13, [x, axes.length ? int64(axes) : undefined], { opset: 13, attributes: { keepdims }, tol: 1e-5 }, what);
        else if (axes.length) await compareDefs(v13, [x], { opset: 13, attributes: { keepdims, axes }, tol: 1e-5 }, what);
        else await compareDefs(v13, [x], { opset: 13, attributes: { keepdims }, tol: 1e-5 }, what);
        await compareDefs(v18, [x, int64(axes)], { opset: 18, attributes: { keepdims, noop_with_empty_axes: k % 4 === 1 ? 1 : 0 }, tol: 1e-5 }, `${what} (18)`);
      }
    }
  });

  it('large reductions: rows, columns, a full reduce split over threads, a middle axis', async () => {
    const r = rng(52);
    const cases: Array<[number[], number[]]> = [[[128, 768], [1]], [[128, 768], [0]], [[64, 3000], [0, 1]], [[4, 300, 50], [1]], [[2, 64, 32, 32], [2, 3]], [[3, 40, 7, 20], [0, 2]]];
    for (const op of ['ReduceMean', 'ReduceMax', 'ReduceLogSumExp', 'ReduceL2']) {
      const pair = defPair(binding!, op, 18);
      for (const [dims, axes] of cases) await compareDefs(pair, [data(dims, r, false), int64(axes)], { opset: 18, tol: 1e-5 }, `${op} [${dims}] [${axes}]`);
    }
  });

  it('empty reductions give the identity (mean: NaN, max: -inf, log sum: -inf)', async () => {
    for (const op of REDUCTIONS) {
      const pair = defPair(binding!, op, 18);
      await compareDefs(pair, [new Tensor('float32', new Float32Array(0), [3, 0]), int64([1])], { opset: 18, tol: 0 }, `${op} over an empty axis`);
    }
  });
});

describe.skipIf(!binding)('native ArgMax / ArgMin vs the TS kernels', () => {
  it('random axes, keepdims and select_last_index, ties and NaNs', async () => {
    const r = rng(53);
    for (const op of ['ArgMax', 'ArgMin']) {
      const pair = defPair(binding!, op, 13);
      for (let k = 0; k < 40; k++) {
        const rank = int(r, 1, 4);
        const dims = Array.from({ length: rank }, () => int(r, 1, 40));
        const x = randomTensor('float32', dims, r);
        const d = x.data as Float32Array;
        // Few distinct values, so ties are common; some NaN and ±∞.
        for (let i = 0; i < d.length; i++) d[i] = r() < 0.05 ? [NaN, Infinity, -Infinity][int(r, 0, 2)] : int(r, -3, 3);
        const attributes = { axis: int(r, -rank, rank - 1), keepdims: k % 2, select_last_index: (k >> 1) % 2 };
        await compareDefs(pair, [x], { opset: 13, attributes }, `${op} [${dims}] ${JSON.stringify(attributes)}`);
      }
    }
  });
});

describe.skipIf(!binding)('native Softmax / LogSoftmax / Hardmax vs the TS kernels', () => {
  it('both opset forms on random axes, with large logits, -inf and NaN rows', async () => {
    const r = rng(54);
    for (const op of ['Softmax', 'LogSoftmax', 'Hardmax']) {
      for (const opset of [11, 13]) {
        const pair = defPair(binding!, op, opset);
        for (let k = 0; k < 16; k++) {
          const rank = int(r, 1, 4);
          const dims = Array.from({ length: rank }, () => int(r, 1, 24));
          const x = randomTensor('float32', dims, r);
          const d = x.data as Float32Array;
          const scale = [1, 30, 200][k % 3];
          for (let i = 0; i < d.length; i++) d[i] = (r() * 2 - 1) * scale;
          if (k % 4 === 3) for (let i = 0; i < d.length; i += 3) d[i] = [NaN, -Infinity, Infinity][i % 3];
          const axis = int(r, -rank, rank - 1);
          await compareDefs(pair, [x], { opset, attributes: { axis }, tol: 2e-6 }, `${op}-${opset} [${dims}] axis ${axis}`);
        }
      }
    }
  });

  it('the sizes of real models: attention rows, a segmentation head along the channels', async () => {
    const r = rng(55);
    const pair = defPair(binding!, 'Softmax', 13);
    await compareDefs(pair, [randomTensor('float32', [1, 12, 64, 64], r)], { opset: 13, tol: 2e-6 }, 'attention');
    await compareDefs(pair, [randomTensor('float32', [1, 21, 40, 52], r)], { opset: 13, attributes: { axis: 1 }, tol: 2e-6 }, 'channels');
    await compareDefs(defPair(binding!, 'LogSoftmax', 13), [randomTensor('float32', [3, 1000], r)], { opset: 13, tol: 2e-6 }, 'log rows');
  });
});
