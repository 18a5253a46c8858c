/**
 * The native Gather, GatherElements, Pad and Cast against the TS kernels on random shapes, axes, dtypes
 * and edge values, every opset form, at one and two threads; bad indices are coded errors.
 */
import { describe, expect, it } from 'vitest';
import { SwitchyardError, Tensor, type DataType } from '@switchyard/core';
import { loadNative } from './load-native.js';
import { compareDefs, defPair, expectBothThrow, FLOAT_EDGES, int, int64, randomTensor, rng, runDef } from './native-harness.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && typeof native.binding.gather === 'function' && typeof native.binding.cast === 'function' ? native.binding : undefined;

const DTYPES: DataType[] = ['float32', 'int64', 'float16', 'bool', 'uint8', 'int32', 'float64', 'int8'];

function indices(type: 'int32' | 'int64', values: number[], dims: number[]): Tensor {
  return type === 'int64' ? int64(values, dims) : new Tensor('int32', Int32Array.from(values), dims);
}

describe.skipIf(!binding)('native Gather and GatherElements vs the TS kernels', () => {
  it('Gather: random axes, index shapes (scalar too), negative indices, int32 and int64', async () => {
    const pair = defPair(binding!, 'Gather', 13);
    const r = rng(21);
    for (let k = 0; k < 60; k++) {
      const rank = int(r, 1, 4);
      const dims = Array.from({ length: rank }, () => int(r, 1, 6));
      const axis = int(r, -rank, rank - 1);
      const d = dims[axis < 0 ? axis + rank : axis];
      const idxDims = Array.from({ length: int(r, 0, 2) }, () => int(r, 1, 4));
      const n = idxDims.reduce((a, b) => a * b, 1);
      const values = Array.from({ length: n }, () => int(r, -d, d - 1));
      const dtype = DTYPES[k % DTYPES.length];
      const idx = indices(k % 2 ? 'int32' : 'int64', values, idxDims);
      await compareDefs(pair, [randomTensor(dtype, dims, r, true), idx], { opset: 13, attributes: { axis } }, `${dtype} [${dims}] axis ${axis} idx [${values}]`);
    }
  });

  it('Gather: embedding rows out of a large table', async () => {
    const pair = defPair(binding!, 'Gather', 13);
    const r = rng(22);
    const table = randomTensor('float32', [3000, 96], r);
    const ids = indices('int64', Array.from({ length: 128 }, () => int(r, -3000, 2999)), [1, 128]);
    await compareDefs(pair, [table, ids], { opset: 13 }, 'embedding');
  });

  it('Gather: an index out of range is a coded error from both, and nothing is written', async () => {
    const pair = defPair(binding!, 'Gather', 13);
    const r = rng(23);
    for (const bad of [5, -6, 2 ** 40]) {
      await expectBothThrow(pair, [randomTensor('float32', [5, 3], r), indices('int64', [0, bad], [2])], { opset: 13 }, `index ${bad}`);
    }
    await expect(runDef(pair.native, [randomTensor('float32', [5, 3], r), indices('int32', [1, 7], [2])], { opset: 13 })).rejects.toThrow(
      /index 7 is out of bounds for a dimension of size 5/,
    );
  });

  it('GatherElements: random axes, smaller index dims, negative indices', async () => {
    const pair = defPair(binding!, 'GatherElements', 13);
    const r = rng(24);
    for (let k = 0; k < 40; k++) {
      const rank = int(r, 1, 4);
      const dims = Array.from({ length: rank }, () => int(r, 1, 5));
      const axis = int(r, -rank, rank - 1);
      const a = axis < 0 ? axis + rank : axis;
      const idxDims = dims.map((d, i) => (i === a ? int(r, 1, 6) : int(r, 1, d)));
      const n = idxDims.reduce((x, y) => x * y, 1);
      const values = Array.from({ length: n }, () => int(r, -dims[a], dims[a] - 1));
      const dtype = DTYPES[k % DTYPES.length];
      await compareDefs(pair, [randomTensor(dtype, dims, r), indices(k % 2 ? 'int32' : 'int64', values, idxDims)], { opset: 13, attributes: { axis } }, `${dtype} [${dims}] axis ${axis}`);
    }
    await expectBothThrow(pair, [randomTensor('float32', [3, 3], r), indices('int64', [0, 3, 1, 1], [2, 2])], { opset: 13 }, 'out of range');
  });
});

describe.skipIf(!binding)('native Pad vs the TS kernel', () => {
  const MODES = ['constant', 'reflect', 'edge', 'wrap'] as const;

  function randomPads(r: () => number, dims: number[], mode: string): number[] {
    // Reflect needs pads below the axis size; negative pads crop.
    const begin = dims.map((d) => int(r, mode === 'constant' ? -2 : 0, mode === 'reflect' ? d - 1 : 3));
    const end = dims.map((d, i) => int(r, mode === 'constant' ? -Math.min(2, d + begin[i]) : 0, mode === 'reflect' ? d - 1 : 3));
    return [...begin, ...end];
  }

  it('opset 11/13 inputs and 19 wrap: every mode, random pads, constant values of each dtype', async () => {
    const r = rng(31);
    for (const opset of [13, 19]) {
      const pair = defPair(binding!, 'Pad', opset);
      for (let k = 0; k < 40; k++) {
        const mode = MODES[k % (opset >= 19 ? 4 : 3)];
        const rank = int(r, 1, 4);
        const dims = Array.from({ length: rank }, () => int(r, 1, 5));
        const dtype = DTYPES[k % DTYPES.length];
        const x = randomTensor(dtype, dims, r, true);
        const value = mode === 'constant' && r() < 0.7 ? randomTensor(dtype, [], r) : undefined;
        const pads = randomPads(r, dims, mode);
        await compareDefs(pair, [x, int64(pads), value], { opset, attributes: { mode } }, `opset ${opset} ${dtype} [${dims}] ${mode} [${pads}]`);
      }
    }
  });

  it('opset 18 axes, and opset 2 attributes', async () => {
    const r = rng(32);
    const v18 = defPair(binding!, 'Pad', 18);
    await compareDefs(v18, [randomTensor('float32', [2, 3, 4], r), int64([1, 2, 0, 3]), undefined, int64([-1, 0])], { opset: 18, attributes: { mode: 'reflect' } }, 'axes');
    const v2 = defPair(binding!, 'Pad', 2);
    await compareDefs(v2, [randomTensor('float32', [3, 4], r)], { opset: 2, attributes: { mode: 'constant', pads: [1, 0, 2, 3], value: { float: 1.5 } } }, 'v2 constant');
    await compareDefs(v2, [randomTensor('int64', [3, 4], r)], { opset: 2, attributes: { mode: 'edge', pads: [0, 2, 1, 0] } }, 'v2 edge');
  });

  it('rejects what the TS kernel rejects', async () => {
    const pair = defPair(binding!, 'Pad', 13);
    const r = rng(33);
    await expectBothThrow(pair, [randomTensor('float32', [2, 3], r), int64([0, 0, -5, 0])], { opset: 13 }, 'crops below zero');
    await expectBothThrow(pair, [randomTensor('float32', [2, 0], r), int64([0, 1, 0, 1])], { opset: 13, attributes: { mode: 'edge' } }, 'edge of an empty axis');
  });
});

describe.skipIf(!binding)('native Cast vs the TS kernel', () => {
  const TYPES: DataType[] = ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'bool'];
  const ONNX: Record<string, number> = { float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, bool: 9, float16: 10, float64: 11, uint32: 12, uint64: 13, bfloat16: 16 };

  /** Floats with every edge the conversions treat specially (NaN, ±∞, −0, halves, overflow, subnormals, 2^31, 2^63). */
  function edgeFloats(type: 'float32' | 'float64', r: () => number): Tensor {
    const specials = [...FLOAT_EDGES, 2 ** 31, -(2 ** 31) - 1, 2 ** 32 + 5, 2 ** 63, -(2 ** 63), 1e30, 5.9604644775390625e-8, 2.98e-8, 6.1e-5, 65519.99, -255.9, 255.5, 127.5, -128.5];
    const n = 300;
    const a = type === 'float32' ? new Float32Array(n) : new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = i < specials.length ? specials[i] : (r() * 2 - 1) * 10 ** int(r, -8, 12);
    return new Tensor(type, a, [n]);
  }

  it('every pair of the 13 dtypes, with edge values', async () => {
    const r = rng(41);
    const pair = defPair(binding!, 'Cast', 13);
    for (const from of TYPES) {
      const x = from === 'float32' || from === 'float64' ? edgeFloats(from, r) : randomTensor(from, [300], r, true);
      for (const to of TYPES) await compareDefs(pair, [x], { opset: 13, attributes: { to: ONNX[to] } }, `${from} → ${to}`);
    }
  });

  it('all 65536 float16 and bfloat16 bit patterns to float32 and back', async () => {
    const pair = defPair(binding!, 'Cast', 13);
    const bits = new Uint16Array(65536).map((_, i) => i);
    for (const type of ['float16', 'bfloat16'] as const) {
      const [wide] = await compareDefs(pair, [new Tensor(type, bits, [65536])], { opset: 13, attributes: { to: ONNX.float32 } }, `${type} → float32`);
      await compareDefs(pair, [wide as Tensor], { opset: 13, attributes: { to: ONNX[type] } }, `float32 → ${type}`);
    }
  });

  it('strings stay with the TS kernel', async () => {
    const pair = defPair(binding!, 'Cast', 13);
    const [y] = await runDef(pair.native, [new Tensor('string', ['1.5', '-2'], [2])], { opset: 13, attributes: { to: ONNX.float32 } });
    expect([...((y as Tensor).data as Float32Array)]).toEqual([1.5, -2]);
    await expect(runDef(pair.native, [new Tensor('string', ['x'], [1])], { opset: 13, attributes: { to: ONNX.float32 } })).rejects.toBeInstanceOf(SwitchyardError);
  });
});
