/** Reductions, ArgMax/ArgMin and CumSum against naive references. */
import { describe, expect, it } from 'vitest';
import { SwitchyardError, Tensor, type DataType, type KernelDef } from '@switchyard/core';
import { runKernel, type RunKernelOptions } from '@switchyard/core/testing';
import { argMaxKernel } from '../kernels/ArgMax.js';
import { argMinKernel } from '../kernels/ArgMin.js';
import { cumSumKernel } from '../kernels/CumSum.js';
import { reduceLogSumExpKernel } from '../kernels/ReduceLogSumExp.js';
import { reduceMaxKernel } from '../kernels/ReduceMax.js';
import { reduceMeanKernel } from '../kernels/ReduceMean.js';
import { reduceProdKernel } from '../kernels/ReduceProd.js';
import { reduceSumKernel } from '../kernels/ReduceSum.js';
import { reduceL2Kernel } from '../kernels/ReduceL2.js';

async function run(def: KernelDef, inputs: Array<Tensor | undefined>, opts?: RunKernelOptions): Promise<Tensor> {
  const [out] = await runKernel(def, inputs, opts);
  if (!(out instanceof Tensor)) throw new Error('expected a tensor');
  return out;
}
const t = <T extends DataType>(type: T, values: readonly (number | bigint)[], dims?: number[]) => new Tensor(type, values, dims);
const values = (x: Tensor) => Array.from(x.data as ArrayLike<number | bigint>);
const axes = (...a: number[]) => t('int64', a.map(BigInt));

// x[i,j,k] = i*100 + j*10 + k over [2,3,4]
const cube = t('float32', Array.from({ length: 24 }, (_, f) => Math.floor(f / 12) * 100 + (Math.floor(f / 4) % 3) * 10 + (f % 4)), [2, 3, 4]);

describe('Reduce*', () => {
  it('sums over the axes input with and without keepdims', async () => {
    const kept = await run(reduceSumKernel, [cube, axes(1)], { opset: 13 });
    expect(kept.dims).toEqual([2, 1, 4]);
    expect(values(kept)).toEqual([30, 33, 36, 39, 330, 333, 336, 339]);
    const dropped = await run(reduceSumKernel, [cube, axes(-1, 0)], { opset: 13, attributes: { keepdims: 0 } });
    expect(dropped.dims).toEqual([3]);
    expect(values(dropped)).toEqual([0, 10, 20].map((j) => 2 * (4 * j + 6) + 400));
  });

  it('reduces everything when axes are absent, or nothing with noop_with_empty_axes', async () => {
    const all = await run(reduceSumKernel, [cube], { opset: 13 });
    expect(all.dims).toEqual([1, 1, 1]);
    expect(values(all)).toEqual([values(cube).reduce((a, b) => Number(a) + Number(b), 0)]);
    const noop = await run(reduceSumKernel, [cube, axes()], { opset: 13, attributes: { noop_with_empty_axes: 1 } });
    expect(values(noop)).toEqual(values(cube));
  });

  it('reads axes from the attribute in older opsets', async () => {
    const out = await run(reduceMeanKernel, [cube], { opset: 11, attributes: { axes: [0, 2], keepdims: 0 } });
    expect(values(out)).toEqual([51.5, 61.5, 71.5]);
  });

  it('propagates NaN in ReduceMax and stays stable in ReduceLogSumExp', async () => {
    expect(values(await run(reduceMaxKernel, [t('float32', [1, NaN, 3, 2], [2, 2])], { opset: 13, attributes: { axes: [1] } }))).toEqual([NaN, 3]);
    const lse = values(await run(reduceLogSumExpKernel, [t('float64', [1000, 1000, -Infinity, -Infinity], [2, 2])], { opset: 13, attributes: { axes: [1] } }));
    expect(lse[0]).toBeCloseTo(1000 + Math.log(2), 10);
    expect(lse[1]).toBe(-Infinity);
  });

  it('handles empty reductions and empty outputs', async () => {
    const empty = t('float32', [], [2, 0]);
    expect(values(await run(reduceSumKernel, [empty, axes(1)], { opset: 13 }))).toEqual([0, 0]);
    expect(values(await run(reduceProdKernel, [empty], { opset: 11, attributes: { axes: [1] } }))).toEqual([1, 1]);
    expect((await run(reduceSumKernel, [empty, axes(0)], { opset: 13 })).dims).toEqual([1, 0]);
  });

  it('sums int64 exactly beyond 2^53, float16 and int32 too', async () => {
    const big = 2n ** 60n;
    expect(values(await run(reduceSumKernel, [t('int64', [big, 1n, 3n])], { opset: 13 }))).toEqual([big + 4n]);
    const half = new Tensor('float16', new Uint16Array([0x3c00, 0x4000]), [2]); // 1, 2
    expect(values(await run(reduceL2Kernel, [half], { opset: 13 }))).toEqual([0x4079]); // sqrt(5) ≈ 2 · (1 + 121/1024) in float16
    expect(values(await run(reduceMeanKernel, [t('int32', [1, 2])], { opset: 13 }))).toEqual([1]);
  });

  it('rejects out-of-range and repeated axes', async () => {
    await expect(run(reduceSumKernel, [cube, axes(3)], { opset: 13 })).rejects.toBeInstanceOf(SwitchyardError);
    await expect(run(reduceSumKernel, [cube, axes(1, -2)], { opset: 13 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('ArgMax / ArgMin', () => {
  const x = t('float32', [1, 3, 3, 0, 2, 0], [2, 3]);
  it('returns the first index of the extreme value, or the last with select_last_index', async () => {
    expect(values(await run(argMaxKernel, [x], { attributes: { axis: 1 } }))).toEqual([1n, 1n]);
    expect(values(await run(argMaxKernel, [x], { attributes: { axis: 1, select_last_index: 1 } }))).toEqual([2n, 1n]);
    const min = await run(argMinKernel, [x], { attributes: { axis: -1, keepdims: 0, select_last_index: 1 } });
    expect(min.dims).toEqual([2]);
    expect(values(min)).toEqual([0n, 2n]);
  });
  it('reduces along axis 0 by default', async () => {
    const out = await run(argMaxKernel, [x]);
    expect(out.dims).toEqual([1, 3]);
    expect(values(out)).toEqual([0n, 0n, 0n]);
  });
});

describe('CumSum', () => {
  const x = t('float64', [1, 2, 3, 4, 5, 6], [2, 3]);
  it('scans along an axis, exclusive and reversed', async () => {
    expect(values(await run(cumSumKernel, [x, t('int32', [1], [])]))).toEqual([1, 3, 6, 4, 9, 15]);
    expect(values(await run(cumSumKernel, [x, t('int64', [0n], [])]))).toEqual([1, 2, 3, 5, 7, 9]);
    expect(values(await run(cumSumKernel, [x, t('int32', [-1], [])], { attributes: { exclusive: 1, reverse: 1 } }))).toEqual([5, 3, 0, 11, 6, 0]);
  });
  it('is exact for int64 beyond 2^53', async () => {
    const big = 2n ** 60n;
    expect(values(await run(cumSumKernel, [t('int64', [big, 1n, 1n]), t('int32', [0], [])]))).toEqual([big, big + 1n, big + 2n]);
  });
});
