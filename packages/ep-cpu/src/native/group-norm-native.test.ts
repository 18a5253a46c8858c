/**
 * The native normalizations (group-norm-native.ts) against the TS kernels: InstanceNormalization,
 * GroupNormalization at opsets 18 and 21, LayerNormalization's broadcast-Scale and Mean/InvStdDev forms,
 * BatchNormalization inference, LpNormalization on any axis, MeanVarianceNormalization; on every build of
 * the loops at one and two threads. What they leave to TypeScript still gives the TS results.
 */
import { describe, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { loadNative } from './load-native.js';
import { compareDefs, defPair, int, randomTensor, rng } from './native-harness.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && typeof native.binding.normalizeGroups === 'function' ? native.binding : undefined;

/** Activations with an offset mean, as real ones have. */
function activations(dims: number[], r: () => number, offset = 3): Tensor {
  const t = randomTensor('float32', dims, r);
  const d = t.data as Float32Array;
  for (let i = 0; i < d.length; i++) d[i] = d[i] * 2 + offset;
  return t;
}

const TOL = 3e-5;

describe.skipIf(!binding)('native Instance/Group/Batch normalization vs the TS kernels', () => {
  it('InstanceNormalization on ranks 3–5', async () => {
    const pair = defPair(binding!, 'InstanceNormalization', 6);
    const r = rng(61);
    for (let k = 0; k < 12; k++) {
      const dims = [int(r, 1, 3), int(r, 1, 6), ...Array.from({ length: int(r, 1, 3) }, () => int(r, 1, 9))];
      const c = dims[1];
      await compareDefs(pair, [activations(dims, r), randomTensor('float32', [c], r), randomTensor('float32', [c], r)], { opset: 6, attributes: { epsilon: { float: [1e-5, 0.01, 1][k % 3] } }, tol: TOL }, `[${dims}]`);
    }
  });

  it('GroupNormalization: per-group scale (18) and per-channel scale (21)', async () => {
    const r = rng(62);
    for (const opset of [18, 21]) {
      const pair = defPair(binding!, 'GroupNormalization', opset);
      for (let k = 0; k < 12; k++) {
        const groups = int(r, 1, 4);
        const c = groups * int(r, 1, 4);
        const dims = [int(r, 1, 3), c, ...Array.from({ length: int(r, 0, 2) }, () => int(r, 1, 8))];
        const params = opset >= 21 ? c : groups;
        await compareDefs(
          pair,
          [activations(dims, r), randomTensor('float32', [params], r), randomTensor('float32', [params], r)],
          { opset, attributes: { num_groups: groups, epsilon: { float: 1e-5 } }, tol: TOL },
          `opset ${opset} [${dims}] groups ${groups}`,
        );
      }
    }
  });

  it('GroupNormalization at a diffusion UNet size', async () => {
    const r = rng(63);
    const pair = defPair(binding!, 'GroupNormalization', 21);
    await compareDefs(pair, [activations([1, 256, 16, 16], r), randomTensor('float32', [256], r), randomTensor('float32', [256], r)], { opset: 21, attributes: { num_groups: 32 }, tol: TOL }, 'unet');
  });

  it('BatchNormalization inference (rank 2 to 5), and training mode left to TypeScript', async () => {
    const r = rng(64);
    const pair = defPair(binding!, 'BatchNormalization', 15);
    for (let k = 0; k < 10; k++) {
      const dims = [int(r, 1, 3), int(r, 1, 6), ...Array.from({ length: int(r, 0, 3) }, () => int(r, 1, 7))];
      const c = dims[1];
      const variance = randomTensor('float32', [c], r);
      (variance.data as Float32Array).forEach((v, i, a) => (a[i] = Math.abs(v) + 0.1));
      const inputs = [activations(dims, r), randomTensor('float32', [c], r), randomTensor('float32', [c], r), randomTensor('float32', [c], r), variance];
      await compareDefs(pair, inputs, { opset: 15, attributes: { epsilon: { float: 1e-3 } }, tol: TOL }, `[${dims}]`);
    }
    const x = activations([2, 3, 4], r);
    const params = [1, 2, 3, 4].map(() => randomTensor('float32', [3], r));
    (params[3].data as Float32Array).fill(0.5);
    await compareDefs(pair, [x, ...params], { opset: 15, outputs: 3, attributes: { training_mode: 1 }, tol: TOL }, 'training');
  });
});

describe.skipIf(!binding)('native LayerNormalization forms, LpNormalization and MVN vs the TS kernels', () => {
  it('LayerNormalization with broadcast Scale/B and Mean/InvStdDev outputs', async () => {
    const r = rng(65);
    const pair = defPair(binding!, 'LayerNormalization', 17);
    for (let k = 0; k < 12; k++) {
      const dims = Array.from({ length: int(r, 2, 4) }, () => int(r, 1, 9));
      const axis = int(r, 1, dims.length - 1);
      const norm = dims.slice(axis);
      const scaleDims = norm.slice(int(r, 0, norm.length - 1));
      const withBias = k % 2 === 0;
      const inputs = [activations(dims, r), randomTensor('float32', scaleDims, r), withBias ? randomTensor('float32', scaleDims, r) : undefined];
      await compareDefs(pair, inputs, { opset: 17, outputs: 3, attributes: { axis: axis - (k % 3 === 0 ? dims.length : 0) }, tol: TOL }, `[${dims}] axis ${axis} scale [${scaleDims}]`);
    }
  });

  it('LpNormalization p = 1, 2 along every axis, zero slices stay zero', async () => {
    const r = rng(66);
    const pair = defPair(binding!, 'LpNormalization', 1);
    for (let k = 0; k < 16; k++) {
      const dims = Array.from({ length: int(r, 1, 4) }, () => int(r, 1, 9));
      const x = randomTensor('float32', dims, r);
      if (k % 4 === 0) (x.data as Float32Array).fill(0, 0, Math.ceil(x.size / 2));
      await compareDefs(pair, [x], { opset: 1, attributes: { p: 1 + (k % 2), axis: int(r, -dims.length, dims.length - 1) }, tol: TOL }, `[${dims}]`);
    }
  });

  it('MeanVarianceNormalization over any axes: rows, columns, alternating blocks, few groups split over the team', async () => {
    const r = rng(67);
    const pair = defPair(binding!, 'MeanVarianceNormalization', 13);
    await compareDefs(pair, [activations([1, 5, 6, 7], r)], { opset: 13, tol: TOL }, 'default axes, N = 1');
    await compareDefs(pair, [activations([3, 5, 6, 7], r)], { opset: 13, tol: TOL }, 'default axes, N = 3');
    await compareDefs(pair, [activations([4, 9, 10], r)], { opset: 13, attributes: { axes: [1, 2] }, tol: TOL }, 'rows');
    await compareDefs(pair, [activations([4, 9, 10], r)], { opset: 13, attributes: { axes: [-1] }, tol: TOL }, 'last axis');
    await compareDefs(pair, [activations([40, 700], r)], { opset: 13, attributes: { axes: [0] }, tol: TOL }, 'columns wider than a chunk');
    await compareDefs(pair, [activations([6, 3, 5, 4], r)], { opset: 13, attributes: { axes: [0, 2] }, tol: TOL }, 'R K R K');
    await compareDefs(pair, [activations([3, 2, 4, 2, 3], r)], { opset: 13, attributes: { axes: [1, 3] }, tol: TOL }, 'K R K R K');
    await compareDefs(pair, [activations([64, 1, 50], r)], { opset: 13, attributes: { axes: [0, 1, 2] }, tol: TOL }, 'one group');
    await compareDefs(pair, [activations([300, 1, 2, 7], r)], { opset: 13, attributes: { axes: [0, 3] }, tol: TOL }, 'two groups, split');
    await compareDefs(pair, [activations([5, 1, 6], r)], { opset: 13, attributes: { axes: [1] }, tol: TOL }, 'only a size-1 axis');
    await compareDefs(pair, [activations([2, 3, 1, 1], r)], { opset: 13, attributes: { axes: [2, 3] }, tol: TOL }, 'size-1 axes only');
    await compareDefs(pair, [new Tensor('float32', new Float32Array(0), [2, 0, 3, 4])], { opset: 13, tol: TOL }, 'empty');
    for (let k = 0; k < 24; k++) {
      const dims = Array.from({ length: int(r, 1, 5) }, () => int(r, 1, 7));
      const picked = dims.map((_, i) => i).filter(() => r() < 0.5);
      const axes = (picked.length > 0 ? picked : [0]).map((a) => (r() < 0.3 ? a - dims.length : a));
      await compareDefs(pair, [activations(dims, r)], { opset: 13, attributes: { axes }, tol: TOL }, `[${dims}] axes [${axes}]`);
    }
  });

  it('LRN: odd and even sizes, windows wider than the channels, every beta form, rows wider than a task', async () => {
    const r = rng(68);
    const pair = defPair(binding!, 'LRN', 13);
    const cases: Array<[number[], number, number, number, number]> = [
      [[2, 16, 9, 9], 5, 1e-4, 0.75, 1],
      [[1, 7, 300], 4, 0.3, 0.5, 2],
      [[3, 3, 5, 5], 7, 0.2, 1, 0.5],
      [[2, 10, 20], 3, 1e-3, 0.6, 1],
      [[4, 12], 5, 2, 0.75, 1],
      [[1, 6, 2, 3, 4], 1, 1e-4, 0.75, 1],
      [[1, 0, 4, 4], 3, 1e-4, 0.75, 1],
    ];
    for (const [dims, size, alpha, beta, bias] of cases) {
      const attributes = { size, alpha: { float: alpha }, beta: { float: beta }, bias: { float: bias } };
      await compareDefs(pair, [activations(dims, r, 0)], { opset: 13, attributes, tol: 1e-6 }, `[${dims}] size ${size} beta ${beta}`);
    }
  });
});
