import { describe, expect, it } from 'vitest';
import { blockedDims } from './channel-blocked.js';
import { referenceConv } from './conv-reference.test-util.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

// Kernel taps that read only padding (native/src/conv_tap_trim.h): a conv with constant weights drops them
// and must still give ONNX Conv's output, with bias, activation and a summed Z, in plain and blocked layouts.
const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const title = native.ok ? 'Conv taps that read only padding' : `Conv taps that read only padding (skipped: ${native.reason})`;

interface Case {
  name: string;
  x: number[];
  w: number[];
  strides?: number[];
  dilations: number[];
  padsBegin: number[];
  padsEnd: number[];
  group?: number;
  /** Whether any tap reads only padding (the kernel says so in its implementation). */
  trims: boolean;
}

const cases: Case[] = [
  // DeepLab's ASPP on a small map: rows at ±36 and columns at ±36 never reach a 24 x 32 image (a 1x1 conv is left).
  { name: 'atrous 3x3, dilation 36, 24x32', x: [1, 24, 24, 32], w: [16, 24, 3, 3], dilations: [36, 36], padsBegin: [36, 36], padsEnd: [36, 36], trims: true },
  // Rows at ±24 miss a 24-row image, columns at ±24 reach part of a 32-column one: a 1x3 conv is left.
  { name: 'atrous 3x3, dilation 24, 24x32', x: [1, 16, 24, 32], w: [8, 16, 3, 3], dilations: [24, 24], padsBegin: [24, 24], padsEnd: [24, 24], trims: true },
  { name: 'atrous 3x3, dilation 12, 24x32 (every tap reads)', x: [1, 8, 24, 32], w: [8, 8, 3, 3], dilations: [12, 12], padsBegin: [12, 12], padsEnd: [12, 12], trims: false },
  { name: 'asymmetric pads, one side trimmed', x: [2, 4, 6, 5], w: [6, 4, 3, 3], dilations: [5, 1], padsBegin: [10, 1], padsEnd: [0, 1], trims: true },
  { name: 'stride 2 with a dilated kernel', x: [1, 8, 9, 9], w: [8, 8, 3, 3], strides: [2, 2], dilations: [10, 10], padsBegin: [10, 10], padsEnd: [10, 10], trims: true },
  { name: 'grouped', x: [1, 8, 5, 5], w: [8, 2, 3, 3], group: 4, dilations: [6, 6], padsBegin: [6, 6], padsEnd: [6, 6], trims: true },
  { name: '1-D', x: [1, 6, 10], w: [4, 6, 5], dilations: [7], padsBegin: [14], padsEnd: [14], trims: true },
  { name: '3-D', x: [1, 4, 3, 6, 6], w: [4, 4, 3, 3, 3], dilations: [4, 2, 2], padsBegin: [4, 2, 2], padsEnd: [4, 2, 2], trims: true },
];

const count = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

/** A plain [N, C, H, W] tensor in [N, C/block, H, W, block] (zero padding lanes), and back. */
function toBlocked(data: Float32Array, dims: readonly number[], block: number): Float32Array {
  const out = new Float32Array(count(blockedDims(dims, block)));
  const [n, c] = dims;
  const hw = count(dims.slice(2));
  const cb = Math.ceil(c / block);
  for (let b = 0; b < n; b++) for (let ch = 0; ch < c; ch++) for (let i = 0; i < hw; i++) out[((b * cb + Math.floor(ch / block)) * hw + i) * block + (ch % block)] = data[(b * c + ch) * hw + i];
  return out;
}
function fromBlocked(data: Float32Array, dims: readonly number[], block: number): Float32Array {
  const out = new Float32Array(count(dims));
  const [n, c] = dims;
  const hw = count(dims.slice(2));
  const cb = Math.ceil(c / block);
  for (let b = 0; b < n; b++) for (let ch = 0; ch < c; ch++) for (let i = 0; i < hw; i++) out[(b * c + ch) * hw + i] = data[((b * cb + Math.floor(ch / block)) * hw + i) * block + (ch % block)];
  return out;
}

function worstError(actual: Float32Array, expected: Float32Array): number {
  let worst = 0;
  for (let i = 0; i < actual.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]) / (1 + Math.abs(expected[i])));
  return worst;
}

describe.skipIf(!native.ok)(title, () => {
  const binding = native.ok ? native.binding : undefined!;

  for (const c of cases) {
    for (const block of [0, 8] as const) {
      if (block && c.x.length !== 4) continue;
      it(`equals ONNX Conv with bias, Relu and a summed Z (${block ? `blocked by ${block}` : 'plain'}): ${c.name}`, () => {
        const spatial = c.x.length - 2;
        const x = seededFloats(count(c.x), 1);
        const w = seededFloats(count(c.w), 2);
        const b = seededFloats(c.w[0], 3);
        const strides = c.strides ?? Array<number>(spatial).fill(1);
        const ref = referenceConv({ x, xDims: c.x, w, wDims: c.w, b, group: c.group ?? 1, strides, dilations: c.dilations, padsBegin: c.padsBegin, padsEnd: c.padsEnd });
        const z = seededFloats(ref.data.length, 4);
        const expected = ref.data.map((v, i) => Math.max(0, v + z[i]));

        const primitive = new binding.ConvPrimitive({
          inputDims: c.x, weightDims: c.w, group: c.group ?? 1, strides, dilations: c.dilations, padsBegin: c.padsBegin, padsEnd: c.padsEnd,
          hasBias: true, activation: 'relu', hasSum: true, threads: 2, weights: w, bias: b, srcBlock: block, dstBlock: block,
        });
        expect(primitive.implementation.includes('padding-only taps trimmed')).toBe(c.trims);
        expect(primitive.outputDims).toEqual(ref.dims);
        const yDims = block ? blockedDims(ref.dims, block) : ref.dims;
        const y = new Float32Array(count(yDims));
        primitive.runSync(block ? toBlocked(x, c.x, block) : x, null, null, y, block ? toBlocked(z, ref.dims, block) : z);
        const actual = block ? fromBlocked(y, ref.dims, block) : y;
        expect(worstError(actual, expected)).toBeLessThan(1e-4);
        primitive.dispose();
      });
    }
  }

  it('keeps every tap when the weights are not constant (run-time W is never trimmed)', () => {
    const c = cases[0];
    const primitive = new binding.ConvPrimitive({ inputDims: c.x, weightDims: c.w, dilations: c.dilations, padsBegin: c.padsBegin, padsEnd: c.padsEnd, threads: 1 });
    expect(primitive.implementation).not.toContain('trimmed');
    const x = seededFloats(count(c.x), 5);
    const w = seededFloats(count(c.w), 6);
    const ref = referenceConv({ x, xDims: c.x, w, wDims: c.w, group: 1, strides: [1, 1], dilations: c.dilations, padsBegin: c.padsBegin, padsEnd: c.padsEnd });
    const y = new Float32Array(ref.data.length);
    primitive.runSync(x, w, null, y);
    expect(worstError(y, ref.data)).toBeLessThan(1e-4);
    primitive.dispose();
  });

  it('a trimmed kernel cannot lend its weights to another shape (the dropped taps are gone)', () => {
    const c = cases[0];
    const primitive = new binding.ConvPrimitive({ inputDims: c.x, weightDims: c.w, dilations: c.dilations, padsBegin: c.padsBegin, padsEnd: c.padsEnd, threads: 1, weights: seededFloats(count(c.w), 7) });
    expect(primitive.weightsPacked).toBe(true);
    expect(primitive.weightsUnpackable).toBe(false);
    primitive.dispose();
  });
});
