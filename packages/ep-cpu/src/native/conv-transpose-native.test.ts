import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel, runKernel, type PlainAttribute } from '@switchyard/core/testing';
import type { ChannelBlock, ConvTransposePrimitiveOptions, NativeBinding } from './binding.js';
import { fromBlocked, toBlocked } from './channel-blocked.js';
import { nativeConvTransposeKernels } from './conv-transpose-native.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';
import { convTransposeKernel } from '../kernels/ConvTranspose.js';
import { CpuExecutionProvider } from '../cpu-provider.js';

// The addon itself is under test here, so SWITCHYARD_CPU_NATIVE=0 (which only steers the EP) is ignored.
const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok ? native.binding : undefined;
const title = binding?.ConvTransposePrimitive ? 'oneDNN ConvTranspose' : `oneDNN ConvTranspose (skipped: ${native.ok ? 'no ConvTransposePrimitive' : native.reason})`;

const product = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

function picker(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)), of: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] };
}

function expectNear(actual: Float32Array, expected: Float32Array, label: string, tol = 1e-4): void {
  expect(actual.length, label).toBe(expected.length);
  let worst = 0;
  for (let i = 0; i < actual.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]) / (1 + Math.abs(expected[i])));
  expect(worst, label).toBeLessThan(tol);
}

describe.skipIf(!binding?.ConvTransposePrimitive)(title, () => {
  const b = binding as NativeBinding;
  const [def] = nativeConvTransposeKernels(b);
  const Primitive = b.ConvTransposePrimitive!;

  it('matches the TS kernel over 1-D/2-D/3-D, groups, strides, dilations, pads, auto_pad, output_padding and output_shape', async () => {
    const p = picker(3);
    let compared = 0;
    for (let n = 0; n < 80; n++) {
      const spatial = n % 5 === 0 ? 1 : n % 5 === 1 ? 3 : 2;
      const group = p.of([1, 1, 2, 3]);
      const c = group * p.int(1, 4);
      const mg = p.int(1, 4);
      const kernel = Array.from({ length: spatial }, () => p.int(1, spatial === 3 ? 3 : 4));
      const strides = kernel.map(() => p.int(1, 3));
      const dilations = kernel.map(() => (p.next() < 0.3 ? 2 : 1));
      const xDims = [p.int(1, 2), c, ...kernel.map(() => p.int(1, spatial === 3 ? 5 : 9))];
      const wDims = [c, mg, ...kernel];
      const attributes: Record<string, PlainAttribute> = { group, strides, dilations };
      const form = p.int(0, 4);
      if (form === 0) {
        attributes.pads = [...kernel.map((k) => p.int(0, k - 1)), ...kernel.map((k) => p.int(0, k - 1))];
      } else if (form === 1) {
        // output_padding beyond the end pad: trailing outputs only the bias reaches (at least the stride, with a
        // larger dilation, is the TS kernel's).
        attributes.pads = [...kernel.map(() => 0), ...kernel.map(() => 0)];
        attributes.output_padding = strides.map((s, i) => Math.max(s, dilations[i]) - 1);
      } else if (form === 2) {
        attributes.auto_pad = p.of(['SAME_UPPER', 'SAME_LOWER', 'VALID']);
      } else if (form === 3) {
        // A size between the smallest and one past the full extent (so the begin pad stays >= 0).
        attributes.output_shape = xDims.slice(2).map((d, i) => strides[i] * (d - 1) + (kernel[i] - 1) * dilations[i] + 1 - p.int(-1, 1));
      } else {
        attributes.kernel_shape = kernel;
      }
      const x = new Tensor('float32', seededFloats(product(xDims), n), xDims);
      const w = new Tensor('float32', seededFloats(product(wDims), n + 1000), wDims);
      const bias = n % 2 ? new Tensor('float32', seededFloats(mg * group, n + 2000), [mg * group]) : undefined;
      const label = JSON.stringify({ xDims, wDims, attributes, bias: Boolean(bias) });
      let want: Tensor;
      try {
        [want] = (await runKernel(convTransposeKernel, [x, w, bias], { attributes })) as Tensor[];
      } catch {
        // Geometry the op rejects (an empty output, output_padding not below stride or dilation): so must the native def.
        await expect(runKernel(def, [x, w, bias], { attributes }), label).rejects.toThrow();
        continue;
      }
      const [got] = (await runKernel(def, [x, w, bias], { attributes, threads: 1 + (n % 2) })) as Tensor[];
      expect(got.dims, label).toEqual(want.dims);
      expectNear(got.data as Float32Array, want.data as Float32Array, label);
      compared++;
    }
    expect(compared).toBeGreaterThan(60);
  });

  it('packs constant weights at session creation and serves dynamic H/W, one primitive per shape', async () => {
    const wDims = [8, 4, 3, 3];
    const model = buildModel({
      inputs: [['x', 'float32', [1, 8, 'h', 'w']]],
      outputs: [['y', 'float32']],
      initializers: { w: new Tensor('float32', seededFloats(product(wDims), 5), wDims), b: new Tensor('float32', seededFloats(4, 6), [4]) },
      nodes: [{ op: 'ConvTranspose', inputs: ['x', 'w', 'b'], outputs: ['y'], name: 'up', attributes: { strides: [2, 2], pads: [1, 1, 1, 1], output_padding: [1, 1] } }],
      opset: 11,
    });
    const nativeSession = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()] });
    const tsSession = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider({ useNative: false })] });
    expect(nativeSession.placement.nodes[0].implementation).toBe('onednn');
    for (const [h, w] of [[5, 7], [12, 3], [5, 7]]) {
      const x = new Tensor('float32', seededFloats(8 * h * w, h + w), [1, 8, h, w]);
      const got = (await nativeSession.run({ x })).y as Tensor;
      const want = (await tsSession.run({ x })).y as Tensor;
      expect(got.dims).toEqual([1, 4, 2 * h, 2 * w]);
      expectNear(got.data as Float32Array, want.data as Float32Array, `${h}x${w}`);
    }
    await nativeSession.release();
    await tsSession.release();
  });

  it('runs a kernel equal to its stride as a 1x1 conv and a depth-to-space copy, matching the deconvolution', () => {
    const cases: Array<Partial<ConvTransposePrimitiveOptions> & { inputDims: number[]; weightDims: number[] }> = [
      { inputDims: [1, 64, 12, 10], weightDims: [64, 32, 2, 2], strides: [2, 2], hasBias: true },
      { inputDims: [2, 5, 7, 9], weightDims: [5, 3, 3, 2], strides: [3, 2] },
      { inputDims: [1, 8, 11], weightDims: [8, 4, 4], strides: [4], hasBias: true, activation: 'relu' },
      { inputDims: [1, 6, 3, 4, 5], weightDims: [6, 2, 2, 1, 2], strides: [2, 1, 2], hasBias: true },
      { inputDims: [1, 16, 9, 7], weightDims: [16, 16, 2, 2], strides: [2, 2], hasBias: true, srcBlock: 8, dstBlock: 8, activation: 'leakyRelu', activationAlpha: 0.2 },
      { inputDims: [2, 20, 5, 6], weightDims: [20, 32, 2, 2], strides: [2, 2], srcBlock: 16, dstBlock: 16 },
      { inputDims: [1, 16, 5, 6], weightDims: [16, 16, 2, 2], strides: [2, 2], dstBlock: 8, threads: 2 },
    ];
    for (const c of cases) {
      const weights = seededFloats(product(c.weightDims), 1);
      const bias = c.hasBias ? seededFloats(c.weightDims[1], 2) : undefined;
      const d2s = new Primitive({ ...c, weights, bias });
      const deconv = new Primitive({ ...c, weights, bias, depthToSpace: 'never' });
      const label = JSON.stringify(c);
      expect(d2s.implementation, label).toMatch(/^depth_to_space\(/);
      // Plain X and Y: the 1x1 conv runs on them as they are (oneDNN's GEMM convolution), not in the
      // NHWC or blocked layout oneDNN prefers, which cost a reorder of X and of the staged output.
      if (!c.srcBlock && !c.dstBlock) expect(d2s.implementation, label).toMatch(/gemm/);
      expect(deconv.implementation, label).not.toMatch(/depth_to_space/);
      const lanes = (dims: readonly number[], block?: number) => (block ? product(dims) / dims[1] * Math.ceil(dims[1] / block) * block : product(dims));
      const x = seededFloats(lanes(c.inputDims, c.srcBlock), 3);
      if (c.srcBlock) x.set(toBlocked(seededFloats(product(c.inputDims), 3), c.inputDims, c.srcBlock));
      const a = new Float32Array(lanes(d2s.outputDims, c.dstBlock)).fill(Number.NaN);
      const b2 = new Float32Array(a.length).fill(Number.NaN);
      d2s.runSync(x, null, null, a);
      deconv.runSync(x, null, null, b2);
      expectNear(a, b2, label, 1e-5);
      d2s.dispose();
      deconv.dispose();
    }
    // Not taken: padding, dilation, groups, runtime weights, or a block that does not divide M.
    const base = { inputDims: [1, 8, 6, 6], weightDims: [8, 4, 2, 2], strides: [2, 2], weights: seededFloats(128, 4) };
    for (const change of [{ padsBegin: [1, 0], padsEnd: [1, 0] }, { dilations: [2, 2] }, { group: 2, weightDims: [8, 2, 2, 2], weights: seededFloats(64, 4) }, { weights: undefined }, { dstBlock: 8 as ChannelBlock }]) {
      const p = new Primitive({ ...base, ...change });
      expect(p.implementation, JSON.stringify(change)).not.toMatch(/depth_to_space/);
      p.dispose();
    }
  });

  it('stages outputs past the 16 MiB scratch cache (a UNet up path) without losing the buffer', () => {
    // [1, 8, 512, 512] → [1, 8, 1024, 1024]: 32 MiB staged, more than TempMemory keeps for most slots; a
    // staging buffer allocated per call must live through the copy (it once did not: SIGSEGV).
    const c = { inputDims: [1, 8, 512, 512], weightDims: [8, 8, 2, 2], strides: [2, 2], hasBias: true };
    const weights = seededFloats(product(c.weightDims), 11);
    const bias = seededFloats(8, 12);
    const x = seededFloats(product(c.inputDims), 13);
    const d2s = new Primitive({ ...c, weights, bias, threads: 2 });
    expect(d2s.implementation).toMatch(/^depth_to_space\(/);
    const y = new Float32Array(product(d2s.outputDims)).fill(Number.NaN);
    d2s.runSync(x, null, null, y);
    // Spot-check rows against the definition: y[m, 2h + a, 2w + b] = bias[m] + Σ_c x[c, h, w] · W[c, m, a, b].
    for (const [m, oh, ow] of [[0, 0, 0], [7, 1023, 1023], [3, 511, 2], [5, 1000, 77]]) {
      const [h, a, w, bb] = [oh >> 1, oh & 1, ow >> 1, ow & 1];
      let want = bias[m];
      for (let ch = 0; ch < 8; ch++) want += x[(ch * 512 + h) * 512 + w] * weights[((ch * 8 + m) * 2 + a) * 2 + bb];
      expect(y[(m * 1024 + oh) * 1024 + ow], `${m},${oh},${ow}`).toBeCloseTo(want, 4);
    }
    expect(y.some(Number.isNaN)).toBe(false);
    d2s.dispose();
  });

  it('keeps an image-sized staging buffer between calls instead of page-faulting a fresh one each time', () => {
    // [1, 16, 512, 512] → [1, 16, 1024, 1024]: 64 MiB staged (past glibc's largest mmap threshold, so a
    // per-call allocation is always fresh pages: 16K faults of 4 KiB). Kept, a repeat run faults (almost) nothing.
    const c = { inputDims: [1, 16, 512, 512], weightDims: [16, 16, 2, 2], strides: [2, 2], threads: 2 };
    const d2s = new Primitive({ ...c, weights: seededFloats(product(c.weightDims), 21) });
    expect(d2s.implementation).toMatch(/^depth_to_space\(/);
    const x = seededFloats(product(c.inputDims), 22);
    const y = new Float32Array(product(d2s.outputDims)).fill(1); // touched: its pages are not the ones counted
    d2s.runSync(x, null, null, y);
    const before = process.resourceUsage().minorPageFault;
    d2s.runSync(x, null, null, y);
    d2s.runSync(x, null, null, y);
    const faults = process.resourceUsage().minorPageFault - before;
    expect(faults).toBeLessThan(4096); // a fresh 64 MiB buffer per run: ~32K over the two
    d2s.dispose();
  });

  it('serves a k2 s2 upsampling head (constant weights) like the TS kernel in a session', async () => {
    const wDims = [24, 16, 2, 2];
    const model = buildModel({
      inputs: [['x', 'float32', [2, 24, 'h', 'w']]],
      outputs: [['y', 'float32']],
      initializers: { w: new Tensor('float32', seededFloats(product(wDims), 8), wDims), b: new Tensor('float32', seededFloats(16, 9), [16]) },
      nodes: [{ op: 'ConvTranspose', inputs: ['x', 'w', 'b'], outputs: ['y'], name: 'head', attributes: { kernel_shape: [2, 2], strides: [2, 2] } }],
      opset: 11,
    });
    const nativeSession = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()], intraOpNumThreads: 2 });
    const tsSession = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider({ useNative: false })] });
    for (const [h, w] of [[9, 13], [4, 4]]) {
      const x = new Tensor('float32', seededFloats(2 * 24 * h * w, h), [2, 24, h, w]);
      const got = (await nativeSession.run({ x })).y as Tensor;
      const want = (await tsSession.run({ x })).y as Tensor;
      expect(got.dims).toEqual([2, 16, 2 * h, 2 * w]);
      expectNear(got.data as Float32Array, want.data as Float32Array, `${h}x${w}`);
    }
    await nativeSession.release();
    await tsSession.release();
  });

  it('runs channel-blocked x and y (8 and 16 lanes, padded channels) like plain ones', async () => {
    for (const block of [8, 16] as ChannelBlock[]) {
      for (const [c, m, group] of [[16, 16, 1], [12, 5, 1], [6, 6, 2]]) {
        const options: ConvTransposePrimitiveOptions = { inputDims: [1, c, 6, 5], weightDims: [c, m / group, 2, 3], group, strides: [2, 2], padsBegin: [0, 1], padsEnd: [0, 1], hasBias: true, threads: 2 };
        const weights = seededFloats(product(options.weightDims), c + m);
        const bias = seededFloats(m, 7);
        const plain = new Primitive({ ...options, weights, bias });
        const blocked = new Primitive({ ...options, weights, bias, srcBlock: block, dstBlock: block });
        const x = seededFloats(product(options.inputDims), 3);
        const y = new Float32Array(product(plain.outputDims));
        plain.runSync(x, null, null, y);
        const yBlocked = new Float32Array(product(plain.outputDims) / m * Math.ceil(m / block) * block).fill(Number.NaN);
        await blocked.run(toBlocked(x, options.inputDims, block), null, null, yBlocked);
        const label = JSON.stringify({ block, ...options });
        expectNear(fromBlocked(yBlocked, plain.outputDims, block), y, label, 1e-5);
        // Padding lanes come back zero.
        const spatial = product(plain.outputDims.slice(2));
        const padding = yBlocked.filter((_, i) => Math.floor(i / (block * spatial)) * block + (i % block) >= m);
        expect(padding.every((v) => v === 0), label).toBe(true);
        expect([-1, 0, 8, 16]).toContain(blocked.primitiveLayouts.src);
        plain.dispose();
        blocked.dispose();
      }
    }
  });

  it('fuses Relu, LeakyRelu and Clip after the bias', () => {
    const base: ConvTransposePrimitiveOptions = { inputDims: [1, 4, 5, 5], weightDims: [4, 3, 2, 2], strides: [2, 2], hasBias: true };
    const weights = seededFloats(48, 1);
    const bias = seededFloats(3, 2);
    const x = seededFloats(100, 3);
    const plain = new Primitive({ ...base, weights, bias });
    const y = new Float32Array(3 * 100);
    plain.runSync(x, null, null, y);
    const cases: Array<[Partial<ConvTransposePrimitiveOptions>, (v: number) => number]> = [
      [{ activation: 'relu' }, (v) => Math.max(v, 0)],
      [{ activation: 'leakyRelu', activationAlpha: 0.1 }, (v) => (v < 0 ? 0.1 * v : v)],
      [{ activation: 'clip', activationAlpha: -0.2, activationBeta: 0.3 }, (v) => Math.min(Math.max(v, -0.2), 0.3)],
    ];
    for (const [epilogue, f] of cases) {
      const fused = new Primitive({ ...base, ...epilogue, weights, bias });
      const z = new Float32Array(y.length);
      fused.runSync(x, null, null, z);
      expectNear(z, y.map(f), JSON.stringify(epilogue), 1e-6);
      fused.dispose();
    }
    plain.dispose();
  });

  it('takes weights and bias per run when they are not constant', () => {
    const options: ConvTransposePrimitiveOptions = { inputDims: [2, 6, 4, 4], weightDims: [6, 2, 3, 3], group: 3, strides: [1, 2], dilations: [2, 1], hasBias: true };
    const w = seededFloats(108, 4);
    const bias = seededFloats(6, 5);
    const x = seededFloats(192, 6);
    const packed = new Primitive({ ...options, weights: w, bias });
    const loose = new Primitive(options);
    expect(packed.weightsPacked).toBe(true);
    expect(loose.weightsPacked).toBe(false);
    const a = new Float32Array(product(packed.outputDims));
    const c = new Float32Array(a.length);
    packed.runSync(x, null, null, a);
    loose.runSync(x, w, bias, c);
    expect(Array.from(c)).toEqual(Array.from(a));
    expect(() => packed.runSync(x, w, null, a)).toThrow(/w must be null/);
    expect(() => loose.runSync(x, null, bias, c)).toThrow(/must be a Float32Array/);
    packed.dispose();
    loose.dispose();
  });

  it('rejects bad options and buffers with coded errors', () => {
    const ok: ConvTransposePrimitiveOptions = { inputDims: [1, 4, 5, 5], weightDims: [4, 3, 2, 2], strides: [2, 2] };
    const bad: Array<[Partial<ConvTransposePrimitiveOptions> | Record<string, unknown>, RegExp]> = [
      [{ inputDims: [1, 4] }, /rank 3, 4 or 5/],
      [{ weightDims: [4, 3, 2] }, /must have the input's rank 4/],
      [{ weightDims: [3, 3, 2, 2] }, /must have the input's 4 channels first/],
      [{ group: 3 }, /not divisible by group 3/],
      [{ group: 0 }, /group must be >= 1/],
      [{ strides: [2] }, /strides has 1 entries, expected 2/],
      [{ strides: [0, 2] }, /strides must be >= 1/],
      [{ dilations: [0, 1] }, /dilations must be >= 1/],
      [{ padsBegin: [5, 5], padsEnd: [5, 5] }, /pads larger than the output/],
      [{ padsBegin: [-1, 0] }, /must be >= 0/],
      [{ inputDims: [1, 4, 0, 5] }, /dimension <= 0/],
      [{ inputDims: [1, 4, 100000, 100000] }, /2\^31-1 elements/],
      [{ outputPadding: [1e9, 1e9] }, /2\^31-1 elements/],
      [{ activation: 'notAnActivation' as 'relu' }, /activation must be/],
      [{ bias: new Float32Array(3) }, /hasBias is false/],
      [{ hasBias: true, bias: new Float32Array(2) }, /must have 3 elements, got 2/],
      [{ weights: new Float32Array(47) }, /must have 48 elements, got 47/],
      [{ srcBlock: 4 }, /channel block must be 0 \(plain\), 8 or 16/],
    ];
    for (const [change, message] of bad) {
      let caught: unknown;
      try {
        new Primitive({ ...ok, ...change } as ConvTransposePrimitiveOptions);
      } catch (e) {
        caught = e;
      }
      expect(caught, JSON.stringify(change)).toBeInstanceOf(Error);
      expect((caught as { code?: string }).code, JSON.stringify(change)).toBe('INVALID_ARGUMENT');
      expect((caught as Error).message, JSON.stringify(change)).toMatch(message);
    }
    // Valid ONNX, but beyond what oneDNN's deconvolution takes: UNSUPPORTED (the kernel def hands such shapes to the TS kernel).
    expect(() => new Primitive({ ...ok, strides: [1, 1], dilations: [2, 2], outputPadding: [1, 0] })).toThrow(expect.objectContaining({ code: 'UNSUPPORTED', message: expect.stringMatching(/smaller than the stride 1/) }));
    const p = new Primitive(ok);
    expect(p.outputDims).toEqual([1, 3, 10, 10]);
    expect(() => p.runSync(new Float32Array(99), new Float32Array(48), null, new Float32Array(300))).toThrow(/100 elements, got 99/);
    expect(() => p.runSync(new Float32Array(100), new Float32Array(48), null, new Float32Array(299))).toThrow(/300 elements, got 299/);
    p.dispose();
    expect(() => p.runSync(new Float32Array(100), new Float32Array(48), null, new Float32Array(300))).toThrow(/disposed/);
  });
});
