import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64 } from '../tensor-ops/test-util.js';
import { expectClose, seeded } from '../nn/test-helpers.js';
import { negativeLogLikelihoodLossKernel as nll } from './NegativeLogLikelihoodLoss.js';
import { softmaxCrossEntropyLossKernel as sce } from './SoftmaxCrossEntropyLoss.js';

/** Naive reference: per-sample losses and weights of input [N, C, D] (D flattened), written from the spec's loops. */
function reference(input: ArrayLike<number>, N: number, C: number, D: number, target: number[], weight?: number[], ignore?: number) {
  const loss: number[] = [];
  const w: number[] = [];
  for (let n = 0; n < N; n++) {
    for (let d = 0; d < D; d++) {
      const c = target[n * D + d];
      if (c === ignore) {
        loss.push(0);
        w.push(0);
        continue;
      }
      const wc = weight ? weight[c] : 1;
      loss.push(-input[n * C * D + c * D + d] * wc);
      w.push(wc);
    }
  }
  const sum = loss.reduce((a, b) => a + b, 0);
  return { none: loss, sum, mean: sum / w.reduce((a, b) => a + b, 0) };
}

/** log softmax along axis 1, the textbook way: log(exp(x_c) / Σ_k exp(x_k)). */
function logSoftmax(x: ArrayLike<number>, N: number, C: number, D: number): number[] {
  const out = new Array<number>(N * C * D);
  for (let n = 0; n < N; n++) {
    for (let d = 0; d < D; d++) {
      let s = 0;
      for (let c = 0; c < C; c++) s += Math.exp(x[(n * C + c) * D + d]);
      for (let c = 0; c < C; c++) out[(n * C + c) * D + d] = Math.log(Math.exp(x[(n * C + c) * D + d]) / s);
    }
  }
  return out;
}

describe('NegativeLogLikelihoodLoss', () => {
  const [N, C, D] = [2, 3, 2];
  const x = f32([1, 2, 2, 2, 3, 2, 0, 1, 2, 2, 1, 2], [N, C, D]);
  const target = [2, 1, 0, 2];

  it('matches the spec examples (none, weighted sum, weighted mean)', async () => {
    const [none] = await runKernel(nll, [x, i64(target, [N, D])], { attributes: { reduction: 'none' } });
    expectClose(none, [2, 2], [-3, -2, -0, -2]);
    const w = f32([0.2, 0.3, 0.1], [3]);
    const [sum] = await runKernel(nll, [x, i64(target, [N, D]), w], { attributes: { reduction: 'sum' } });
    expectClose(sum, [], [-1.1]);
    const [mean] = await runKernel(nll, [x, i64(target, [N, D]), w]);
    expectClose(mean, [], [-1.1 / 0.7]);
  });

  it('ignore_index drops samples from the loss and from the mean’s denominator, with and without weights', async () => {
    const input = seeded(4 * 5 * 3, 7);
    const tgt = [0, 4, -1, 2, -1, 3, 1, 1, 0, 4, 2, -1];
    const t = i64(tgt, [4, 3]);
    const xs = new Tensor('float32', input, [4, 5, 3]);
    const weight = [0.5, 1.5, 2, 0.25, 1];
    for (const reduction of ['none', 'sum', 'mean'] as const) {
      const ref = reference(input, 4, 5, 3, tgt, undefined, -1);
      const [y] = await runKernel(nll, [xs, t], { attributes: { reduction, ignore_index: -1 } });
      expectClose(y, reduction === 'none' ? [4, 3] : [], reduction === 'none' ? ref.none : [ref[reduction]]);
      const refW = reference(input, 4, 5, 3, tgt, weight, -1);
      const [yw] = await runKernel(nll, [xs, t, f32(weight, [5])], { attributes: { reduction, ignore_index: -1 } });
      expectClose(yw, reduction === 'none' ? [4, 3] : [], reduction === 'none' ? refW.none : [refW[reduction]]);
    }
  });

  it('accepts int32 targets and 2-D input', async () => {
    const [y] = await runKernel(nll, [f32([0.1, 0.2, 0.3, 0.4], [2, 2]), new Tensor('int32', Int32Array.from([1, 0]), [2])]);
    expectClose(y, [], [-(0.2 + 0.3) / 2]);
  });

  it('rejects out-of-range targets, wrong shapes and bad reductions', async () => {
    await expect(runKernel(nll, [x, i64([3, 1, 0, 2], [N, D])])).rejects.toMatchObject({ code: 'RUNTIME' });
    await expect(runKernel(nll, [x, i64([0, 1, 0], [3])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(nll, [x, i64(target, [N, D]), f32([1, 1], [2])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(nll, [f32([1, 2], [2]), i64([0], [1])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(nll, [x, i64(target, [N, D])], { attributes: { reduction: 'max' } })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
  });
});

describe('SoftmaxCrossEntropyLoss', () => {
  it('is NLL of the log-softmax, and returns the log-softmax as its second output', async () => {
    const [N, C, D] = [3, 4, 2];
    const scores = seeded(N * C * D, 3).map((v) => v * 4);
    const tgt = [3, 0, 1, 1, 2, 0];
    const lp = logSoftmax(scores, N, C, D);
    const weight = [1, 0.5, 2, 3];
    for (const reduction of ['none', 'sum', 'mean'] as const) {
      const ref = reference(lp, N, C, D, tgt, weight);
      const [loss, logProb] = await runKernel(sce, [new Tensor('float32', scores, [N, C, D]), i64(tgt, [N, D]), f32(weight, [4])], {
        attributes: { reduction },
        outputs: 2,
      });
      expectClose(loss, reduction === 'none' ? [N, D] : [], reduction === 'none' ? ref.none : [ref[reduction]]);
      expectClose(logProb, [N, C, D], lp);
    }
  });

  it('stays finite for large scores and honours ignore_index', async () => {
    const [y] = await runKernel(sce, [f32([1000, 0, 0, 1000, 5, 5], [3, 2]), i64([0, 1, 7], [3])], { attributes: { ignore_index: 7 } });
    expectClose(y, [], [0]);
    const [z] = await runKernel(sce, [f32([1000, 0], [1, 2]), i64([1], [1])], { attributes: { reduction: 'sum' } });
    expectClose(z, [], [1000]);
  });

  it('serves float64 and rejects mismatched weights', async () => {
    const s = new Tensor('float64', Float64Array.from([0, Math.log(3)]), [1, 2]);
    const [y] = await runKernel(sce, [s, i64([1], [1])]);
    expectClose(y, [], [-Math.log(3 / 4)]);
    await expect(runKernel(sce, [s, i64([1], [1]), f32([1, 1], [2])])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
