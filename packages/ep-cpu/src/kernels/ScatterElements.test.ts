/**
 * The TS GatherElements and ScatterElements kernels against per-element references (each index's
 * coordinates by division, reductions in BigInt or double): every axis of ranks 1–4, indices smaller than
 * data, negative and repeated indices, every reduction on every dtype the kernels declare.
 */
import { describe, expect, it } from 'vitest';
import { Tensor, float16BitsToFloat32, float32ToFloat16Bits, bfloat16BitsToFloat32, float32ToBfloat16Bits, type DataType } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { gatherElementsKernel } from './GatherElements.js';
import { scatterElementsKernel } from './ScatterElements.js';
import { scatterKernel } from './Scatter.js';
import { expectIdentical, int, randomTensor, rng } from '../native/native-harness.test-util.js';

type Value = number | bigint | string;

/** data's flat offset for each element of indices (the axis coordinate from the index). */
function targets(dataDims: readonly number[], idxDims: readonly number[], idx: ArrayLike<number | bigint>, axis: number): number[] {
  const n = idxDims.reduce((a, b) => a * b, 1);
  return Array.from({ length: n }, (_, k) => {
    let rem = k;
    let off = 0;
    let stride = 1;
    for (let i = idxDims.length - 1; i >= 0; i--) {
      let c = rem % idxDims[i];
      rem = Math.floor(rem / idxDims[i]);
      if (i === axis) {
        const v = Number(idx[k]);
        c = v < 0 ? v + dataDims[i] : v;
      }
      off += c * stride;
      stride *= dataDims[i];
    }
    return off;
  });
}

const WIDTH: Partial<Record<DataType, [number, boolean]>> = {
  int8: [8, true], uint8: [8, false], int16: [16, true], uint16: [16, false], int32: [32, true], uint32: [32, false], int64: [64, true], uint64: [64, false],
};

/** The reference's reduction: integers exactly in BigInt then wrapped, floats in double, bool as truth. */
function combineRef(reduction: string, type: DataType, a: Value, b: Value): Value {
  const pick = (x: number | bigint, y: number | bigint): number | bigint => {
    if (reduction === 'add') return (x as number) + (y as number);
    if (reduction === 'mul') return (x as number) * (y as number);
    if (reduction === 'max') return x >= y ? x : y;
    return x <= y ? x : y;
  };
  const w = WIDTH[type];
  if (w) {
    const r = pick(BigInt(a as number), BigInt(b as number)) as bigint;
    const wrapped = w[1] ? BigInt.asIntN(w[0], r) : BigInt.asUintN(w[0], r);
    return w[0] === 64 ? wrapped : Number(wrapped);
  }
  if (type === 'bool') return pick(a as number, b as number) ? 1 : 0;
  if (type === 'float16') return float32ToFloat16Bits(pick(float16BitsToFloat32(a as number), float16BitsToFloat32(b as number)) as number);
  if (type === 'bfloat16') return float32ToBfloat16Bits(pick(bfloat16BitsToFloat32(a as number), bfloat16BitsToFloat32(b as number)) as number);
  return pick(a as number, b as number);
}

function gatherRef(data: Tensor, idx: Tensor, axis: number): Tensor {
  const at = targets(data.dims, idx.dims, idx.data as ArrayLike<number>, axis);
  const out = Tensor.zeros(data.type, idx.dims);
  at.forEach((off, k) => ((out.data as Value[])[k] = (data.data as Value[])[off]));
  return out;
}

function scatterRef(data: Tensor, idx: Tensor, upd: Tensor, axis: number, reduction: string): Tensor {
  const at = targets(data.dims, idx.dims, idx.data as ArrayLike<number>, axis);
  const out = Tensor.zeros(data.type, data.dims);
  const d = out.data as Value[];
  for (let i = 0; i < data.size; i++) d[i] = (data.data as Value[])[i];
  at.forEach((off, k) => (d[off] = reduction === 'none' ? (upd.data as Value[])[k] : combineRef(reduction, data.type, d[off], (upd.data as Value[])[k])));
  return out;
}

function indexTensor(type: 'int32' | 'int64', values: number[], dims: number[]): Tensor {
  return type === 'int64' ? new Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims) : new Tensor('int32', Int32Array.from(values), dims);
}

/** A random case: data dims, an axis (maybe negative), index dims no larger off the axis, values in range. */
function randomCase(r: () => number, rank: number, repeats: boolean) {
  const dims = Array.from({ length: rank }, () => int(r, 1, 5));
  const axis = int(r, -rank, rank - 1);
  const a = axis < 0 ? axis + rank : axis;
  const idxDims = dims.map((d, i) => (i === a ? int(r, 1, repeats ? 7 : d) : int(r, 1, d)));
  const n = idxDims.reduce((x, y) => x * y, 1);
  const values = Array.from({ length: n }, () => int(r, -dims[a], dims[a] - 1));
  return { dims, axis, a, idxDims, values };
}

const DTYPES: DataType[] = ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'bool'];

describe('GatherElements / ScatterElements (TS) against per-element references', () => {
  it('GatherElements on every axis of ranks 1–4, int32 and int64 indices, every dtype', async () => {
    const r = rng(311);
    for (let k = 0; k < 80; k++) {
      const c = randomCase(r, 1 + (k % 4), true);
      const dtype = DTYPES[k % DTYPES.length];
      const data = randomTensor(dtype, c.dims, r, true);
      const idx = indexTensor(k % 2 ? 'int32' : 'int64', c.values, c.idxDims);
      const [y] = await runKernel(gatherElementsKernel, [data, idx], { attributes: { axis: c.axis } });
      expectIdentical(y, gatherRef(data, idx, c.a), `${dtype} [${c.dims}] axis ${c.axis} idx [${c.idxDims}]`);
    }
  });

  it('ScatterElements: every reduction on every dtype, repeated positions in order', async () => {
    const r = rng(312);
    for (const reduction of ['none', 'add', 'mul', 'max', 'min']) {
      for (let k = 0; k < DTYPES.length * 3; k++) {
        // Repeated positions need more indices than the axis has: index dims may pass data's on the axis.
        const c = randomCase(r, 1 + (k % 4), true);
        const dtype = DTYPES[k % DTYPES.length];
        const data = randomTensor(dtype, c.dims, r, true);
        const upd = randomTensor(dtype, c.idxDims, r, true);
        const idx = indexTensor(k % 2 ? 'int32' : 'int64', c.values, c.idxDims);
        const [y] = await runKernel(scatterElementsKernel, [data, idx, upd], { opset: 18, attributes: { axis: c.axis, reduction } });
        expectIdentical(y, scatterRef(data, idx, upd, c.a, reduction), `${reduction} ${dtype} [${c.dims}] axis ${c.axis} idx [${c.idxDims}] ${c.values}`);
      }
    }
  });

  it('32-bit products wrap as integers do (no rounding through a double)', async () => {
    const data = new Tensor('int32', Int32Array.of(2 ** 30 + 3, 7), [2]);
    const upd = new Tensor('int32', Int32Array.of(2 ** 30 + 5), [1]);
    const [y] = await runKernel(scatterElementsKernel, [data, indexTensor('int64', [0], [1]), upd], { opset: 18, attributes: { reduction: 'mul' } });
    expect(Array.from((y as Tensor).data as Int32Array)).toEqual([Number(BigInt.asIntN(32, BigInt(2 ** 30 + 3) * BigInt(2 ** 30 + 5))), 7]);
  });

  it('strings, Scatter (opset 9), empty indices, and the input left alone', async () => {
    const s = new Tensor('string', ['a', 'b', 'c', 'd'], [2, 2]);
    const [g] = await runKernel(gatherElementsKernel, [s, indexTensor('int64', [1, 0], [1, 2])], { attributes: { axis: 0 } });
    expect(Array.from((g as Tensor).data as string[])).toEqual(['c', 'b']);
    const [sc] = await runKernel(scatterKernel, [s, indexTensor('int32', [1, -2], [2, 1]), new Tensor('string', ['x', 'y'], [2, 1])], { opset: 9, attributes: { axis: 1 } });
    expect(Array.from((sc as Tensor).data as string[])).toEqual(['a', 'x', 'y', 'd']);
    const data = randomTensor('float32', [3, 4], rng(5));
    const before = Float32Array.from(data.data as Float32Array);
    const [e] = await runKernel(scatterElementsKernel, [data, indexTensor('int64', [], [3, 0]), new Tensor('float32', new Float32Array(0), [3, 0])], { attributes: { axis: 1 } });
    expect(Array.from((e as Tensor).data as Float32Array)).toEqual(Array.from(before));
    expect(Array.from(data.data as Float32Array)).toEqual(Array.from(before));
    const [ge] = await runKernel(gatherElementsKernel, [data, indexTensor('int32', [], [0, 4])], { attributes: { axis: 0 } });
    expect([...(ge as Tensor).dims]).toEqual([0, 4]);
  });

  it('out-of-range indices and mismatched shapes are clear errors', async () => {
    const data = randomTensor('float32', [3, 4], rng(6));
    for (const bad of [4, -5]) {
      await expect(runKernel(gatherElementsKernel, [data, indexTensor('int64', [0, bad], [1, 2])], { attributes: { axis: 1 } })).rejects.toThrow(`index ${bad} is out of bounds for a dimension of size 4`);
      const upd = new Tensor('float32', Float32Array.of(1, 2), [1, 2]);
      await expect(runKernel(scatterElementsKernel, [data, indexTensor('int32', [0, bad], [1, 2]), upd], { attributes: { axis: 1 } })).rejects.toThrow(`index ${bad} is out of bounds`);
    }
    await expect(runKernel(gatherElementsKernel, [data, indexTensor('int64', [0], [1])], { attributes: { axis: 0 } })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(gatherElementsKernel, [data, indexTensor('int64', [0, 0, 0, 0, 0], [1, 5])], { attributes: { axis: 0 } })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    const upd = new Tensor('float32', Float32Array.of(1), [1, 1]);
    await expect(runKernel(scatterElementsKernel, [data, indexTensor('int64', [0, 0], [1, 2]), upd], { attributes: { axis: 1 } })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(scatterElementsKernel, [data, indexTensor('int64', [0], [1, 1]), upd], { opset: 18, attributes: { reduction: 'avg' } })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
  });
});
