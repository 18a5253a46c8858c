import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { iota, plain, rng } from '../tensor-ops/test-util.js';
import { einsumKernel } from './Einsum.js';

const f64 = (data: number[], dims: number[]) => new Tensor('float64', Float64Array.from(data), dims);

function randomTensor(dims: number[], next: (n: number) => number): Tensor<'float64'> {
  const n = dims.reduce((a, b) => a * b, 1);
  return f64(Array.from({ length: n }, () => next(7) - 3), dims);
}

const at = (t: Tensor, idx: number[]) => {
  let off = 0;
  idx.forEach((i, k) => (off = off * t.dims[k] + i));
  return (t.data as Float64Array)[off];
};

describe('Einsum', () => {
  const next = rng(5);

  it('batch matmul matches a direct loop', async () => {
    const [a, b] = [randomTensor([2, 3, 4], next), randomTensor([2, 4, 5], next)];
    const [out] = await runKernel(einsumKernel, [a, b], { attributes: { equation: 'bij,bjk->bik' } });
    const o = out as Tensor;
    expect(o.dims).toEqual([2, 3, 5]);
    for (let bb = 0; bb < 2; bb++)
      for (let i = 0; i < 3; i++)
        for (let k = 0; k < 5; k++) {
          let s = 0;
          for (let j = 0; j < 4; j++) s += at(a, [bb, i, j]) * at(b, [bb, j, k]);
          expect(at(o, [bb, i, k])).toBeCloseTo(s, 10);
        }
  });

  it('implicit output, diagonals, ellipsis broadcasting, three operands', async () => {
    const m = f64(iota(9), [3, 3]);
    expect(plain((await runKernel(einsumKernel, [m], { attributes: { equation: 'ii' } }))[0])).toEqual({ dims: [], data: [12] });
    expect(plain((await runKernel(einsumKernel, [m], { attributes: { equation: 'ii->i' } }))[0]).data).toEqual([0, 4, 8]);
    expect(plain((await runKernel(einsumKernel, [m], { attributes: { equation: 'ji' } }))[0]).data).toEqual([0, 3, 6, 1, 4, 7, 2, 5, 8]);
    // '...' broadcasts a [1,3] batch against a [2,3] batch.
    const [x, y] = [f64([1, 2, 3], [1, 3]), f64([1, 1, 1, 2, 2, 2], [2, 3])];
    expect(plain((await runKernel(einsumKernel, [x, y], { attributes: { equation: '...i,...i->...' } }))[0])).toEqual({ dims: [2], data: [6, 12] });
    const v = f64([1, 2], [2]);
    const [t] = await runKernel(einsumKernel, [v, v, v], { attributes: { equation: 'i,j,k->ijk' } });
    expect(plain(t).data).toEqual([1, 2, 2, 4, 2, 4, 4, 8]);
  });

  it('int32 and float32 operands; bad equations are clear errors', async () => {
    const a = new Tensor('int32', Int32Array.from([1, 2, 3]), [3]);
    expect(plain((await runKernel(einsumKernel, [a, a], { attributes: { equation: 'i,i' } }))[0]).data).toEqual([14]);
    await expect(runKernel(einsumKernel, [a], { attributes: { equation: 'ij->i' } })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(einsumKernel, [a], { attributes: { equation: 'i->k' } })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
  });
});
