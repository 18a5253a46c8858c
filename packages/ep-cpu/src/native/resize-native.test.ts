import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, type KernelDef } from '@switchyard/core';
import { buildModel, runKernel, type PlainAttribute } from '@switchyard/core/testing';
import type { ChannelBlock, NativeBinding, ResizePrimitiveOptions } from './binding.js';
import { fromBlocked, toBlocked } from './channel-blocked.js';
import { loadNative } from './load-native.js';
import { nativeResizeKernels } from './resize-native.js';
import { seededFloats } from './test-data.test-util.js';
import { resizeKernel } from '../kernels/Resize.js';
import { upsampleKernel } from '../kernels/Upsample.js';
import { CpuExecutionProvider } from '../cpu-provider.js';

// The addon itself is under test here, so SWITCHYARD_CPU_NATIVE=0 (which only steers the EP) is ignored.
const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok ? native.binding : undefined;
const title = binding?.ResizePrimitive ? 'native Resize' : `native Resize (skipped: ${native.ok ? 'no ResizePrimitive' : native.reason})`;

const COORDINATES = ['half_pixel', 'half_pixel_symmetric', 'pytorch_half_pixel', 'align_corners', 'asymmetric', 'tf_half_pixel_for_nn', 'tf_crop_and_resize'] as const;
const NEAREST = ['round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil'] as const;

/** A small deterministic generator for picking cases. */
function picker(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)), of: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] };
}

const product = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

interface Case {
  dims: number[];
  attributes: Record<string, PlainAttribute>;
  scales?: number[];
  sizes?: number[];
  roi?: number[];
  opset?: number;
}

function inputsOf(c: Case, seed: number): Array<Tensor | undefined> {
  const x = new Tensor('float32', seededFloats(product(c.dims), seed), c.dims);
  if ((c.opset ?? 19) < 11) return [x, new Tensor('float32', c.scales!, [c.scales!.length])];
  return [
    x,
    c.roi ? new Tensor('float32', c.roi, [c.roi.length]) : undefined,
    c.scales ? new Tensor('float32', c.scales, [c.scales.length]) : undefined,
    c.sizes ? new Tensor('int64', c.sizes.map(BigInt), [c.sizes.length]) : undefined,
  ];
}

/** Runs the native def and the TS kernel on the same node; nearest must match exactly, the rest to float rounding. */
async function expectMatchesTs(def: KernelDef, tsDef: KernelDef, c: Case, seed: number, threads = 1): Promise<void> {
  const inputs = inputsOf(c, seed);
  const opts = { opset: c.opset ?? 19, attributes: c.attributes, threads };
  const [got] = (await runKernel(def, inputs, opts)) as Tensor[];
  const [want] = (await runKernel(tsDef, inputs, opts)) as Tensor[];
  const label = JSON.stringify(c);
  expect(got.dims, label).toEqual(want.dims);
  const a = got.data as Float32Array;
  const b = want.data as Float32Array;
  if ((c.attributes.mode ?? 'nearest') === 'nearest') {
    expect(Array.from(a), label).toEqual(Array.from(b));
    return;
  }
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i])));
  expect(worst, label).toBeLessThan(3e-5);
}

describe.skipIf(!binding?.ResizePrimitive)(title, () => {
  const b = binding as NativeBinding;
  const [resizeDef, upsampleDef] = nativeResizeKernels(b);
  const Primitive = b.ResizePrimitive!;

  it('matches the TS kernel on NCHW images for every mode, coordinate transform, nearest_mode, antialias and exclude_outside', async () => {
    // Upsampling, downsampling by non-integer and integer factors, and both at once; odd sizes.
    const targets: Array<Pick<Case, 'scales' | 'sizes'>> = [{ scales: [1, 1, 2, 1.5] }, { scales: [1, 1, 0.6, 0.37] }, { sizes: [2, 3, 4, 21] }, { scales: [1, 1, 0.5, 3] }];
    let seed = 1;
    for (const coordinate of COORDINATES) {
      for (const target of targets) {
        const roi = coordinate === 'tf_crop_and_resize' ? [0, 0, 0.15, -0.2, 1, 1, 0.8, 1.1] : undefined;
        const base = { coordinate_transformation_mode: coordinate, extrapolation_value: { float: 0.75 } };
        for (const nearest of NEAREST) {
          await expectMatchesTs(resizeDef, resizeKernel, { dims: [2, 3, 7, 9], attributes: { ...base, mode: 'nearest', nearest_mode: nearest }, ...target, roi }, seed++);
        }
        for (const mode of ['linear', 'cubic']) {
          for (const antialias of [0, 1]) {
            for (const exclude of [0, 1]) {
              const attributes = { ...base, mode, antialias, exclude_outside: exclude, cubic_coeff_a: { float: exclude ? -0.5 : -0.75 } };
              await expectMatchesTs(resizeDef, resizeKernel, { dims: [2, 3, 7, 9], attributes, ...target, roi }, seed++);
            }
          }
        }
      }
    }
  });

  it('matches the TS kernel on random ranks, axes subsets, opset-18 axes and keep_aspect_ratio_policy, with 1 and 2 threads', async () => {
    const p = picker(7);
    for (let n = 0; n < 120; n++) {
      const rank = p.int(1, 5);
      const dims = Array.from({ length: rank }, () => p.int(1, rank <= 2 ? 23 : 9));
      const mode = p.of(['nearest', 'linear', 'cubic'] as const);
      const coordinate = p.of(COORDINATES);
      // The axes to resize: any subset (the common case, the last two, among them).
      const scaled = dims.map((_, i) => (rank >= 3 && n % 3 === 0 ? i >= rank - 2 : p.next() < 0.6));
      if (!scaled.includes(true)) scaled[rank - 1] = true;
      const useAxes = n % 4 === 1;
      const axes = useAxes ? dims.map((_, i) => i).filter((i) => scaled[i]).map((i) => (p.next() < 0.5 ? i - rank : i)) : undefined;
      const listed = axes ? axes.map((a) => (a < 0 ? a + rank : a)) : dims.map((_, i) => i);
      const attributes: Record<string, PlainAttribute> = {
        mode,
        coordinate_transformation_mode: coordinate,
        nearest_mode: p.of(NEAREST),
        antialias: p.int(0, 1),
        exclude_outside: p.int(0, 1),
        extrapolation_value: { float: -2.5 },
      };
      if (axes) attributes.axes = axes;
      const c: Case = { dims, attributes };
      if (p.next() < 0.5) {
        c.scales = listed.map((a) => (scaled[a] ? p.of([0.37, 0.5, 0.75, 1.25, 1.5, 2, 2.7, 3]) : 1));
      } else {
        c.sizes = listed.map((a) => (scaled[a] ? p.int(1, 2 * dims[a] + 3) : dims[a]));
        if (axes && p.next() < 0.5) attributes.keep_aspect_ratio_policy = p.of(['not_larger', 'not_smaller']);
      }
      if (coordinate === 'tf_crop_and_resize') c.roi = [...listed.map(() => p.next() * 0.6 - 0.2), ...listed.map(() => 0.5 + p.next() * 0.7)];
      await expectMatchesTs(resizeDef, resizeKernel, c, 100 + n, 1 + (n % 2));
    }
  });

  it('repeats sources for integer nearest upsampling of the last axis (x2 to x5, odd widths, every nearest_mode)', async () => {
    let seed = 50;
    for (const factor of [2, 3, 4, 5]) {
      for (const coordinate of ['asymmetric', 'half_pixel', 'align_corners', 'pytorch_half_pixel']) {
        for (const nearest of NEAREST) {
          const attributes = { mode: 'nearest', coordinate_transformation_mode: coordinate, nearest_mode: nearest };
          await expectMatchesTs(resizeDef, resizeKernel, { dims: [1, 3, 5, 7], attributes, scales: [1, 1, factor, factor] }, seed++);
          await expectMatchesTs(resizeDef, resizeKernel, { dims: [2, 9], attributes, sizes: [2, 9 * factor + 1] }, seed++);
        }
      }
    }
  });

  it('serves opset 10 (scales input, Upsample rounding) and Upsample 7 / 9', async () => {
    await expectMatchesTs(resizeDef, resizeKernel, { dims: [1, 2, 5, 7], attributes: { mode: 'nearest' }, scales: [1, 1, 0.6, 2.5], opset: 10 }, 3);
    await expectMatchesTs(resizeDef, resizeKernel, { dims: [1, 2, 5, 7], attributes: { mode: 'linear' }, scales: [1, 1, 1.6, 2.5], opset: 10 }, 4);
    const x = new Tensor('float32', seededFloats(70, 5), [1, 2, 5, 7]);
    for (const mode of ['nearest', 'linear', 'bilinear']) {
      const scales = new Tensor('float32', [1, 1, 2, 3], [4]);
      const opts = { opset: 9, attributes: { mode } };
      const [got] = (await runKernel(upsampleDef, [x, scales], opts)) as Tensor[];
      const [want] = (await runKernel(upsampleKernel, [x, scales], opts)) as Tensor[];
      expect(got.dims).toEqual([1, 2, 10, 21]);
      expect(Array.from(got.data as Float32Array).map((v, i) => Math.abs(v - (want.data as Float32Array)[i]) < 1e-6)).not.toContain(false);
      const [v7] = (await runKernel(upsampleDef, [x], { opset: 7, attributes: { mode, scales: { floats: [1, 1, 2, 3] } } })) as Tensor[];
      expect(Array.from(v7.data as Float32Array)).toEqual(Array.from(got.data as Float32Array));
    }
  });

  it('takes each path: identity, copy, separable by plane and by pass', () => {
    const make = (o: Partial<ResizePrimitiveOptions>) => new Primitive({ inputDims: [1, 16, 8, 8], outputDims: [1, 16, 16, 16], scales: [1, 1, 2, 2], ...o });
    const cases: Array<[Partial<ResizePrimitiveOptions>, RegExp]> = [
      [{ outputDims: [1, 16, 8, 8], scales: [1, 1, 1, 1], mode: 'linear' }, /^resize_identity$/],
      [{ mode: 'nearest' }, /^resize_copy:(avx512|avx2|sse2)$/],
      // Linear on whole-number coordinates (asymmetric halving) is a copy too.
      [{ outputDims: [1, 16, 4, 4], scales: [1, 1, 0.5, 0.5], mode: 'linear', coordinateMode: 'asymmetric' }, /^resize_copy:/],
      [{ mode: 'linear', threads: 2 }, /^resize_separable:\w+ \(2 passes, by plane\)$/],
      [{ inputDims: [1, 1, 8, 8], outputDims: [1, 1, 16, 16], mode: 'linear', threads: 2 }, /^resize_separable:\w+ \(2 passes, by pass\)$/],
    ];
    for (const [options, pattern] of cases) {
      const p = make(options);
      expect(p.implementation).toMatch(pattern);
      // Every path agrees with the plain separable computation at one thread.
      const o = { inputDims: [1, 16, 8, 8], outputDims: [1, 16, 16, 16], scales: [1, 1, 2, 2], ...options };
      const x = seededFloats(product(o.inputDims), 9);
      const y = new Float32Array(product(o.outputDims));
      p.runSync(x, y);
      const one = new Primitive({ ...o, threads: 1 });
      const z = new Float32Array(y.length);
      one.runSync(x, z);
      expect(Array.from(y)).toEqual(Array.from(z));
      p.dispose();
      one.dispose();
    }
  });

  it('resizes channel-blocked tensors (8 and 16 lanes, padded channels) like plain ones, padding lanes kept zero', async () => {
    const p = picker(11);
    const plainOf = (o: ResizePrimitiveOptions) => new Primitive({ ...o, block: 0 });
    let n = 0;
    for (const block of [8, 16] as ChannelBlock[]) {
      for (const mode of ['nearest', 'linear', 'cubic'] as const) {
        for (const coordinateMode of ['half_pixel', 'align_corners', 'tf_crop_and_resize', 'pytorch_half_pixel'] as const) {
          const rank = 3 + (n++ % 3);
          const channels = p.of([3, 8, 11, 19]);
          const inputDims = [2, channels, ...Array.from({ length: rank - 2 }, () => p.int(1, 9))];
          const outputDims = inputDims.map((d, i) => (i < 2 ? d : p.int(1, 2 * d + 2)));
          const options: ResizePrimitiveOptions = {
            inputDims,
            outputDims,
            scales: outputDims.map((d, i) => d / inputDims[i]),
            roi: coordinateMode === 'tf_crop_and_resize' ? [...inputDims.map((_, i) => (i < 2 ? 0 : -0.1)), ...inputDims.map((_, i) => (i < 2 ? 1 : 1.2))] : undefined,
            mode,
            coordinateMode,
            antialias: true,
            extrapolationValue: 3.5,
            threads: 1 + (n % 2),
          };
          const x = seededFloats(product(inputDims), n);
          const yPlain = new Float32Array(product(outputDims));
          const plain = plainOf(options);
          plain.runSync(x, yPlain);
          const blocked = new Primitive({ ...options, block });
          const yBlocked = new Float32Array(product(outputDims.slice(2)) * outputDims[0] * Math.ceil(channels / block) * block).fill(Number.NaN);
          await blocked.run(toBlocked(x, inputDims, block), yBlocked);
          const label = JSON.stringify({ block, ...options });
          const back = fromBlocked(yBlocked, outputDims, block);
          let worst = 0;
          for (let i = 0; i < back.length; i++) worst = Math.max(worst, Math.abs(back[i] - yPlain[i]));
          if (mode === 'nearest') expect(worst, label).toBe(0);
          else expect(worst, label).toBeLessThan(1e-5);
          // The padding lanes, written by the resize (the buffer started as NaN), are zero.
          const padding = yBlocked.filter((_, i) => {
            const lane = i % block;
            const blockIndex = Math.floor(i / (block * product(outputDims.slice(2)))) % Math.ceil(channels / block);
            return blockIndex * block + lane >= channels;
          });
          expect(padding.every((v) => v === 0), label).toBe(true);
          plain.dispose();
          blocked.dispose();
        }
      }
    }
  });

  it('serves dynamic H/W in a session, one primitive per shape seen', async () => {
    const model = buildModel({
      inputs: [['x', 'float32', [1, 4, 'h', 'w']]],
      outputs: [['y', 'float32']],
      initializers: { scales: new Tensor('float32', [1, 1, 2, 2], [4]) },
      nodes: [{ op: 'Resize', inputs: ['x', '', 'scales'], outputs: ['y'], name: 'up', attributes: { mode: 'linear' } }],
      opset: 13,
    });
    const nativeSession = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()] });
    const tsSession = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider({ useNative: false })] });
    expect(nativeSession.placement.nodes[0].implementation).toBe('native');
    for (const [h, w] of [[5, 7], [16, 9], [5, 7]]) {
      const x = new Tensor('float32', seededFloats(4 * h * w, h * w), [1, 4, h, w]);
      const got = (await nativeSession.run({ x })).y as Tensor;
      const want = (await tsSession.run({ x })).y as Tensor;
      expect(got.dims).toEqual([1, 4, 2 * h, 2 * w]);
      const a = got.data as Float32Array;
      const b2 = want.data as Float32Array;
      for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b2[i])).toBeLessThan(1e-5);
    }
    await nativeSession.release();
    await tsSession.release();
  });

  it('hands other dtypes and empty tensors to the TS kernel', async () => {
    const model = buildModel({
      inputs: [['x', 'float64', [1, 1, 2, 2]]],
      outputs: [['y', 'float64']],
      initializers: { scales: new Tensor('float32', [1, 1, 2, 2], [4]) },
      nodes: [{ op: 'Resize', inputs: ['x', '', 'scales'], outputs: ['y'], name: 'up' }],
      opset: 13,
    });
    const session = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()] });
    expect(session.placement.nodes[0].implementation).not.toBe('native');
    await session.release();
    const [y] = (await runKernel(resizeDef, [new Tensor('float32', [], [1, 0, 2, 2]), undefined, new Tensor('float32', [1, 1, 2, 2], [4])], { opset: 13 })) as Tensor[];
    expect(y.dims).toEqual([1, 0, 4, 4]);
  });

  it('rejects bad options and buffers with coded errors', () => {
    const ok: ResizePrimitiveOptions = { inputDims: [1, 2, 4, 4], outputDims: [1, 2, 8, 8], scales: [1, 1, 2, 2], mode: 'linear' };
    const bad: Array<[Partial<ResizePrimitiveOptions> | Record<string, unknown>, RegExp]> = [
      [{ scales: [1, 2, 2] }, /scales has 3 entries, expected 4/],
      [{ outputDims: [1, 2, 8] }, /must have the input's rank 4/],
      [{ scales: [1, 1, Number.NaN, 2] }, /must not be NaN/],
      [{ scales: [1, 1, 0, 2] }, /finite and > 0/],
      [{ scales: [1, 1, -2, 2] }, /finite and > 0/],
      [{ scales: [1, 1, Infinity, 2] }, /finite and > 0/],
      [{ outputDims: [1, 2, 0, 8] }, /dimension <= 0/],
      [{ inputDims: [1, 0, 4, 4] }, /dimension <= 0/],
      [{ outputDims: [1, 2, 1e6, 1e6] }, /2\^31-1 elements/],
      [{ inputDims: [] , outputDims: [], scales: [] }, /rank >= 1/],
      [{ mode: 'bilinear' }, /mode must be 'nearest', 'linear' or 'cubic'/],
      [{ coordinateMode: 'center' }, /coordinateMode must be/],
      [{ nearestMode: 'up' }, /nearestMode must be/],
      [{ coordinateMode: 'tf_crop_and_resize', roi: [0, 0, 0, 0, 1, 1, 1] }, /roi with 8 values, got 7/],
      [{ coordinateMode: 'tf_crop_and_resize' }, /roi with 8 values, got 0/],
      [{ block: 4 }, /block must be 0 \(plain\), 8 or 16/],
      [{ block: 8, outputDims: [1, 4, 8, 8], scales: [1, 2, 2, 2] }, /spatial axes only/],
      [{ block: 8, inputDims: [4, 4], outputDims: [8, 8], scales: [2, 2] }, /rank 3 to 5/],
      [{ antialias: true, outputDims: [1, 2, 4, 1], scales: [1, 1, 1, 1e-9] }, /antialias taps/],
      [{ inputDims: 'x' }, /must be an array/],
      [{ cubicCoeffA: Number.NaN }, /must not be NaN/],
    ];
    for (const [change, message] of bad) {
      let caught: unknown;
      try {
        new Primitive({ ...ok, ...change } as ResizePrimitiveOptions);
      } catch (e) {
        caught = e;
      }
      expect(caught, JSON.stringify(change)).toBeInstanceOf(Error);
      expect((caught as { code?: string }).code, JSON.stringify(change)).toBe('INVALID_ARGUMENT');
      expect((caught as Error).message).toMatch(message);
    }
    const p = new Primitive(ok);
    expect(() => p.runSync(new Float32Array(31), new Float32Array(128))).toThrow(/32 elements, got 31/);
    expect(() => p.runSync(new Float32Array(32), new Float64Array(128) as unknown as Float32Array)).toThrow(/must be a Float32Array/);
    p.dispose();
    expect(() => p.runSync(new Float32Array(32), new Float32Array(128))).toThrow(/disposed/);
  });
});
