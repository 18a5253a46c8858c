/**
 * What of the kernel library can be checked without a GPU:
 *  - the JS references the GPU tests compare against (gpu-tests/lib/kernels-reference.mjs) agree with
 *    the CPU EP's independent TypeScript kernels and with core's float16 conversion;
 *  - kernelsJs.run (the test addon's entry, switchyard_hip_test.node) rejects bad specs before touching a device, and reports
 *    the runtime's status when there is no device;
 *  - the GPU test scripts skip cleanly here.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { float16BitsToFloat32, float32ToFloat16Bits, Tensor, type DataType, type KernelDef } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { typescriptKernels } from '@switchyard/ep-cpu';
import { loadNativeHipTest, type NativeHipTestBinding } from './load-test-addon.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const gpuTests = join(packageRoot, 'gpu-tests');

type Flat = { data: number[]; dims: number[] };
interface Reference {
  f32ToF16Bits(v: number): number;
  f16BitsToF32(bits: number): number;
  erf(x: number): number;
  rng(seed: number): () => number;
  randomValues(n: number, rand: () => number, lo?: number, hi?: number): number[];
  sizeOf(dims: number[]): number;
  transpose(x: number[], dims: number[], perm: number[]): Flat;
  pad(x: number[], dims: number[], begin: number[], end: number[], mode: string, value: number): Flat;
  slice(x: number[], dims: number[], starts: number[], steps: number[], outDims: number[]): Flat;
  resolveSlice(dims: number[], starts: number[], ends: number[], steps: number[]): { starts: number[]; steps: number[]; outDims: number[] };
  gather(data: number[], dims: number[], indices: number[], indexDims: number[], axis: number): Flat;
  concat(parts: Flat[], axis: number): Flat;
  expand(x: number[], dims: number[], outDims: number[]): Flat;
  where(c: number[], cDims: number[], x: number[], xDims: number[], y: number[], yDims: number[]): Flat;
  binary(op: string, a: number[], aDims: number[], b: number[], bDims: number[]): Flat;
  softmax(x: number[], dims: number[], log: boolean): Flat;
  reduce(op: string, x: number[], dims: number[], begin: number, end: number): Flat;
  layerNorm(x: number[], r: number[] | undefined, g: number[], b: number[] | undefined, dims: number[], eps: number): { out: number[] };
  compare(a: ArrayLike<number>, e: ArrayLike<number>, tol?: { atol: number; rtol: number }): string | null;
}
// A computed path keeps tsc from pulling gpu-tests/ (outside rootDir) into the build.
const ref = (await import(join(gpuTests, 'lib', 'kernels-reference.mjs'))) as Reference;

function cpuKernel(opType: string): KernelDef {
  const def = typescriptKernels.find((d) => d.opType === opType && d.domain === '' && d.sinceVersion <= 17 && (d.endVersion ?? 99) >= 17);
  if (!def) throw new Error(`no CPU kernel for ${opType}`);
  return def;
}

const f32 = (data: number[], dims: number[]) => new Tensor('float32', Float32Array.from(data), dims);
const i64 = (data: number[], dims: number[]) => new Tensor('int64', BigInt64Array.from(data, BigInt), dims);

async function cpu(opType: string, inputs: Array<Tensor | undefined>, attributes: Record<string, number | number[] | string> = {}, outputs = 1) {
  const result = await runKernel(cpuKernel(opType), inputs, { attributes, opset: 17, outputs });
  return result.map((t) => {
    const tensor = t as Tensor;
    return { data: Array.from(tensor.data as ArrayLike<number | bigint>, Number), dims: [...tensor.dims] };
  });
}

function expectClose(actual: Flat, expected: Flat, tol = { atol: 1e-5, rtol: 1e-5 }) {
  expect(actual.dims).toEqual(expected.dims);
  expect(ref.compare(actual.data, expected.data, tol)).toBeNull();
}

const rand = ref.rng(42);
const values = (dims: number[], lo = -3, hi = 3) => ref.randomValues(ref.sizeOf(dims), rand, lo, hi).map(Math.fround);

describe('kernel references agree with independent implementations', () => {
  it('float16 conversion matches core, ties and subnormals included', () => {
    const samples = [0, -0, 1, 1.0009765625, 1.00048828125, 1.00146484375, 65504, 65519.99, 65520, 1e-7, 5.96e-8, 2.98e-8, 6.1e-5, -3.1415926, NaN, Infinity];
    for (let i = 0; i < 2000; i++) samples.push((rand() - 0.5) * 2 ** Math.floor(rand() * 40 - 28));
    for (const v of samples) {
      expect(ref.f32ToF16Bits(v)).toBe(float32ToFloat16Bits(v));
      const bits = float32ToFloat16Bits(v);
      expect(Object.is(ref.f16BitsToF32(bits), float16BitsToFloat32(bits)) || (Number.isNaN(v) && Number.isNaN(ref.f16BitsToF32(bits)))).toBe(true);
    }
  });

  it('erf is accurate to 1e-9 at known points', () => {
    expect(ref.erf(0.5)).toBeCloseTo(0.5204998778130465, 9);
    expect(ref.erf(-1)).toBeCloseTo(-0.8427007929497149, 9);
    expect(ref.erf(2.9)).toBeCloseTo(0.9999589021219005, 9);
    expect(ref.erf(3.5)).toBeCloseTo(0.9999992569016276, 9);
  });

  it('Transpose (tiled-case and rank-6 permutations)', async () => {
    for (const [dims, perm] of [[[3, 33, 65], [0, 2, 1]], [[2, 3, 4, 5, 6, 7], [5, 3, 1, 0, 2, 4]]] as const) {
      const x = values([...dims]);
      const [got] = await cpu('Transpose', [f32(x, [...dims])], { perm: [...perm] });
      expectClose(ref.transpose(x, [...dims], [...perm]), got);
    }
  });

  it('Pad in constant, reflect and edge modes', async () => {
    const dims = [5, 6];
    const x = values(dims);
    for (const mode of ['constant', 'reflect', 'edge']) {
      const begin = [2, 3], end = [4, 1];
      const [got] = await cpu('Pad', [f32(x, dims), i64([...begin, ...end], [4]), f32([1.5], [])], { mode });
      expectClose(ref.pad(x, dims, begin, end, mode, 1.5), got);
    }
  });

  it('Slice with negative steps and clamping', async () => {
    const dims = [5, 7, 4];
    const x = values(dims);
    const starts = [4, -1, -100], ends = [-6, 0, 100], steps = [-2, -3, 2];
    const [got] = await cpu('Slice', [f32(x, dims), i64(starts, [3]), i64(ends, [3]), i64([0, 1, 2], [3]), i64(steps, [3])]);
    const r = ref.resolveSlice(dims, starts, ends, steps);
    expectClose(ref.slice(x, dims, r.starts, r.steps, r.outDims), got);
  });

  it('Gather with negative indices along a middle axis', async () => {
    const dims = [5, 4, 3];
    const x = values(dims);
    const [got] = await cpu('Gather', [f32(x, dims), i64([3, -4, 1, -1], [2, 2])], { axis: 1 });
    expectClose(ref.gather(x, dims, [3, -4, 1, -1], [2, 2], 1), got);
  });

  it('Concat, Expand and Where', async () => {
    const a = values([2, 1, 3]), b = values([2, 4, 3]);
    const [cat] = await cpu('Concat', [f32(a, [2, 1, 3]), f32(b, [2, 4, 3])], { axis: 1 });
    expectClose(ref.concat([{ data: a, dims: [2, 1, 3] }, { data: b, dims: [2, 4, 3] }], 1), cat);
    const e = values([3, 1]);
    const [expanded] = await cpu('Expand', [f32(e, [3, 1]), i64([2, 3, 4], [3])]);
    expectClose(ref.expand(e, [3, 1], [2, 3, 4]), expanded);
    const cond = [1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0];
    const x = values([1, 4, 5]);
    const [chosen] = await cpu('Where', [new Tensor('bool', Uint8Array.from(cond), [3, 1, 5]), f32(x, [1, 4, 5]), f32([0.25], [])]);
    expectClose(ref.where(cond, [3, 1, 5], x, [1, 4, 5], [0.25], []), chosen);
  });

  it('broadcast binary ops at rank 6', async () => {
    const aDims = [2, 1, 3, 1, 2, 3], bDims = [1, 2, 1, 4, 1, 3];
    const a = values(aDims), b = values(bDims);
    for (const op of ['Sub', 'Max', 'Less']) {
      const [got] = await cpu(op, [f32(a, aDims), f32(b, bDims)]);
      expectClose(ref.binary(op, a, aDims, b, bDims), got);
    }
  });

  it('Softmax, LogSoftmax, ReduceLogSumExp and LayerNormalization', async () => {
    const dims = [3, 1500];
    const x = values(dims, -6, 6);
    const [soft] = await cpu('Softmax', [f32(x, dims)], { axis: -1 });
    expectClose(ref.softmax(x, dims, false), soft);
    const [logSoft] = await cpu('LogSoftmax', [f32(x, dims)], { axis: -1 });
    expectClose(ref.softmax(x, dims, true), logSoft, { atol: 1e-4, rtol: 1e-5 });
    const rDims = [6, 8, 5];
    const r = values(rDims);
    const [lse] = await cpu('ReduceLogSumExp', [f32(r, rDims)], { axes: [1], keepdims: 0 });
    expectClose(ref.reduce('LogSumExp', r, rDims, 1, 2), lse, { atol: 1e-5, rtol: 1e-5 });
    const lDims = [6, 33];
    const l = values(lDims), g = values([33], 0.5, 1.5), b = values([33]);
    const [norm] = await cpu('LayerNormalization', [f32(l, lDims), f32(g, [33]), f32(b, [33])], { axis: -1, epsilon: 1e-5 });
    expectClose({ data: ref.layerNorm(l, undefined, g, b, lDims, 1e-5).out, dims: lDims }, norm, { atol: 1e-4, rtol: 1e-4 });
  });

  it('compare reports a real mismatch and accepts NaN against NaN', () => {
    expect(ref.compare([1, NaN, 3], [1, NaN, 3])).toBeNull();
    expect(ref.compare([1, 2.1, 3], [1, 2, 3], { atol: 1e-3, rtol: 0 })).toMatch(/worst at 1/);
  });
});

// ---- the test addon's kernelsJs, when switchyard_hip_test.node is built

// SWITCHYARD_HIP_ADDON names another build (scripts/sanitize.sh: the ASan + UBSan one): its test addon is
// the one beside it (load-test-addon.ts).
type KernelsJsRun = NativeHipTestBinding['kernelsJs']['run'];
function loadKernelsJs(): { run?: KernelsJsRun; hasDevice: boolean } {
  const loaded = loadNativeHipTest();
  if (!loaded.ok) return { hasDevice: false };
  return { run: loaded.binding.kernelsJs.run, hasDevice: loaded.binding.deviceCount().count > 0 };
}
const addon = loadKernelsJs();
const tensorSpec = (dtype: DataType, dims: number[], data: ArrayBufferView) => ({ dtype, dims, data });

describe.skipIf(addon.run === undefined)('kernelsJs.run (built test addon)', () => {
  const run = addon.run as KernelsJsRun;
  const a = tensorSpec('float32', [2, 3], new Float32Array(6));

  it('rejects unknown kernels, ops and dtypes with TypeErrors', () => {
    expect(() => run('matmul', { inputs: [], outputs: [] })).toThrow(TypeError);
    expect(() => run('unary', { inputs: [a], outputs: [{ dims: [2, 3], dtype: 'float32' }], attrs: { op: 'Cosh' } })).toThrow(/unknown unary op 'Cosh'/);
    expect(() => run('unary', { inputs: [{ ...a, dtype: 'complex64' }], outputs: [] })).toThrow(TypeError);
  });

  it('rejects data that does not fill its dims, and outputs of the wrong shape', () => {
    expect(() => run('unary', { inputs: [tensorSpec('float32', [2, 4], new Float32Array(6))], outputs: [{ dims: [2, 4], dtype: 'float32' }], attrs: { op: 'Relu' } }))
      .toThrow(/holds 24 bytes, dims and dtype need 32/);
    const b = tensorSpec('float32', [3], new Float32Array(3));
    expect(() => run('binary', { inputs: [a, b], outputs: [{ dims: [3, 2], dtype: 'float32' }], attrs: { op: 'Add' } })).toThrow(/output dims must be \[2,3\]/);
    expect(() => run('binary', { inputs: [a, b], outputs: [{ dims: [2, 3], dtype: 'float32' }], attrs: { op: 'Less' } })).toThrow(/output dtype/);
    expect(() => run('transpose', { inputs: [a], outputs: [{ dims: [3, 2], dtype: 'float32' }], attrs: { perm: [0, 0] } })).toThrow(/not a permutation/);
    expect(() => run('slice', { inputs: [a], outputs: [{ dims: [2, 3], dtype: 'float32' }], attrs: { starts: [1, 0], steps: [1, 1] } })).toThrow(/slice leaves dim 0/);
    expect(() => run('gather', { inputs: [a, tensorSpec('float32', [1], new Float32Array(1))], outputs: [{ dims: [1, 3], dtype: 'float32' }] })).toThrow(/int32 or int64/);
  });

  it.skipIf(addon.hasDevice)('reports the runtime status for a valid spec when there is no device', () => {
    const b = tensorSpec('float32', [3], new Float32Array(3));
    let caught: unknown;
    try {
      run('binary', { inputs: [a, b], outputs: [{ dims: [2, 3], dtype: 'float32' }], attrs: { op: 'Add' } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as { code?: string }).code).toMatch(/^(hip|cuda)Error/);
  });
});

describe('GPU test scripts', () => {
  it.skipIf(addon.hasDevice)('skip cleanly without a device', () => {
    const scripts = readdirSync(gpuTests).filter((f) => /^kernels-.*\.mjs$/.test(f)).map((f) => join(gpuTests, f));
    expect(scripts.length).toBeGreaterThanOrEqual(3);
    const output = execFileSync(process.execPath, ['--test', ...scripts], { encoding: 'utf8', env: { ...process.env, SWITCHYARD_GPU_REQUIRED: '' } });
    expect(output).toMatch(/# fail 0/);
    expect(output).toMatch(/# SKIP/);
  });
});
