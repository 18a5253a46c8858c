import { describe, expect, it } from 'vitest';
import { InferenceSession, SwitchyardError, Tensor, type KernelDef } from '@switchyard/core';
import { buildModel, runKernel, type PlainAttribute } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';
import { nativeKernels } from './native-kernels.js';
import { referenceConv } from './conv-reference.test-util.js';
import { seededFloats } from './test-data.test-util.js';

// The addon itself is under test here, so SWITCHYARD_CPU_NATIVE=0 (which only steers the EP) is ignored.
const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const title = native.ok ? 'oneDNN Conv' : `oneDNN Conv (skipped: ${native.reason})`;

/** Deterministic values in [-1, 1). */
const random = (n: number, seed: number) => seededFloats(n, seed);

function expectClose(actual: Float32Array, expected: Float32Array): void {
  expect(actual.length).toBe(expected.length);
  let worst = 0;
  for (let i = 0; i < actual.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]) / (1 + Math.abs(expected[i])));
  expect(worst).toBeLessThan(1e-4);
}

interface Case {
  name: string;
  x: number[];
  w: number[];
  group?: number;
  strides?: number[];
  dilations?: number[];
  pads?: number[];
  bias?: boolean;
}

const cases: Case[] = [
  { name: '2-D 3x3, pad 1', x: [1, 3, 8, 8], w: [4, 3, 3, 3], pads: [1, 1, 1, 1], bias: true },
  { name: '2-D stride 2, asymmetric pads', x: [2, 4, 9, 7], w: [6, 4, 3, 2], strides: [2, 2], pads: [1, 0, 2, 1] },
  { name: '2-D dilation 2', x: [1, 2, 10, 10], w: [3, 2, 3, 3], dilations: [2, 2], pads: [2, 2, 2, 2], bias: true },
  { name: '2-D groups 2', x: [1, 4, 6, 6], w: [6, 2, 3, 3], group: 2, pads: [1, 1, 1, 1], bias: true },
  { name: '2-D depthwise', x: [2, 8, 7, 7], w: [8, 1, 3, 3], group: 8, strides: [2, 1], pads: [1, 1, 1, 1] },
  { name: '2-D 1x1 16→32 (blocked layouts)', x: [1, 16, 5, 5], w: [32, 16, 1, 1], bias: true },
  { name: '1-D with dilation and stride', x: [2, 3, 20], w: [5, 3, 4], strides: [3], dilations: [2], pads: [2, 1], bias: true },
  { name: '3-D', x: [1, 2, 5, 6, 4], w: [3, 2, 2, 3, 2], strides: [1, 2, 1], pads: [0, 1, 1, 1, 0, 0], bias: true },
];

describe.skipIf(!native.ok)(title, () => {
  const binding = native.ok ? native.binding : undefined!;
  const defs = nativeKernels(binding);
  const def = (opType: string): KernelDef => defs.find((d) => d.opType === opType)!;

  for (const c of cases) {
    it(`matches the reference loop: ${c.name}`, async () => {
      const spatial = c.x.length - 2;
      const x = random(c.x.reduce((a, b) => a * b), 1);
      const w = random(c.w.reduce((a, b) => a * b), 2);
      const b = c.bias ? random(c.w[0], 3) : undefined;
      const pads = c.pads ?? Array<number>(2 * spatial).fill(0);
      const attributes: Record<string, PlainAttribute> = { group: c.group ?? 1, pads };
      if (c.strides) attributes.strides = c.strides;
      if (c.dilations) attributes.dilations = c.dilations;
      const inputs = [new Tensor('float32', x, c.x), new Tensor('float32', w, c.w), ...(b ? [new Tensor('float32', b, [c.w[0]])] : [])];
      const [y] = await runKernel(def('Conv'), inputs, { attributes, threads: 2 });
      const ref = referenceConv({
        x, xDims: c.x, w, wDims: c.w, b, group: c.group ?? 1,
        strides: c.strides ?? Array<number>(spatial).fill(1),
        dilations: c.dilations ?? Array<number>(spatial).fill(1),
        padsBegin: pads.slice(0, spatial), padsEnd: pads.slice(spatial),
      });
      expect(y).toBeInstanceOf(Tensor);
      const t = y as Tensor;
      expect(t.dims).toEqual(ref.dims);
      expectClose(t.data as Float32Array, ref.data);
    });
  }

  it('resolves auto_pad SAME_UPPER / SAME_LOWER like ONNX', async () => {
    const xDims = [1, 2, 7, 7];
    const wDims = [3, 2, 4, 4]; // even kernel: the odd pad goes to the end (UPPER) or the start (LOWER)
    const x = random(98, 4);
    const w = random(96, 5);
    for (const [autoPad, begin, end] of [['SAME_UPPER', 1, 2], ['SAME_LOWER', 2, 1]] as const) {
      const [y] = await runKernel(def('Conv'), [new Tensor('float32', x, xDims), new Tensor('float32', w, wDims)], {
        attributes: { auto_pad: autoPad, strides: [1, 1] },
      });
      const ref = referenceConv({ x, xDims, w, wDims, group: 1, strides: [1, 1], dilations: [1, 1], padsBegin: [begin, begin], padsEnd: [end, end] });
      expect((y as Tensor).dims).toEqual([1, 3, 7, 7]);
      expectClose((y as Tensor).data as Float32Array, ref.data);
    }
  });

  it('fuses Relu (com.microsoft FusedConv) and packs constant weights at construction', async () => {
    const xDims = [1, 8, 6, 6];
    const wDims = [16, 8, 3, 3];
    const x = random(288, 6);
    const w = random(1152, 7);
    const b = random(16, 8);
    const [y] = await runKernel(
      def('FusedConv'),
      [new Tensor('float32', x, xDims), new Tensor('float32', w, wDims), new Tensor('float32', b, [16])],
      { attributes: { activation: 'Relu', pads: [1, 1, 1, 1] }, domain: 'com.microsoft', opset: 1 },
    );
    const ref = referenceConv({ x, xDims, w, wDims, b, group: 1, strides: [1, 1], dilations: [1, 1], padsBegin: [1, 1], padsEnd: [1, 1], relu: true });
    expectClose((y as Tensor).data as Float32Array, ref.data);
    expect(ref.data.some((v) => v === 0)).toBe(true); // the test exercises the clamp

    const conv = new binding.ConvPrimitive({ inputDims: xDims, weightDims: wDims, padsBegin: [1, 1], padsEnd: [1, 1], hasBias: true, fuseRelu: true, weights: w, bias: b });
    expect(conv.weightsPacked).toBe(true);
    const out = new Float32Array(ref.data.length);
    w.fill(0); // packed means copied: later changes to the caller's array do not matter
    await conv.run(x, null, null, out);
    conv.dispose();
    expectClose(out, ref.data);
  });

  it('packs weights for another batch from a primitive that packed them (packedFrom), split over threads or not', async () => {
    const wDims = [16, 8, 3, 3];
    const w = random(1152, 51);
    const b = random(16, 52);
    const base = { weightDims: wDims, padsBegin: [1, 1], padsEnd: [1, 1], hasBias: true, bias: b, winograd: 'never', im2col: 'never' } as const;
    // The split donor runs on 8-blocked activations (the split keeps the caller's layouts); its weights are plain all the same.
    for (const channelSplit of ['never', 'always'] as const) {
      const block = channelSplit === 'always' ? 8 : 0;
      const donor = new binding.ConvPrimitive({ ...base, inputDims: [1, 8, 6, 6], weights: w.slice(), channelSplit, threads: 2, srcBlock: block, dstBlock: block });
      expect(donor.weightsUnpackable).toBe(true);
      if (channelSplit === 'always') expect(donor.implementation).toMatch(/output-channel split/);
      const next = new binding.ConvPrimitive({ ...base, inputDims: [3, 8, 6, 6], packedFrom: donor, threads: 2 });
      donor.dispose();
      const x = random(3 * 288, 53);
      const out = new Float32Array(3 * 16 * 36);
      await next.run(x, null, null, out);
      next.dispose();
      const ref = referenceConv({ x, xDims: [3, 8, 6, 6], w, wDims, b, group: 1, strides: [1, 1], dilations: [1, 1], padsBegin: [1, 1], padsEnd: [1, 1], relu: false });
      expectClose(out, ref.data);
    }
  });

  it('refuses a packedFrom that cannot serve', () => {
    const w = random(1152, 54);
    const base = { inputDims: [1, 8, 6, 6], weightDims: [16, 8, 3, 3], winograd: 'never', im2col: 'never' } as const;
    const donor = new binding.ConvPrimitive({ ...base, weights: w });
    expect(() => new binding.ConvPrimitive({ ...base, weights: w, packedFrom: donor })).toThrow(/weights and options.packedFrom are exclusive/);
    expect(() => new binding.ConvPrimitive({ inputDims: [1, 16, 6, 6], weightDims: [8, 16, 3, 3], packedFrom: donor })).toThrow(/packedFrom holds weights \[16, 8, 3, 3\] \(group 1\), not \[8, 16, 3, 3\]/);
    const unpacked = new binding.ConvPrimitive(base);
    expect(unpacked.weightsUnpackable).toBe(false);
    expect(() => new binding.ConvPrimitive({ ...base, packedFrom: unpacked })).toThrow(/cannot be unpacked/);
    expect(() => new binding.ConvPrimitive({ ...base, packedFrom: {} as never })).toThrow(/packedFrom must be a ConvPrimitive/);
    donor.dispose();
    unpacked.dispose();
    expect(() => new binding.ConvPrimitive({ ...base, packedFrom: donor })).toThrow(/disposed/);
  });

  it('packs weights at session creation when only the batch is symbolic, releases the model copy, and serves every batch', async () => {
    const wDims = [16, 8, 3, 3];
    const w = random(1152, 61);
    const model = buildModel({
      inputs: [['x', 'float32', ['batch', 8, 6, 6]]],
      outputs: [['y', 'float32']],
      initializers: { w: new Tensor('float32', w.slice(), wDims) },
      nodes: [{ op: 'Conv', inputs: ['x', 'w'], outputs: ['y'], attributes: { pads: [1, 1, 1, 1] } }],
    });
    const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: 'disabled' });
    try {
      const released = s.optimization.memory?.releasedConstantBytes;
      // Released exactly when the batch-1 packing can be undone (oneDNN's layouts; not the addon's Winograd on AVX2).
      if (released !== undefined) expect(released).toBe(4 * 1152);
      else expect(s.placement.nodes[0].implementation).not.toBe('onednn');
      for (const batch of [1, 3, 1, 4]) {
        const x = random(batch * 288, 62 + batch);
        const y = (await s.run({ x: new Tensor('float32', x, [batch, 8, 6, 6]) })).y as Tensor;
        const ref = referenceConv({ x, xDims: [batch, 8, 6, 6], w, wDims, b: undefined, group: 1, strides: [1, 1], dilations: [1, 1], padsBegin: [1, 1], padsEnd: [1, 1], relu: false });
        expect(y.dims).toEqual(ref.dims);
        expectClose(y.data as Float32Array, ref.data);
      }
    } finally {
      await s.release();
    }
  });

  it('raises a SwitchyardError for inconsistent inputs instead of crashing', async () => {
    const x = new Tensor('float32', random(50, 9), [1, 2, 5, 5]);
    const w = new Tensor('float32', random(27, 10), [1, 3, 3, 3]);
    await expect(runKernel(def('Conv'), [x, w])).rejects.toBeInstanceOf(SwitchyardError);
    const xi = new Tensor('float64', new Float64Array(75), [1, 3, 5, 5]);
    await expect(runKernel(def('Conv'), [xi, w])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
