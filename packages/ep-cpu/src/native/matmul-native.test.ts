import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, type KernelDef } from '@switchyard/core';
import { buildModel, runKernel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';
import { nativeKernels } from './native-kernels.js';
import { isaFamily, seededFloats } from './test-data.test-util.js';

// The addon itself is under test here, so SWITCHYARD_CPU_NATIVE=0 (which only steers the EP) is ignored.
const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const title = native.ok ? 'oneDNN MatMul' : `oneDNN MatMul (skipped: ${native.reason})`;

const random = (n: number, seed: number) => seededFloats(n, seed);

const size = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

/** numpy.matmul by definition: promote 1-D operands, broadcast batch dims, then drop promoted axes. */
function referenceMatMul(a: Float32Array, aDims: number[], b: Float32Array, bDims: number[]): { dims: number[]; data: Float32Array } {
  const A = aDims.length === 1 ? [1, aDims[0]] : aDims;
  const B = bDims.length === 1 ? [bDims[0], 1] : bDims;
  const rank = Math.max(A.length, B.length);
  const pa = [...Array<number>(rank - A.length).fill(1), ...A];
  const pb = [...Array<number>(rank - B.length).fill(1), ...B];
  const batch = pa.slice(0, -2).map((d, i) => Math.max(d, pb[i]));
  const [M, K, N] = [pa[rank - 2], pa[rank - 1], pb[rank - 1]];
  const batches = size(batch);
  const y = new Float32Array(batches * M * N);
  for (let t = 0; t < batches; t++) {
    // Decompose the output batch index and map it into each operand (index 0 where that operand has 1).
    let rem = t;
    let offA = 0;
    let offB = 0;
    let strideA = M * K;
    let strideB = K * N;
    for (let i = batch.length - 1; i >= 0; i--) {
      const idx = rem % batch[i];
      rem = Math.floor(rem / batch[i]);
      offA += (pa[i] === 1 ? 0 : idx) * strideA;
      offB += (pb[i] === 1 ? 0 : idx) * strideB;
      strideA *= pa[i];
      strideB *= pb[i];
    }
    for (let m = 0; m < M; m++)
      for (let n = 0; n < N; n++) {
        let acc = 0;
        for (let k = 0; k < K; k++) acc += a[offA + m * K + k] * b[offB + k * N + n];
        y[(t * M + m) * N + n] = acc;
      }
  }
  const dims = [...batch, ...(aDims.length > 1 ? [M] : []), ...(bDims.length > 1 ? [N] : [])];
  return { dims, data: y };
}

function expectClose(actual: Float32Array, expected: Float32Array): void {
  expect(actual.length).toBe(expected.length);
  let worst = 0;
  for (let i = 0; i < actual.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]) / (1 + Math.abs(expected[i])));
  expect(worst).toBeLessThan(1e-4);
}

const cases: Array<[string, number[], number[]]> = [
  ['2-D', [7, 5], [5, 9]],
  ['2-D large enough to go async', [64, 96], [96, 80]],
  ['batched, same batch', [3, 4, 6], [3, 6, 5]],
  ['batch broadcast on B (B is 2-D)', [2, 3, 4, 6], [6, 5]],
  ['batch broadcast on A (A batch 1)', [1, 4, 6], [3, 6, 5]],
  ['batch dims broadcast both ways', [2, 1, 3, 4], [1, 5, 4, 2]],
  ['seq-first single rows (B is 2-D)', [9, 1, 6], [6, 5]],
  ['B batch dims all 1', [3, 2, 6], [1, 1, 6, 5]],
  ['1-D A', [6], [2, 6, 3]],
  ['1-D B', [2, 4, 6], [6]],
  ['1-D × 1-D', [6], [6]],
];

describe.skipIf(!native.ok)(title, () => {
  const binding = native.ok ? native.binding : undefined!;
  const def: KernelDef = nativeKernels(binding).find((d) => d.opType === 'MatMul')!;

  for (const [name, aDims, bDims] of cases) {
    it(`matches the reference loop: ${name} ${JSON.stringify(aDims)} × ${JSON.stringify(bDims)}`, async () => {
      const a = random(size(aDims), 11);
      const b = random(size(bDims), 12);
      const [y] = await runKernel(def, [new Tensor('float32', a, aDims), new Tensor('float32', b, bDims)], { threads: 2 });
      const ref = referenceMatMul(a, aDims, b, bDims);
      expect((y as Tensor).dims).toEqual(ref.dims);
      expectClose((y as Tensor).data as Float32Array, ref.data);
    });
  }

  it('asks oneDNN for one [rows, K] x [K, N] product when B has no batch of its own', async () => {
    const built: Array<{ aDims: readonly number[]; bDims: readonly number[] }> = [];
    const MatMulPrimitive = binding.MatMulPrimitive;
    const spy = { ...binding, MatMulPrimitive: function (options: { aDims: number[]; bDims: number[] }) {
      built.push({ aDims: options.aDims, bDims: options.bDims });
      return new MatMulPrimitive(options);
    } } as unknown as typeof binding;
    const spyDef = nativeKernels(spy).find((d) => d.opType === 'MatMul')!;
    for (const [aDims, bDims] of [[[9, 1, 6], [6, 5]], [[2, 3, 4, 6], [1, 6, 5]], [[3, 4, 6], [3, 6, 5]]]) {
      const a = random(size(aDims), 31);
      const b = random(size(bDims), 32);
      const [y] = await runKernel(spyDef, [new Tensor('float32', a, aDims), new Tensor('float32', b, bDims)], { threads: 2 });
      const ref = referenceMatMul(a, aDims, b, bDims);
      expect((y as Tensor).dims).toEqual(ref.dims);
      expectClose((y as Tensor).data as Float32Array, ref.data);
    }
    // A batched B keeps its batch: only the first two collapse.
    expect(built).toEqual([{ aDims: [9, 6], bDims: [6, 5] }, { aDims: [24, 6], bDims: [6, 5] }, { aDims: [3, 4, 6], bDims: [3, 6, 5] }]);
  });

  it('gives zeros when the inner dimension is 0 and an empty result for an empty batch', async () => {
    const [y] = await runKernel(def, [new Tensor('float32', new Float32Array(0), [3, 0]), new Tensor('float32', new Float32Array(0), [0, 2])]);
    expect((y as Tensor).dims).toEqual([3, 2]);
    expect(Array.from((y as Tensor).data as Float32Array)).toEqual([0, 0, 0, 0, 0, 0]);
    const [e] = await runKernel(def, [new Tensor('float32', new Float32Array(0), [0, 3, 4]), new Tensor('float32', random(8, 1), [4, 2])]);
    expect((e as Tensor).dims).toEqual([0, 3, 2]);
  });

  it('packs a constant B at construction (and copies it)', async () => {
    const aDims = [2, 5, 8];
    const bDims = [8, 3];
    const a = random(size(aDims), 13);
    const b = random(size(bDims), 14);
    const ref = referenceMatMul(a, aDims, b, bDims);
    const mm = new binding.MatMulPrimitive({ aDims, bDims, b });
    expect(mm.weightsPacked).toBe(true);
    expect(mm.outputDims).toEqual([2, 5, 3]);
    b.fill(0);
    const y = new Float32Array(30);
    await mm.run(a, null, y);
    expectClose(y, ref.data);
    mm.dispose();
  });

  it('packs B for another shape from a primitive that packed it (packedFrom), whatever route either took', async () => {
    const bDims = [24, 40];
    const b = random(size(bDims), 21);
    // Many rows (a 1x1 convolution on AVX2, brgemm on AVX-512), one row (matmul), then rows again:
    // each packs from the one before, never from the caller's B.
    const first = new binding.MatMulPrimitive({ aDims: [64, 24], bDims, b: b.slice() });
    const single = new binding.MatMulPrimitive({ aDims: [1, 24], bDims, packedFrom: first });
    first.dispose();
    const again = new binding.MatMulPrimitive({ aDims: [3, 17, 24], bDims, packedFrom: single });
    for (const [mm, aDims] of [[single, [1, 24]], [again, [3, 17, 24]]] as const) {
      expect(mm.weightsPacked).toBe(true);
      const a = random(size(aDims), 22);
      const y = new Float32Array(size(mm.outputDims));
      await mm.run(a, null, y);
      expectClose(y, referenceMatMul(a, [...aDims], b, bDims).data);
      mm.dispose();
    }
  });

  it('refuses a packedFrom that cannot serve', () => {
    const b = random(24 * 40, 23);
    const donor = new binding.MatMulPrimitive({ aDims: [4, 24], bDims: [24, 40], b });
    expect(() => new binding.MatMulPrimitive({ aDims: [4, 24], bDims: [24, 40], b, packedFrom: donor })).toThrow(/b and options.packedFrom are exclusive/);
    expect(() => new binding.MatMulPrimitive({ aDims: [4, 40], bDims: [40, 24], packedFrom: donor })).toThrow(/packedFrom holds B \[24, 40\], not \[40, 24\]/);
    const unpacked = new binding.MatMulPrimitive({ aDims: [4, 24], bDims: [24, 40] });
    expect(() => new binding.MatMulPrimitive({ aDims: [4, 24], bDims: [24, 40], packedFrom: unpacked })).toThrow(/did not pack its B/);
    expect(() => new binding.MatMulPrimitive({ aDims: [4, 24], bDims: [24, 40], packedFrom: {} as never })).toThrow(/packedFrom must be a MatMulPrimitive/);
    donor.dispose();
    expect(() => new binding.MatMulPrimitive({ aDims: [4, 24], bDims: [24, 40], packedFrom: donor })).toThrow(/disposed/);
    unpacked.dispose();
  });

  it('packs B at session creation when only the batch is symbolic, releases the model copy, and serves every batch', async () => {
    const [rows, k, n] = [7, 24, 40];
    const b = random(k * n, 31);
    const model = buildModel({
      inputs: [['x', 'float32', ['batch', rows, k]]],
      outputs: [['y', 'float32']],
      initializers: { w: new Tensor('float32', b.slice(), [k, n]) },
      nodes: [{ op: 'MatMul', inputs: ['x', 'w'], outputs: ['y'] }],
    });
    const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: 'disabled' });
    try {
      expect(s.placement.nodes[0].implementation).toBe('onednn');
      expect(s.optimization.memory?.releasedConstantBytes).toBe(4 * k * n);
      for (const batch of [1, 3, 1, 5]) {
        const x = random(batch * rows * k, 32 + batch);
        const y = (await s.run({ x: new Tensor('float32', x, [batch, rows, k]) })).y as Tensor;
        expect(y.dims).toEqual([batch, rows, n]);
        expectClose(y.data as Float32Array, referenceMatMul(x, [batch, rows, k], b, [k, n]).data);
      }
    } finally {
      await s.release();
    }
  });

  it('packs B at creation when more than the batch is symbolic too (a sequence), and serves every shape', async () => {
    const [k, n] = [8, 4];
    const b = random(k * n, 41);
    const model = buildModel({
      inputs: [['x', 'float32', ['batch', 'seq', k]]],
      outputs: [['y', 'float32']],
      initializers: { w: new Tensor('float32', b.slice(), [k, n]) },
      nodes: [{ op: 'MatMul', inputs: ['x', 'w'], outputs: ['y'] }],
    });
    const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: 'disabled' });
    try {
      expect(s.optimization.memory?.releasedConstantBytes).toBe(4 * k * n);
      for (const [batch, seq] of [[2, 3], [1, 1], [3, 5], [2, 3]]) {
        const x = random(batch * seq * k, 42 + seq);
        const y = (await s.run({ x: new Tensor('float32', x, [batch, seq, k]) })).y as Tensor;
        expect(y.dims).toEqual([batch, seq, n]);
        expectClose(y.data as Float32Array, referenceMatMul(x, [batch, seq, k], b, [k, n]).data);
      }
    } finally {
      await s.release();
    }
  });

  // A constant 2-D B runs as a oneDNN 1x1 convolution (pointwise_gemm.h) where that is oneDNN's jit_1x1
  // kernel (AVX2); on AVX-512 the brgemm matmul serves it.
  for (const [name, aDims, bDims, bias, activation] of [
    ['3-D A, bias, Relu', [2, 17, 24], [24, 40], true, 'relu'],
    ['odd sizes, no bias', [13, 7], [7, 11], false, 'none'],
    ['BERT FFN shape, bias, Clip', [1, 128, 768], [768, 96], true, 'clip'],
  ] as Array<[string, number[], number[], boolean, 'relu' | 'none' | 'clip']>) {
    it(`serves a constant 2-D B as a 1x1 convolution (AVX2) or brgemm matmul (AVX-512) and matches: ${name}`, async () => {
      const a = random(size(aDims), 21);
      const b = random(size(bDims), 22);
      const n = bDims[1];
      const biasData = random(n, 23);
      const ref = referenceMatMul(a, aDims, b, bDims).data.map((v, i) => {
        const x = v + (bias ? biasData[i % n] : 0);
        return activation === 'relu' ? Math.max(0, x) : activation === 'clip' ? Math.min(0.5, Math.max(-0.25, x)) : x;
      });
      const mm = new binding.MatMulPrimitive({
        aDims,
        bDims,
        b,
        hasBias: bias,
        bias: bias ? biasData : undefined,
        activation,
        activationAlpha: -0.25,
        activationBeta: 0.5,
      });
      if (isaFamily(binding) === 'avx2') expect(mm.implementation).toMatch(/^jit_1x1.*as 1x1 conv/);
      if (isaFamily(binding) === 'avx512') expect(mm.implementation).toMatch(/^brg/);
      const y = new Float32Array(ref.length);
      await mm.run(a, null, y);
      expectClose(y, ref);
    });
  }

  it('fuses Relu when asked', () => {
    const a = random(12, 15);
    const b = random(12, 16);
    const ref = referenceMatMul(a, [3, 4], b, [4, 3]);
    const mm = new binding.MatMulPrimitive({ aDims: [3, 4], bDims: [4, 3], fuseRelu: true });
    const y = new Float32Array(9);
    mm.runSync(a, b, y);
    expectClose(y, ref.data.map((v) => Math.max(0, v)));
    expect(ref.data.some((v) => v < 0)).toBe(true);
  });
});
