/**
 * The native ScatterElements (and Scatter) and GatherElements against the TS kernels, bit for bit: every
 * axis of ranks 1–5, indices smaller than data, repeated positions under every reduction, every dtype the
 * addon moves, sizes that split over two threads (along the last axis, and along axis 0 where one line
 * of columns is split into chunks). Out-of-range indices are coded errors naming the first one.
 */
import { describe, expect, it } from 'vitest';
import { SwitchyardError, Tensor, type DataType } from '@switchyard/core';
import { loadNative } from './load-native.js';
import { compareDefs, defPair, int, randomTensor, rng, runDef } from './native-harness.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && typeof native.binding.scatterElements === 'function' ? native.binding : undefined;

const DTYPES: DataType[] = ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'bool'];

function indexTensor(type: 'int32' | 'int64', values: number[], dims: number[]): Tensor {
  return type === 'int64' ? new Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims) : new Tensor('int32', Int32Array.from(values), dims);
}

function randomCase(r: () => number, rank: number, maxDim: number) {
  const dims = Array.from({ length: rank }, () => int(r, 1, maxDim));
  const axis = int(r, -rank, rank - 1);
  const a = axis < 0 ? axis + rank : axis;
  const idxDims = dims.map((d, i) => (i === a ? int(r, 1, d + 2) : int(r, 1, d)));
  const n = idxDims.reduce((x, y) => x * y, 1);
  const values = Array.from({ length: n }, () => int(r, -dims[a], dims[a] - 1));
  return { dims, axis, idxDims, values };
}

describe.skipIf(!binding)('native ScatterElements and GatherElements vs the TS kernels', () => {
  it('ScatterElements: every reduction, every dtype, ranks 1–5, repeated positions', async () => {
    const pair = defPair(binding!, 'ScatterElements', 18, { everyBuild: false });
    const r = rng(401);
    for (const reduction of ['none', 'add', 'mul', 'max', 'min']) {
      for (let k = 0; k < 2 * DTYPES.length; k++) {
        const c = randomCase(r, 1 + (k % 5), 5);
        const dtype = DTYPES[k % DTYPES.length];
        const inputs = [randomTensor(dtype, c.dims, r, true), indexTensor(k % 3 ? 'int64' : 'int32', c.values, c.idxDims), randomTensor(dtype, c.idxDims, r, true)];
        await compareDefs(pair, inputs, { opset: 18, attributes: { axis: c.axis, reduction } }, `${reduction} ${dtype} [${c.dims}] axis ${c.axis} [${c.idxDims}]`);
      }
    }
  });

  it('ScatterElements at sizes split over the team: along the last axis and along axis 0', async () => {
    const pair = defPair(binding!, 'ScatterElements', 18, { everyBuild: false });
    const r = rng(402);
    const data = randomTensor('float32', [96, 700], r);
    for (const [axis, idxDims] of [[1, [96, 300]], [0, [300, 700]], [0, [40, 650]], [-1, [50, 2000]]] as const) {
      const d = data.dims[axis < 0 ? axis + 2 : axis];
      const n = idxDims[0] * idxDims[1];
      const idx = indexTensor('int64', Array.from({ length: n }, () => int(r, -d, d - 1)), [...idxDims]);
      for (const reduction of ['none', 'add', 'max']) {
        await compareDefs(pair, [data, idx, randomTensor('float32', [...idxDims], r)], { opset: 18, attributes: { axis, reduction } }, `${reduction} axis ${axis} [${idxDims}]`);
      }
    }
    const rank4 = randomTensor('int32', [3, 40, 5, 60], r);
    const idx4 = indexTensor('int32', Array.from({ length: 3 * 70 * 5 * 50 }, () => int(r, 0, 39)), [3, 70, 5, 50]);
    await compareDefs(pair, [rank4, idx4, randomTensor('int32', [3, 70, 5, 50], r)], { opset: 18, attributes: { axis: 1, reduction: 'mul' } }, 'rank 4, axis 1, mul');
  });

  it('Scatter (opset 9) and strings take their paths', async () => {
    const pair = defPair(binding!, 'Scatter', 9, { everyBuild: false });
    const r = rng(403);
    const c = randomCase(r, 3, 6);
    await compareDefs(pair, [randomTensor('float32', c.dims, r), indexTensor('int64', c.values, c.idxDims), randomTensor('float32', c.idxDims, r)], { opset: 9, attributes: { axis: c.axis } }, 'Scatter');
    const s = new Tensor('string', ['a', 'b', 'c'], [3]);
    const [y] = await runDef(defPair(binding!, 'ScatterElements', 18).native, [s, indexTensor('int64', [2], [1]), new Tensor('string', ['z'], [1])], { opset: 18 });
    expect(Array.from((y as Tensor).data as string[])).toEqual(['a', 'b', 'z']);
  });

  it('GatherElements: every dtype, ranks 1–5, large rows along the last axis and along axis 0', async () => {
    const pair = defPair(binding!, 'GatherElements', 13, { everyBuild: false });
    const r = rng(404);
    for (let k = 0; k < 3 * DTYPES.length; k++) {
      const c = randomCase(r, 1 + (k % 5), 5);
      const dtype = DTYPES[k % DTYPES.length];
      await compareDefs(pair, [randomTensor(dtype, c.dims, r, true), indexTensor(k % 2 ? 'int64' : 'int32', c.values, c.idxDims)], { opset: 13, attributes: { axis: c.axis } }, `${dtype} [${c.dims}] axis ${c.axis}`);
    }
    const data = randomTensor('float32', [64, 900], r);
    for (const axis of [0, 1]) {
      const idx = indexTensor('int64', Array.from({ length: 64 * 900 }, () => int(r, -data.dims[axis], data.dims[axis] - 1)), [64, 900]);
      await compareDefs(pair, [data, idx], { opset: 13, attributes: { axis } }, `large, axis ${axis}`);
    }
  });

  it('out-of-range indices are INVALID_ARGUMENT errors naming the first bad index in row-major order', async () => {
    const r = rng(405);
    const data = randomTensor('float32', [64, 900], r);
    const values = Array.from({ length: 64 * 900 }, () => int(r, 0, 899));
    values[40 * 900 + 7] = -901;
    values[50 * 900 + 3] = 900;
    const idx = indexTensor('int64', values, [64, 900]);
    const scatter = defPair(binding!, 'ScatterElements', 18).native;
    const gather = defPair(binding!, 'GatherElements', 13).native;
    for (const threads of [1, 2]) {
      await expect(runDef(gather, [data, idx], { opset: 13, attributes: { axis: 1 }, threads })).rejects.toSatisfy(
        (e: unknown) => e instanceof SwitchyardError && e.code === 'INVALID_ARGUMENT' && /index -901 is out of bounds for a dimension of size 900/.test(e.message),
      );
      await expect(runDef(scatter, [data, idx, randomTensor('float32', [64, 900], r)], { opset: 18, attributes: { axis: 1, reduction: 'add' }, threads })).rejects.toSatisfy(
        (e: unknown) => e instanceof SwitchyardError && e.code === 'INVALID_ARGUMENT' && /index -901 is out of bounds/.test(e.message),
      );
    }
  });
});
