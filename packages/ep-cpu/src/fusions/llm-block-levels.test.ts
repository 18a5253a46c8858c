/**
 * An opset-24 decoder block as LLM exporters write it (RMSNormalization, q/k/v projections,
 * RotaryEmbedding on 3-D q and k, GQA Attention with a KV cache and is_causal, output projection and
 * residual, a Swish-gated MLP): the optimizer at 'all' must leave the new ops' results as 'disabled'
 * computes them, with the oneDNN addon (its MatMul paths and fusions around the new ops) and without.
 */
import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor, encodeModel, float16ToFloat32Array, float32ToFloat16Array } from '@switchyard/core';
import { buildModel, type NodeSpec } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { compareLevels, tensor } from './test-models.test-util.js';

const hasAddon = new CpuExecutionProvider().nativeUnavailable === undefined;
const B = 2;
const S = 5;
const PAST = 3;
const QH = 4;
const KVH = 2;
const D = 8;
const HIDDEN = QH * D;
const FF = 48;
const MAX_POS = 16;

/** The block at opset 24 gates with Swish; at opset 23 (what onnxruntime serves) with Sigmoid · g. */
function decoderBlock(opset = 24, dtype: 'float32' | 'float16' = 'float32') {
  const nodes: NodeSpec[] = [
    { op: 'RMSNormalization', inputs: ['x', 'norm1'], outputs: ['h'], attributes: { epsilon: 1e-6 } },
    { op: 'MatMul', inputs: ['h', 'wq'], outputs: ['q0'] },
    { op: 'MatMul', inputs: ['h', 'wk'], outputs: ['k0'] },
    { op: 'MatMul', inputs: ['h', 'wv'], outputs: ['v'] },
    { op: 'RotaryEmbedding', inputs: ['q0', 'cos', 'sin', 'pos'], outputs: ['q'], attributes: { num_heads: QH } },
    { op: 'RotaryEmbedding', inputs: ['k0', 'cos', 'sin', 'pos'], outputs: ['k'], attributes: { num_heads: KVH } },
    {
      op: 'Attention',
      inputs: ['q', 'k', 'v', '', 'past_k', 'past_v'],
      outputs: ['ctx', 'present_k', 'present_v'],
      attributes: { is_causal: 1, q_num_heads: QH, kv_num_heads: KVH },
    },
    { op: 'MatMul', inputs: ['ctx', 'wo'], outputs: ['attn'] },
    { op: 'Add', inputs: ['x', 'attn'], outputs: ['r1'] },
    { op: 'RMSNormalization', inputs: ['r1', 'norm2'], outputs: ['h2'], attributes: { epsilon: 1e-6 } },
    { op: 'MatMul', inputs: ['h2', 'wg'], outputs: ['g'] },
    { op: 'MatMul', inputs: ['h2', 'wu'], outputs: ['u'] },
    ...(opset >= 24
      ? [{ op: 'Swish', inputs: ['g'], outputs: ['gs'] }]
      : [
          { op: 'Sigmoid', inputs: ['g'], outputs: ['gsig'] },
          { op: 'Mul', inputs: ['g', 'gsig'], outputs: ['gs'] },
        ]),
    { op: 'Mul', inputs: ['gs', 'u'], outputs: ['m'] },
    { op: 'MatMul', inputs: ['m', 'wd'], outputs: ['mlp'] },
    { op: 'Add', inputs: ['r1', 'mlp'], outputs: ['y'] },
  ];
  const angles = (fn: (v: number) => number) => {
    const out = new Float32Array(MAX_POS * (D / 2));
    for (let p = 0; p < MAX_POS; p++) for (let i = 0; i < D / 2; i++) out[p * (D / 2) + i] = fn(p / 10000 ** ((2 * i) / D));
    return new Tensor('float32', out, [MAX_POS, D / 2]);
  };
  const w = (rows: number, cols: number, seed: number) => tensor([rows, cols], seed, -0.3, 0.3);
  const typed = (t: Tensor) => (dtype === 'float16' ? toFloat16(t) : t);
  return () =>
    buildModel({
      opset,
      inputs: [
        ['x', dtype, [B, S, HIDDEN]],
        ['pos', 'int64', [B, S]],
        ['past_k', dtype, [B, KVH, PAST, D]],
        ['past_v', dtype, [B, KVH, PAST, D]],
      ],
      outputs: [
        ['y', dtype],
        ['present_k', dtype],
        ['present_v', dtype],
      ],
      nodes,
      initializers: Object.fromEntries(
        Object.entries({
          norm1: tensor([HIDDEN], 11, 0.5, 1.5),
          norm2: tensor([HIDDEN], 12, 0.5, 1.5),
          wq: w(HIDDEN, QH * D, 13),
          wk: w(HIDDEN, KVH * D, 14),
          wv: w(HIDDEN, KVH * D, 15),
          wo: w(QH * D, HIDDEN, 16),
          wg: w(HIDDEN, FF, 17),
          wu: w(HIDDEN, FF, 18),
          wd: w(FF, HIDDEN, 19),
          cos: angles(Math.cos),
          sin: angles(Math.sin),
        }).map(([k, t]) => [k, typed(t)]),
      ),
    });
}

function toFloat16(t: Tensor): Tensor {
  const bits = new Uint16Array(t.size);
  float32ToFloat16Array(t.data as Float32Array, bits);
  return new Tensor('float16', bits, t.dims);
}

function asFloat32(t: Tensor): Float32Array {
  if (t.type === 'float32') return t.data as Float32Array;
  const out = new Float32Array(t.size);
  float16ToFloat32Array(t.data as Uint16Array, out);
  return out;
}

function feeds(dtype: 'float32' | 'float16' = 'float32'): Record<string, Tensor> {
  const pos = new BigInt64Array(B * S);
  for (let b = 0; b < B; b++) for (let s = 0; s < S; s++) pos[b * S + s] = BigInt(PAST + s);
  const typed = (t: Tensor) => (dtype === 'float16' ? toFloat16(t) : t);
  return {
    x: typed(tensor([B, S, HIDDEN], 1)),
    pos: new Tensor('int64', pos, [B, S]),
    past_k: typed(tensor([B, KVH, PAST, D], 2)),
    past_v: typed(tensor([B, KVH, PAST, D], 3)),
  };
}

describe.each([false, ...(hasAddon ? [true] : [])])('an opset-24 decoder block at every optimization level (oneDNN addon: %s)', (useNative) => {
  it("computes at 'all' what it computes at 'disabled', keeping the new ops", async () => {
    const result = await compareLevels(decoderBlock(), feeds(), { useNative, tol: 1e-5 });
    for (const op of ['RMSNormalization', 'RotaryEmbedding', 'Attention', 'Swish']) expect(result.ops).toContain(op);
  });
});

describe('the opset-23 decoder block against onnxruntime', () => {
  it('RMSNormalization, RotaryEmbedding and GQA Attention with a KV cache agree with onnxruntime-node', async () => {
    const build = decoderBlock(23);
    const ours = await InferenceSession.fromModel(build(), { executionProviders: [new CpuExecutionProvider()] });
    const theirs = await ort.InferenceSession.create(encodeModel(build()));
    const inputs = feeds();
    const ortFeeds: Record<string, ort.Tensor> = {
      x: new ort.Tensor('float32', inputs.x.data as Float32Array, inputs.x.dims),
      pos: new ort.Tensor('int64', inputs.pos.data as BigInt64Array, inputs.pos.dims),
      past_k: new ort.Tensor('float32', inputs.past_k.data as Float32Array, inputs.past_k.dims),
      past_v: new ort.Tensor('float32', inputs.past_v.data as Float32Array, inputs.past_v.dims),
    };
    const want = await theirs.run(ortFeeds);
    const got = await ours.run(inputs);
    for (const name of ['y', 'present_k', 'present_v']) {
      const g = got[name] as Tensor;
      expect(g.dims).toEqual(want[name].dims);
      const w = want[name].data as Float32Array;
      const d = g.data as Float32Array;
      for (let i = 0; i < w.length; i++) expect(Math.abs(d[i] - w[i]), `${name}[${i}]`).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(w[i])));
    }
  });
});

describe.runIf(hasAddon)('the float16 decoder block', () => {
  it("computes the new ops in float32 from 'extended' on (Attention on oneDNN), within float16 rounding of 'disabled'", async () => {
    const build = decoderBlock(24, 'float16');
    const inputs = feeds('float16');
    const session = (level: 'disabled' | 'all') => InferenceSession.fromModel(build(), { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: level });
    const [plain, optimized] = [await session('disabled'), await session('all')];
    try {
      const attention = optimized.placement.nodes.find((n) => n.opType === 'Attention');
      expect(attention?.implementation).toBe('onednn');
      const [want, got] = [await plain.run(inputs), await optimized.run(inputs)];
      for (const name of ['y', 'present_k', 'present_v']) {
        const w = asFloat32(want[name] as Tensor);
        const g = asFloat32(got[name] as Tensor);
        // 'disabled' rounds to float16 after each of ~20 ops: a few float16 steps (2^-10 relative) apart.
        for (let i = 0; i < w.length; i++) expect(Math.abs(g[i] - w[i]), `${name}[${i}]`).toBeLessThanOrEqual(8 * 2 ** -10 * (1 + Math.abs(w[i])));
      }
    } finally {
      await plain.release();
      await optimized.release();
    }
  });
});
