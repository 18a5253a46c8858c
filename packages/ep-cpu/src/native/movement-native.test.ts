/**
 * The native data movement (movement-native.ts) against the TS kernels on random shapes, axes and dtypes:
 * Transpose, Slice (both opset forms), Expand, Tile, DepthToSpace, SpaceToDepth, Concat and Split, bit
 * for bit, at one and two threads; and through a session, where small tensors stay with TypeScript.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, type DataType } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';
import { compareDefs, defPair, expectBothThrow, int, int64, randomTensor, rng } from './native-harness.test-util.js';
import { SMALL_MOVE_ELEMENTS } from './native-support.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && typeof native.binding.copyStrided === 'function' ? native.binding : undefined;

const DTYPES: DataType[] = ['float32', 'float16', 'int64', 'bool', 'int8', 'float64', 'uint16', 'int32', 'bfloat16', 'uint8'];

function randomDims(r: () => number, rank: number, max = 6): number[] {
  return Array.from({ length: rank }, () => int(r, 1, max));
}

function shuffled(r: () => number, n: number): number[] {
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = int(r, 0, i);
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

describe.skipIf(!binding)('native Transpose vs the TS kernel', () => {
  it('random permutations of ranks 1–6 in every dtype', async () => {
    const pair = defPair(binding!, 'Transpose', 13);
    const r = rng(1);
    for (let k = 0; k < 60; k++) {
      const rank = int(r, 1, 6);
      const dtype = DTYPES[k % DTYPES.length];
      const x = randomTensor(dtype, randomDims(r, rank), r, true);
      const perm = shuffled(r, rank);
      await compareDefs(pair, [x], { attributes: { perm } }, `${dtype} [${x.dims}] perm [${perm}]`);
    }
  });

  it('the default (reversed) permutation, size-1 and size-0 axes, a scalar', async () => {
    const pair = defPair(binding!, 'Transpose', 13);
    const r = rng(2);
    await compareDefs(pair, [randomTensor('float32', [3, 1, 5, 2], r)], {}, 'reversed');
    await compareDefs(pair, [randomTensor('float32', [3, 0, 5], r)], { attributes: { perm: [2, 0, 1] } }, 'empty');
    await compareDefs(pair, [randomTensor('int64', [], r)], {}, 'scalar');
    await compareDefs(pair, [randomTensor('float32', [1, 4, 1, 6], r)], { attributes: { perm: [2, 1, 0, 3] } }, 'trivial after dropping 1s');
  });

  it('the large transposes of real models (tiles, bands, edges that are not a multiple of 8)', async () => {
    const pair = defPair(binding!, 'Transpose', 13);
    const r = rng(3);
    const cases: Array<[DataType, number[], number[]]> = [
      ['float32', [1, 56, 56, 96], [0, 3, 1, 2]], // ConvNeXt's NHWC → NCHW
      ['float32', [1, 96, 57, 55], [0, 2, 3, 1]],
      ['float32', [2, 12, 37, 64], [0, 2, 1, 3]], // attention's head merge
      ['float16', [3, 131, 67], [2, 1, 0]],
      ['int64', [129, 65], [1, 0]],
      ['uint8', [3, 100, 33], [0, 2, 1]],
    ];
    for (const [dtype, dims, perm] of cases) await compareDefs(pair, [randomTensor(dtype, dims, r)], { attributes: { perm } }, `${dtype} [${dims}] [${perm}]`);
  });

  it('rejects a bad permutation as the TS kernel does', async () => {
    const pair = defPair(binding!, 'Transpose', 13);
    await expectBothThrow(pair, [randomTensor('float32', [2, 3], rng(4))], { attributes: { perm: [0, 0] } }, 'repeated axis');
  });
});

describe.skipIf(!binding)('native Slice vs the TS kernel', () => {
  it('opset 13: random starts, ends, axes and steps (negative, clamped, empty)', async () => {
    const pair = defPair(binding!, 'Slice', 13);
    const r = rng(5);
    for (let k = 0; k < 80; k++) {
      const rank = int(r, 1, 4);
      const dims = randomDims(r, rank, 9);
      const dtype = DTYPES[k % DTYPES.length];
      const axes = shuffled(r, rank).slice(0, int(r, 1, rank));
      const starts: number[] = [];
      const ends: number[] = [];
      const steps: number[] = [];
      for (const a of axes) {
        const d = dims[a];
        starts.push(r() < 0.1 ? -(2 ** 40) : int(r, -d - 2, d + 2));
        ends.push(r() < 0.15 ? (r() < 0.5 ? 2 ** 53 - 1 : -(2 ** 53) + 1) : int(r, -d - 2, d + 2));
        steps.push((r() < 0.5 ? -1 : 1) * int(r, 1, 3));
      }
      const signedAxes = axes.map((a) => (r() < 0.3 ? a - rank : a));
      const inputs = [randomTensor(dtype, dims, r, true), int64(starts), int64(ends), int64(signedAxes), r() < 0.2 ? undefined : int64(steps)];
      await compareDefs(pair, inputs, { opset: 13 }, `${dtype} [${dims}] starts ${starts} ends ${ends} axes ${signedAxes} steps ${steps}`);
    }
  });

  it('opset 1–9 attributes', async () => {
    const pair = defPair(binding!, 'Slice', 9);
    const r = rng(6);
    await compareDefs(pair, [randomTensor('float32', [5, 7, 3], r)], { opset: 9, attributes: { starts: [1, -5], ends: [100, -1], axes: [0, 1] } }, 'v9');
    await compareDefs(pair, [randomTensor('int64', [5, 7], r)], { opset: 9, attributes: { starts: [2, 0], ends: [4, 3] } }, 'v9 default axes');
  });

  it('rejects a zero step as the TS kernel does', async () => {
    const pair = defPair(binding!, 'Slice', 13);
    await expectBothThrow(pair, [randomTensor('float32', [4], rng(7)), int64([0]), int64([4]), int64([0]), int64([0])], { opset: 13 }, 'step 0');
  });
});

describe.skipIf(!binding)('native Expand, Tile, DepthToSpace, SpaceToDepth vs the TS kernels', () => {
  it('Expand: random broadcasts (new leading axes, size-1 axes, both directions)', async () => {
    const pair = defPair(binding!, 'Expand', 13);
    const r = rng(8);
    for (let k = 0; k < 40; k++) {
      const rank = int(r, 1, 4);
      const out = randomDims(r, rank + int(r, 0, 2));
      const x = out.slice(out.length - rank).map((d) => (r() < 0.5 ? 1 : d));
      const shape = out.map((d, i) => (i >= out.length - rank && x[i - (out.length - rank)] === d && r() < 0.3 ? 1 : d));
      const dtype = DTYPES[k % DTYPES.length];
      await compareDefs(pair, [randomTensor(dtype, x, r), int64(shape)], { opset: 13 }, `${dtype} [${x}] → [${shape}]`);
    }
    await compareDefs(pair, [randomTensor('float32', [768, 1], r), int64([768, 512])], { opset: 13 }, 'a column to a matrix');
  });

  it('Tile: opset 6+ repeats and opset 1 (tiles, axis)', async () => {
    const pair = defPair(binding!, 'Tile', 13);
    const r = rng(9);
    for (let k = 0; k < 30; k++) {
      const dims = randomDims(r, int(r, 1, 4), 5);
      const repeats = dims.map(() => int(r, 0, 3));
      await compareDefs(pair, [randomTensor(DTYPES[k % DTYPES.length], dims, r), int64(repeats)], { opset: 13 }, `[${dims}] × [${repeats}]`);
    }
    const v1 = defPair(binding!, 'Tile', 1);
    await compareDefs(v1, [randomTensor('float32', [3, 4], r), int64([3], []), int64([1], [])], { opset: 1 }, 'opset 1');
  });

  it('DepthToSpace (DCR, CRD) and SpaceToDepth', async () => {
    const d2s = defPair(binding!, 'DepthToSpace', 13);
    const s2d = defPair(binding!, 'SpaceToDepth', 13);
    const r = rng(10);
    for (const [b, mode] of [[2, 'DCR'], [2, 'CRD'], [3, 'DCR'], [3, 'CRD']] as const) {
      await compareDefs(d2s, [randomTensor('float32', [2, 2 * b * b, 5, 3], r)], { opset: 13, attributes: { blocksize: b, mode } }, `d2s ${b} ${mode}`);
      await compareDefs(s2d, [randomTensor('float16', [2, 3, 4 * b, 2 * b], r)], { opset: 13, attributes: { blocksize: b } }, `s2d ${b}`);
    }
    await expectBothThrow(d2s, [randomTensor('float32', [1, 6, 2, 2], r)], { opset: 13, attributes: { blocksize: 2 } }, 'channels not divisible');
  });
});

describe.skipIf(!binding)('native Concat and Split vs the TS kernels', () => {
  it('Concat: 1–5 inputs along random axes (empty parts too)', async () => {
    const pair = defPair(binding!, 'Concat', 13);
    const r = rng(11);
    for (let k = 0; k < 50; k++) {
      const rank = int(r, 1, 4);
      const base = randomDims(r, rank);
      const axis = int(r, -rank, rank - 1);
      const a = axis < 0 ? axis + rank : axis;
      const dtype = DTYPES[k % DTYPES.length];
      const inputs = Array.from({ length: int(r, 1, 5) }, () => randomTensor(dtype, base.map((d, i) => (i === a ? int(r, 0, 4) : d)), r));
      await compareDefs(pair, inputs, { opset: 13, attributes: { axis } }, `${dtype} axis ${axis} [${inputs.map((t) => `[${t.dims}]`)}]`);
    }
  });

  it("Concat: a decoder's growing key/value cache, and mismatched shapes rejected", async () => {
    const pair = defPair(binding!, 'Concat', 13);
    const r = rng(12);
    await compareDefs(pair, [randomTensor('float32', [1, 12, 64, 64], r), randomTensor('float32', [1, 12, 1, 64], r)], { opset: 13, attributes: { axis: 2 } }, 'kv cache');
    await compareDefs(pair, [randomTensor('float32', [1, 12, 0, 64], r), randomTensor('float32', [1, 12, 1, 64], r)], { opset: 13, attributes: { axis: -2 } }, 'empty past');
    await expectBothThrow(pair, [randomTensor('float32', [2, 3], r), randomTensor('float32', [3, 3], r)], { opset: 13, attributes: { axis: 1 } }, 'mismatch');
  });

  it('Split: equal parts, the split attribute (opset 11) and input (opset 13)', async () => {
    const r = rng(13);
    const v13 = defPair(binding!, 'Split', 13);
    const v11 = defPair(binding!, 'Split', 11);
    for (let k = 0; k < 30; k++) {
      const rank = int(r, 1, 4);
      const dims = randomDims(r, rank, 8);
      const axis = int(r, 0, rank - 1);
      const parts = int(r, 1, 4);
      const sizes: number[] = [];
      let left = dims[axis];
      for (let p = 0; p < parts - 1; p++) sizes.push(int(r, 0, left)), (left -= sizes[sizes.length - 1]);
      sizes.push(left);
      const dtype = DTYPES[k % DTYPES.length];
      const x = randomTensor(dtype, dims, r);
      await compareDefs(v13, [x, int64(sizes)], { opset: 13, outputs: parts, attributes: { axis } }, `v13 ${dtype} [${dims}] axis ${axis} [${sizes}]`);
      await compareDefs(v11, [x], { opset: 11, outputs: parts, attributes: { axis, split: sizes } }, `v11 [${sizes}]`);
    }
    await compareDefs(v13, [randomTensor('float32', [2, 12, 6], r)], { opset: 13, outputs: 3, attributes: { axis: -1 } }, 'equal parts');
    await expectBothThrow(v13, [randomTensor('float32', [2, 7], r)], { opset: 13, outputs: 2, attributes: { axis: 1 } }, 'not divisible');
  });
});

describe.skipIf(!binding)('native data movement in a session', () => {
  async function implementations(dims: number[], smallOpsInTs: boolean) {
    const model = buildModel({
      inputs: [['x', 'float32', dims]],
      outputs: [['y', 'float32']],
      nodes: [{ op: 'Transpose', inputs: ['x'], outputs: ['y'], name: 't', attributes: { perm: [1, 0] } }],
      opset: 13,
    });
    const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider({ smallOpsInTs })], graphOptimizationLevel: 'disabled' });
    const x = randomTensor('float32', dims, rng(14));
    const y = (await s.run({ x })).y as Tensor;
    const impl = s.placement.nodes[0].implementation;
    await s.release();
    return { impl, y };
  }

  it('leaves small tensors to TypeScript unless smallOpsInTs is off, with the same results', async () => {
    expect(4 * 8).toBeLessThan(SMALL_MOVE_ELEMENTS);
    const small = await implementations([4, 8], true);
    const forced = await implementations([4, 8], false);
    expect(small.impl).toBe('ts');
    expect(forced.impl).toBe('native');
    expect([...(forced.y.data as Float32Array)]).toEqual([...(small.y.data as Float32Array)]);
    expect((await implementations([64, 48], true)).impl).toBe('native');
  });
});
