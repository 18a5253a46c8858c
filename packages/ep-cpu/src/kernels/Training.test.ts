import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64 } from '../tensor-ops/test-util.js';
import { expectClose } from '../nn/test-helpers.js';
import { adagradKernel } from './Adagrad.js';
import { adamKernel } from './Adam.js';
import { momentumKernel } from './Momentum.js';

// Expected values: /usr/bin/python3 + numpy with the apply_adagrad / apply_adam / apply_momentum /
// apply_nesterov reference functions of onnx/backend/test/case/node/{adagrad,adam,momentum}.py (float64).
const R = new Tensor('float64', Float64Array.of(0.1), []);
const d = (v: number[]) => new Tensor('float64', Float64Array.from(v), [v.length]);
const X = [1.2, 2.8];
const G = [-0.94, -2.5];
const V = [1.7, 3.6];

describe('training optimizers (ai.onnx.preview.training)', () => {
  it('Adagrad with decay at step 3', async () => {
    const out = await runKernel(adagradKernel, [R, i64([3], []), d([1, -2]), d([-1, 0.5]), d([2, 0.25])], {
      attributes: { norm_coefficient: { float: 0.001 }, epsilon: { float: 1e-5 }, decay_factor: { float: 0.1 } },
      outputs: 2,
    });
    expectClose(out[0], [2], [1.0443816803320156, -2.0542829474394755], 1e-9);
    expectClose(out[1], [2], [2.998001, 0.498004], 1e-9);
  });

  it('Adam without and with bias correction and post-update decay', async () => {
    const attrs = { norm_coefficient: { float: 0.001 }, alpha: { float: 0.95 }, beta: { float: 0.1 }, epsilon: { float: 1e-7 } };
    const H = [0.1, 0.1];
    const t0 = await runKernel(adamKernel, [R, i64([0], []), d(X), d(G), d(V), d(H)], { attributes: attrs, outputs: 3 });
    expectClose(t0[0], [2], [1.0250363491167394, 2.6610326709788175], 1e-9);
    expectClose(t0[1], [2], [1.56806, 3.29514], 1e-9);
    expectClose(t0[2], [2], [0.803210896, 5.622407055999999], 1e-9);
    const t2 = await runKernel(adamKernel, [R, i64([2], []), d(X), d(G), d(V), d(H)], { attributes: { ...attrs, norm_coefficient_post: { float: 0.02 } }, outputs: 3 });
    expectClose(t2[0], [2], [-0.5737938655135355, 1.3542017270415196], 1e-9);
  });

  it('Momentum, standard at step 0 and Nesterov at step 4', async () => {
    const attrs = { norm_coefficient: { float: 0.001 }, alpha: { float: 0.95 }, beta: { float: 0.1 } };
    const std = await runKernel(momentumKernel, [R, i64([0], []), d(X), d(G), d(V)], { attributes: { ...attrs, mode: 'standard' }, outputs: 2 });
    expectClose(std[0], [2], [1.13238, 2.70772], 1e-9);
    expectClose(std[1], [2], [0.6762, 0.9228], 1e-9);
    const nes = await runKernel(momentumKernel, [R, i64([4], []), d(X), d(G), d(V)], { attributes: { ...attrs, mode: 'nesterov' }, outputs: 2 });
    expectClose(nes[0], [2], [1.1493736, 2.7485434], 1e-9);
    expectClose(nes[1], [2], [1.52112, 3.17028], 1e-9);
  });

  it('updates several variables in one node, outputs grouped by kind', async () => {
    // Two variables: the Momentum rule applied to each independently (standard, T = 0: V_new = αV + G).
    const out = await runKernel(momentumKernel, [R, i64([0], []), d([1]), d([2, 3]), d([0.5]), d([1, 1]), d([0]), d([0, 2])], {
      attributes: { norm_coefficient: { float: 0 }, alpha: { float: 0.5 }, beta: { float: 0.3 }, mode: 'standard' },
      outputs: 4,
    });
    expectClose(out[0], [1], [1 - 0.1 * 0.5], 1e-12); // X1_new
    expectClose(out[1], [2], [2 - 0.1 * 1, 3 - 0.1 * 2], 1e-12); // X2_new
    expectClose(out[2], [1], [0.5], 1e-12); // V1_new
    expectClose(out[3], [2], [1, 2], 1e-12); // V2_new
  });

  it('rejects a wrong input count, mismatched shapes and a bad mode', async () => {
    const opts = { attributes: { norm_coefficient: { float: 0 }, alpha: { float: 0.5 }, beta: { float: 0.3 }, mode: 'standard' }, outputs: 2 };
    await expect(runKernel(momentumKernel, [R, i64([0], []), d([1]), d([1])], opts)).rejects.toMatchObject({ code: 'INVALID_MODEL' });
    await expect(runKernel(momentumKernel, [R, i64([0], []), d([1]), d([1, 2]), d([1])], opts)).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(momentumKernel, [R, i64([0], []), d([1]), f32([1], [1]), d([1])], opts)).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(momentumKernel, [R, i64([0], []), d([1]), d([1]), d([1])], { ...opts, attributes: { ...opts.attributes, mode: 'adam' } })).rejects.toMatchObject({
      code: 'INVALID_MODEL',
    });
  });
});
