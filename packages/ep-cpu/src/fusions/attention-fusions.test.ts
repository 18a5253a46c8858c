/**
 * The oneDNN-only transformer fusions (attention matmuls → StridedMatMul, residual Add +
 * LayerNormalization → SkipLayerNormalization) on hand-built BERT pieces: 'disabled' vs 'all' must
 * agree and the optimized graph must hold the fused ops; near-misses must stay as they are.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel, hostTestProvider, runKernel, type NodeSpec } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { nativeBinding } from '../native/load-native.js';
import { stridedMatMulKernel, stridedMatMulReference } from '../kernels/StridedMatMul.js';
import { nativeStridedMatMulKernels } from '../native/strided-matmul-native.js';
import { compareLevels, scalar, tensor, values } from './test-models.test-util.js';

const provider = new CpuExecutionProvider();
const hasAddon = provider.nativeUnavailable === undefined;
const loaded = nativeBinding();
const binding = loaded.ok ? loaded.binding : undefined;
const NH = 3;
const S = 8;
const D = 4;

/** BERT's self-attention core on q/k/v [B, S, NH, D] and an additive mask [B, 1, 1, S]. */
function attention(B: number, opts: { scaleInput?: boolean; qtOutput?: boolean; mul?: boolean; maskBatch?: number } = {}) {
  const nodes: NodeSpec[] = [
    { op: 'Transpose', inputs: ['q'], outputs: ['qt'], attributes: { perm: [0, 2, 1, 3] } },
    { op: 'Transpose', inputs: ['k'], outputs: ['kt'], attributes: { perm: [0, 2, 3, 1] } },
    { op: 'MatMul', inputs: ['qt', 'kt'], outputs: ['s0'] },
    opts.mul ? { op: 'Mul', inputs: ['invsqrt', 's0'], outputs: ['s1'] } : { op: 'Div', inputs: ['s0', opts.scaleInput ? 'sc' : 'sqrtd'], outputs: ['s1'] },
    { op: 'Add', inputs: ['s1', 'mask'], outputs: ['s2'] },
    { op: 'Softmax', inputs: ['s2'], outputs: ['p'], attributes: { axis: -1 } },
    { op: 'Transpose', inputs: ['v'], outputs: ['vt'], attributes: { perm: [0, 2, 1, 3] } },
    { op: 'MatMul', inputs: ['p', 'vt'], outputs: ['c'] },
    { op: 'Transpose', inputs: ['c'], outputs: ['y'], attributes: { perm: [0, 2, 1, 3] } },
  ];
  const inputs: Array<[string, 'float32', number[]]> = [
    ['q', 'float32', [B, S, NH, D]],
    ['k', 'float32', [B, S, NH, D]],
    ['v', 'float32', [B, S, NH, D]],
    ['mask', 'float32', [opts.maskBatch ?? B, 1, 1, S]],
  ];
  if (opts.scaleInput) inputs.push(['sc', 'float32', []]);
  const outputs: Array<[string, 'float32']> = [['y', 'float32']];
  if (opts.qtOutput) outputs.push(['qt', 'float32']);
  return () => buildModel({ inputs, outputs, nodes, initializers: { sqrtd: scalar(Math.sqrt(D)), invsqrt: scalar(1 / Math.sqrt(D), [1]) } });
}

function feeds(B: number, seed: number): Record<string, Tensor> {
  // Masked keys (-10000) as BERT's extended attention mask has them: the last two of batch 0, the first of batch 1.
  const mask = new Float32Array(B * S);
  mask[S - 1] = mask[S - 2] = -10000;
  if (B > 1) mask[S] = -10000;
  return {
    q: tensor([B, S, NH, D], seed, -2, 2),
    k: tensor([B, S, NH, D], seed + 1, -2, 2),
    v: tensor([B, S, NH, D], seed + 2),
    mask: new Tensor('float32', mask, [B, 1, 1, S]),
  };
}

/** The same block with the exporter's Reshapes: q/k/v [B, S, NH·D] → [B, S, NH, D], and back to [B, S, NH·D]. */
function attentionWithReshapes(B: number) {
  const split = new Tensor('int64', BigInt64Array.of(0n, 0n, BigInt(NH), BigInt(D)), [4]);
  const merge = new Tensor('int64', BigInt64Array.of(0n, 0n, -1n), [3]);
  const nodes: NodeSpec[] = [
    ...['q', 'k', 'v'].map((n): NodeSpec => ({ op: 'Reshape', inputs: [`${n}2`, 'split'], outputs: [n] })),
    { op: 'Transpose', inputs: ['q'], outputs: ['qt'], attributes: { perm: [0, 2, 1, 3] } },
    { op: 'Transpose', inputs: ['k'], outputs: ['kt'], attributes: { perm: [0, 2, 3, 1] } },
    { op: 'MatMul', inputs: ['qt', 'kt'], outputs: ['s0'] },
    { op: 'Div', inputs: ['s0', 'sqrtd'], outputs: ['s1'] },
    { op: 'Add', inputs: ['mask', 's1'], outputs: ['s2'] },
    { op: 'Softmax', inputs: ['s2'], outputs: ['p'], attributes: { axis: -1 } },
    { op: 'Transpose', inputs: ['v'], outputs: ['vt'], attributes: { perm: [0, 2, 1, 3] } },
    { op: 'MatMul', inputs: ['p', 'vt'], outputs: ['c'] },
    { op: 'Transpose', inputs: ['c'], outputs: ['ct'], attributes: { perm: [0, 2, 1, 3] } },
    { op: 'Reshape', inputs: ['ct', 'merge'], outputs: ['y'] },
  ];
  return () =>
    buildModel({
      inputs: [['q2', 'float32', [B, S, NH * D]], ['k2', 'float32', [B, S, NH * D]], ['v2', 'float32', [B, S, NH * D]], ['mask', 'float32', [B, 1, 1, S]]],
      outputs: [['y', 'float32']],
      nodes,
      initializers: { sqrtd: scalar(Math.sqrt(D)), split, merge },
    });
}

describe('StridedMatMul reference (TS)', () => {
  it('equals Transpose → MatMul → scale → mask → Transpose computed naively', () => {
    const a = tensor([2, 3, 4], 1); // A' = perm [0, 2, 1] → [2, 4, 3]
    const b = tensor([2, 5, 3], 2); // B' = perm [0, 2, 1] → [2, 3, 5]
    const mask = tensor([1, 5], 3);
    const y = stridedMatMulReference('t', a, b, mask, { permA: [0, 2, 1], permB: [0, 2, 1], permY: [1, 0, 2], scale: 0.5 });
    expect(y.dims).toEqual([4, 2, 5]);
    const A = a.data, B = b.data, M = mask.data;
    for (let n = 0; n < 2; n++) for (let i = 0; i < 4; i++) for (let j = 0; j < 5; j++) {
      let acc = 0;
      for (let t = 0; t < 3; t++) acc += A[n * 12 + t * 4 + i] * B[n * 15 + j * 3 + t];
      expect(y.data[i * 10 + n * 5 + j]).toBeCloseTo(acc * 0.5 + M[j], 5);
    }
  });

  it('rejects a mask that would widen the product', () => {
    expect(() => stridedMatMulReference('t', tensor([2, 2], 1), tensor([2, 2], 2), tensor([3, 2, 2], 3), { scale: 1 })).toThrow(/widening/);
  });
});

describe.runIf(hasAddon)('attention matmul fusion (oneDNN)', () => {
  it('folds the transposes, 1/√d and the mask into two StridedMatMuls (batch 1 and 2, -10000 mask entries)', async () => {
    for (const B of [1, 2]) {
      const r = await compareLevels(attention(B), feeds(B, 10 + B), { tol: 1e-5 });
      expect(r.ops).toEqual(['com.switchyard::StridedMatMul', 'Softmax', 'com.switchyard::StridedMatMul']);
      expect(r.implementations).toEqual(['onednn', 'native', 'onednn']);
      expect(r.fired).toContain('cpu:attention-matmul-fusion');
    }
  });

  it('folds the Reshapes around the block too (0 and -1 in their shapes)', async () => {
    for (const B of [1, 2]) {
      const f = feeds(B, 50 + B);
      const flat = (t: Tensor) => new Tensor('float32', t.data as Float32Array, [B, S, NH * D]);
      const r = await compareLevels(attentionWithReshapes(B), { q2: flat(f.q), k2: flat(f.k), v2: flat(f.v), mask: f.mask }, { tol: 1e-5 });
      expect(r.ops).toEqual(['com.switchyard::StridedMatMul', 'Softmax', 'com.switchyard::StridedMatMul']);
    }
  });

  it('takes a Mul by a constant [1] as the scale', async () => {
    const r = await compareLevels(attention(2, { mul: true }), feeds(2, 20), { tol: 1e-5 });
    expect(r.ops).toEqual(['com.switchyard::StridedMatMul', 'Softmax', 'com.switchyard::StridedMatMul']);
  });

  it('keeps a runtime scale (and so the mask Add after it) out of the product', async () => {
    const f = { ...feeds(1, 30), sc: scalar(2) };
    const r = await compareLevels(attention(1, { scaleInput: true }), f, { tol: 1e-5 });
    // The Div and the mask Add then run as one elementwise pass (the elementwise fusion, last).
    expect(r.ops).toEqual(['com.switchyard::StridedMatMul', 'com.switchyard::FusedElementwise', 'Softmax', 'com.switchyard::StridedMatMul']);
  });

  it('keeps a mask Add that would widen the product (mask batch 2, product batch 1)', async () => {
    const f = { ...feeds(1, 60), mask: feeds(2, 60).mask };
    const r = await compareLevels(attention(1, { maskBatch: 2 }), f, { tol: 1e-5 });
    expect(r.ops).toEqual(['com.switchyard::StridedMatMul', 'Add', 'Softmax', 'com.switchyard::StridedMatMul']);
  });

  it('does not fold an output Transpose after a mask (oneDNN cannot take the pair)', async () => {
    const build = () =>
      buildModel({
        inputs: [['q', 'float32', [2, S, NH, D]], ['k', 'float32', [2, S, NH, D]], ['mask', 'float32', [2, 1, 1, S]]],
        outputs: [['y', 'float32']],
        nodes: [
          { op: 'Transpose', inputs: ['q'], outputs: ['qt'], attributes: { perm: [0, 2, 1, 3] } },
          { op: 'Transpose', inputs: ['k'], outputs: ['kt'], attributes: { perm: [0, 2, 3, 1] } },
          { op: 'MatMul', inputs: ['qt', 'kt'], outputs: ['s0'] },
          { op: 'Add', inputs: ['s0', 'mask'], outputs: ['s1'] },
          { op: 'Transpose', inputs: ['s1'], outputs: ['y'], attributes: { perm: [0, 2, 1, 3] } },
        ],
      });
    const f = feeds(2, 80);
    const r = await compareLevels(build, { q: f.q, k: f.k, mask: f.mask }, { tol: 1e-5 });
    expect(r.ops).toEqual(['com.switchyard::StridedMatMul', 'Transpose']);
  });

  it('leaves MatMul(t, t) of one Transpose alone, folding only the scale', async () => {
    const build = () =>
      buildModel({
        inputs: [['x', 'float32', [2, 3, 3]]],
        outputs: [['y', 'float32']],
        initializers: { two: scalar(2) },
        nodes: [
          { op: 'Transpose', inputs: ['x'], outputs: ['t'], attributes: { perm: [0, 2, 1] } },
          { op: 'MatMul', inputs: ['t', 't'], outputs: ['m'] },
          { op: 'Div', inputs: ['m', 'two'], outputs: ['y'] },
        ],
      });
    const r = await compareLevels(build, { x: tensor([2, 3, 3], 81) }, { tol: 1e-5 });
    expect(r.ops).toEqual(['Transpose', 'com.switchyard::StridedMatMul']);
  });

  it("folds torch MultiheadAttention's Q scaling (Div or Mul by a constant before Q·Kᵀ) into the product's scale", async () => {
    // Seq-first heads as torch exports them: q/k/v [S, B·NH, D] → [B·NH, S, D]; q / √d, then q·kᵀ, softmax, ·v.
    for (const op of ['Div', 'Mul'] as const) {
      const build = () =>
        buildModel({
          inputs: [['q', 'float32', [S, 2 * NH, D]], ['k', 'float32', [S, 2 * NH, D]], ['v', 'float32', [S, 2 * NH, D]]],
          outputs: [['y', 'float32']],
          initializers: { sqrtd: scalar(Math.sqrt(D)), invsqrt: scalar(1 / Math.sqrt(D), [1]) },
          nodes: [
            { op: 'Transpose', inputs: ['q'], outputs: ['qt'], attributes: { perm: [1, 0, 2] } },
            { op, inputs: op === 'Div' ? ['qt', 'sqrtd'] : ['invsqrt', 'qt'], outputs: ['qs'] },
            { op: 'Transpose', inputs: ['k'], outputs: ['kt'], attributes: { perm: [1, 2, 0] } },
            { op: 'MatMul', inputs: ['qs', 'kt'], outputs: ['s'] },
            { op: 'Softmax', inputs: ['s'], outputs: ['p'], attributes: { axis: -1 } },
            { op: 'Transpose', inputs: ['v'], outputs: ['vt'], attributes: { perm: [1, 0, 2] } },
            { op: 'MatMul', inputs: ['p', 'vt'], outputs: ['c'] },
            { op: 'Transpose', inputs: ['c'], outputs: ['y'], attributes: { perm: [1, 0, 2] } },
          ],
        });
      const shape = [S, 2 * NH, D];
      const r = await compareLevels(build, { q: tensor(shape, 91, -2, 2), k: tensor(shape, 92, -2, 2), v: tensor(shape, 93) }, { tol: 1e-5 });
      expect(r.ops).toEqual(['com.switchyard::StridedMatMul', 'Softmax', 'com.switchyard::StridedMatMul']);
    }
  });

  it('keeps a Q scaling that another node also reads, or that broadcasts to a higher rank', async () => {
    const build = (shared: boolean) => () =>
      buildModel({
        inputs: [['q', 'float32', [2, S, D]], ['k', 'float32', [2, D, S]]],
        outputs: shared ? [['y', 'float32'], ['qs', 'float32']] : [['y', 'float32']],
        initializers: { c: shared ? scalar(0.5) : scalar(0.5, [1, 1, 1, 1]) },
        nodes: [
          { op: 'Mul', inputs: ['q', 'c'], outputs: ['qs'] },
          { op: 'MatMul', inputs: ['qs', 'k'], outputs: ['y'] },
        ],
      });
    const f = { q: tensor([2, S, D], 94), k: tensor([2, D, S], 95) };
    for (const shared of [true, false]) {
      const r = await compareLevels(build(shared), f, { tol: 1e-5 });
      expect(r.ops).not.toContain('com.switchyard::StridedMatMul');
    }
  });

  it('keeps a Transpose that a second reader (a graph output) needs', async () => {
    const r = await compareLevels(attention(1, { qtOutput: true }), feeds(1, 40), { tol: 1e-5 });
    expect(r.ops).toEqual(['Transpose', 'com.switchyard::StridedMatMul', 'Softmax', 'com.switchyard::StridedMatMul']);
  });

  it('runs the oneDNN primitive on gemm:jit-class code, not the reference implementation', () => {
    const Primitive = binding?.StridedMatMulPrimitive;
    if (!Primitive) return;
    const p = new Primitive({ aDims: [2, 16, 4, 8], bDims: [2, 16, 4, 8], permA: [0, 2, 1, 3], permB: [0, 2, 3, 1], scale: 0.25, maskDims: [2, 1, 1, 16] });
    try {
      expect(p.outputDims).toEqual([2, 4, 16, 16]);
      expect(p.implementation).not.toMatch(/^ref/);
      const a = values(1024, 1), b = values(1024, 2), mask = values(32, 3, -10000, 0);
      const y = new Float32Array(2 * 4 * 16 * 16);
      p.runSync(a, b, mask, y);
      const expected = stridedMatMulReference('t', new Tensor('float32', a, [2, 16, 4, 8]), new Tensor('float32', b, [2, 16, 4, 8]), new Tensor('float32', mask, [2, 1, 1, 16]), {
        permA: [0, 2, 1, 3], permB: [0, 2, 3, 1], scale: 0.25,
      });
      for (let i = 0; i < y.length; i++) expect(Math.abs(y[i] - expected.data[i])).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(expected.data[i])));
    } finally {
      p.dispose();
    }
  });

  // Swin's window attention: the relative-position bias [1, heads, n, n] broadcast over the windows. oneDNN 2.6
  // gave that post-op (mask 14) only its reference matmul (~100x slower: Swin-T ran 12x onnxruntime's time);
  // the addon then runs the gemm without it and adds the mask after. Also a mask broadcast innermost.
  for (const maskDims of [[1, 3, 7, 7], [4, 1, 7, 1], [1, 1, 1, 7]]) {
    it(`a mask [${maskDims}] over [4, 3, 7, 7] runs on non-reference code and equals the reference`, () => {
      const Primitive = binding?.StridedMatMulPrimitive;
      if (!Primitive) return;
      const p = new Primitive({ aDims: [4, 3, 7, 5], bDims: [4, 3, 7, 5], permB: [0, 1, 3, 2], scale: 0.5, maskDims });
      try {
        expect(p.implementation).not.toMatch(/^ref/);
        const a = values(420, 11), b = values(420, 12), mask = values(maskDims.reduce((x, y) => x * y, 1), 13, -3, 3);
        const y = new Float32Array(4 * 3 * 7 * 7);
        p.runSync(a, b, mask, y);
        const expected = stridedMatMulReference('t', new Tensor('float32', a, [4, 3, 7, 5]), new Tensor('float32', b, [4, 3, 7, 5]), new Tensor('float32', mask, maskDims), {
          permB: [0, 1, 3, 2], scale: 0.5,
        });
        for (let i = 0; i < y.length; i++) expect(Math.abs(y[i] - expected.data[i]), `y[${i}]`).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(expected.data[i])));
      } finally {
        p.dispose();
      }
    });
  }

  it('the oneDNN kernel equals the TS kernel with folded Reshapes, perms, scale and a batch-broadcast mask', async () => {
    if (!binding) return;
    const [nativeDef] = nativeStridedMatMulKernels(binding);
    // A [2, 6, 12] → [2, 6, 3, 4] → perm [0, 2, 1, 3]: [2, 3, 6, 4]; B [1, 6, 12] → [1, 6, 3, 4] → [0, 2, 3, 1]: [1, 3, 4, 6].
    const common = { aShape: [0, 0, 3, 4], bShape: [1, 6, 3, -1], permA: [0, 2, 1, 3], permB: [0, 2, 3, 1], scale: 0.5 };
    const [a, b, mask] = [tensor([2, 6, 12], 71), tensor([1, 6, 12], 72), tensor([2, 1, 1, 6], 73, -10000, 0)];
    const cases = [
      { attributes: { ...common, permY: [0, 2, 1, 3], yShape: [0, 0, -1] }, inputs: [a, b], dims: [2, 6, 18] },
      { attributes: common, inputs: [a, b, mask], dims: [2, 3, 6, 6] },
      // A mask with a permuted Y: the addon refuses the pair, so the kernel answers in TS.
      { attributes: { ...common, permY: [0, 2, 1, 3] }, inputs: [a, b, mask], dims: [2, 6, 3, 6] },
    ];
    for (const { attributes, inputs, dims } of cases) {
      const [expected] = (await runKernel(stridedMatMulKernel, inputs, { attributes })) as Tensor[];
      const [actual] = (await runKernel(nativeDef, inputs, { attributes })) as Tensor[];
      expect(expected.dims).toEqual(dims);
      expect(actual.dims).toEqual(dims);
      (actual.data as Float32Array).forEach((v, i) => expect(Math.abs(v - (expected.data as Float32Array)[i])).toBeLessThanOrEqual(1e-3));
    }
  });

  it('runs views whose size-1 dims carry transposed strides (a row vector times B, Y transposed)', () => {
    const Primitive = binding?.StridedMatMulPrimitive;
    if (!Primitive) return;
    // A [7, 1] → permA [1, 0]: [1, 7]; Y = [1, 5] → permY [1, 0]: [5, 1]. oneDNN rejected these strides unnormalized.
    const a = tensor([7, 1], 91), b = tensor([7, 5], 92);
    const p = new Primitive({ aDims: [7, 1], bDims: [7, 5], permA: [1, 0], permY: [1, 0] });
    try {
      const y = new Float32Array(5);
      p.runSync(a.data, b.data, null, y);
      const expected = stridedMatMulReference('t', a, b, undefined, { permA: [1, 0], permY: [1, 0], scale: 1 });
      y.forEach((v, i) => expect(v).toBeCloseTo(expected.data[i], 5));
    } finally {
      p.dispose();
    }
  });

  it('refuses a mask together with a permuted Y (oneDNN 2.6 mis-addresses that post-op) with a coded error', () => {
    const Primitive = binding?.StridedMatMulPrimitive;
    if (!Primitive) return;
    const options = { aDims: [1, 4, 2, 3], bDims: [1, 4, 2, 3], permA: [0, 2, 1, 3], permB: [0, 2, 3, 1], permY: [0, 2, 1, 3], maskDims: [1, 1, 1, 4] };
    expect(() => new Primitive(options)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED' }));
  });

  it('rejects a bad perm with a coded error', () => {
    const Primitive = binding?.StridedMatMulPrimitive;
    if (!Primitive) return;
    expect(() => new Primitive({ aDims: [2, 3], bDims: [3, 2], permA: [0, 0] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe.runIf(hasAddon)('skip-LayerNorm fusion (oneDNN)', () => {
  const H = 16;
  const build = (opts: { sumOutput?: boolean; bDims?: number[] } = {}) => () =>
    buildModel({
      inputs: [['a', 'float32', [2, 5, H]], ['b', 'float32', opts.bDims ?? [2, 5, H]]],
      outputs: opts.sumOutput ? [['y', 'float32'], ['r2', 'float32']] : [['y', 'float32']],
      initializers: { gamma: tensor([H], 1, 0.5, 1.5), beta: tensor([H], 2) },
      nodes: [
        { op: 'Add', inputs: ['a', 'b'], outputs: ['r'] },
        { op: 'LayerNormalization', inputs: ['r', 'gamma', 'beta'], outputs: ['y'], attributes: { axis: -1, epsilon: 1e-12 } },
        ...(opts.sumOutput ? [{ op: 'Mul', inputs: ['r', 'r'], outputs: ['r2'] }] : []),
      ],
    });

  it('fuses the residual Add into the LayerNormalization', async () => {
    const r = await compareLevels(build(), { a: tensor([2, 5, H], 3, -3, 3), b: tensor([2, 5, H], 4) }, { tol: 1e-4 });
    expect(r.ops).toEqual(['com.switchyard::SkipLayerNormalization']);
    expect(r.implementations).toEqual(['onednn']);
  });

  it('also outputs the sum when another node reads it', async () => {
    const r = await compareLevels(build({ sumOutput: true }), { a: tensor([2, 5, H], 5), b: tensor([2, 5, H], 6) }, { tol: 1e-4 });
    expect(r.ops).toEqual(['com.switchyard::SkipLayerNormalization', 'Mul']);
  });

  it('leaves an Add that an earlier execution provider takes', async () => {
    const first = hostTestProvider('first', ['Add']);
    const s = await InferenceSession.fromModel(build()(), { executionProviders: [first, new CpuExecutionProvider()] });
    try {
      expect(s.placement.nodes.map((n) => `${n.opType}:${n.ep}`)).toEqual(['Add:first', 'LayerNormalization:cpu']);
    } finally {
      await s.release();
    }
  });

  it('skipLayerNormRows checks its buffers with coded errors', () => {
    const f = binding?.skipLayerNormRows;
    if (!f) return;
    const x = new Float32Array(8);
    const scale = new Float32Array(4).fill(1);
    expect(() => f(x, new Float32Array(7), scale, null, new Float32Array(8), null, 2, 4, 1e-5)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => f(x, x, scale, null, new Float32Array(8), null, 2, 4, -1)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    // Rows [1, 3, 5, 7] and its double: both normalize to the same values, the sum is written too.
    const a = Float32Array.of(1, 3, 5, 7, 2, 6, 10, 14);
    const y = new Float32Array(8);
    const sum = new Float32Array(8);
    f(a, a, scale, Float32Array.of(0, 0, 0, 1), y, sum, 2, 4, 0);
    expect(Array.from(sum)).toEqual(Array.from(a, (v) => 2 * v));
    const z = 1 / Math.sqrt(5);
    [-3 * z, -z, z, 3 * z + 1, -3 * z, -z, z, 3 * z + 1].forEach((v, i) => expect(y[i]).toBeCloseTo(v, 5));
  });

  it('keeps an Add that broadcasts', async () => {
    const r = await compareLevels(build({ bDims: [1, 5, H] }), { a: tensor([2, 5, H], 7), b: tensor([1, 5, H], 8) }, { tol: 1e-4 });
    expect(r.ops).toEqual(['Add', 'LayerNormalization']);
  });
});
