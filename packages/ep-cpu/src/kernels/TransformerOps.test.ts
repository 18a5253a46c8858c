/**
 * The onnx 1.23 transformer / state-space kernels where the backend suite does not reach: bad input
 * gets a coded error, and edge cases (no keys, integer masks, string caches, integer overflow in
 * CumProd, Scale broadcast over all of X) behave as the spec says.
 */
import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64, iota, plain } from '../tensor-ops/test-util.js';
import { attentionKernel } from './Attention.js';
import { causalConvWithStateKernel } from './CausalConvWithState.js';
import { cumProdKernel } from './CumProd.js';
import { flexAttentionKernel } from './FlexAttention.js';
import { onnxGeluKernel } from './Gelu.js';
import { linearAttentionKernel } from './LinearAttention.js';
import { rmsNormalizationKernel } from './RMSNormalization.js';
import { rotaryEmbeddingKernel } from './RotaryEmbedding.js';
import { swiGluKernel } from './SwiGLU.js';
import { tensorScatterKernel } from './TensorScatter.js';

const ramp = (dims: number[], scale = 0.1) => f32(iota(dims.reduce((a, b) => a * b, 1)).map((v) => Math.sin(v) * scale * 10), dims);
const bool = (v: number[], dims: number[]) => new Tensor('bool', Uint8Array.from(v), dims);

describe('Attention: coded errors', () => {
  const q4 = ramp([1, 2, 3, 4]);
  const kv4 = ramp([1, 2, 5, 4]);
  const cases: Array<[string, Parameters<typeof runKernel>[1], Parameters<typeof runKernel>[2], string]> = [
    ['3-D inputs without head counts', [ramp([1, 3, 8]), ramp([1, 5, 8]), ramp([1, 5, 8])], {}, 'INVALID_ARGUMENT'],
    ['q heads not a multiple of kv heads', [ramp([1, 3, 4, 4]), kv4, kv4], {}, 'INVALID_SHAPE'],
    ['mixed ranks', [q4, ramp([1, 5, 8]), kv4], {}, 'INVALID_SHAPE'],
    ['past_key without past_value', [q4, kv4, kv4, undefined, ramp([1, 2, 2, 4])], {}, 'INVALID_ARGUMENT'],
    ['a past of the wrong head size', [q4, kv4, kv4, undefined, ramp([1, 2, 2, 3]), ramp([1, 2, 2, 4])], {}, 'INVALID_SHAPE'],
    ['a mask that does not broadcast', [q4, kv4, kv4, ramp([2, 5])], {}, 'INVALID_SHAPE'],
    ['a mask wider than the keys', [q4, kv4, kv4, ramp([3, 6])], {}, 'INVALID_SHAPE'],
    ['nonpad_kv_seqlen past the keys', [q4, kv4, kv4, undefined, undefined, undefined, i64([6])], { opset: 24 }, 'INVALID_ARGUMENT'],
    ['nonpad_kv_seqlen with a past', [q4, kv4, kv4, undefined, ramp([1, 2, 2, 4]), ramp([1, 2, 2, 4]), i64([3])], { opset: 24 }, 'INVALID_ARGUMENT'],
    ['head counts on 4-D inputs at opset 25', [q4, kv4, kv4], { opset: 25, attributes: { q_num_heads: 2, kv_num_heads: 2 } }, 'INVALID_ARGUMENT'],
    ['qk_matmul_output_mode 4', [q4, kv4, kv4], { attributes: { qk_matmul_output_mode: 4 } }, 'INVALID_ARGUMENT'],
    ['softmax_precision naming an integer type', [q4, kv4, kv4], { attributes: { softmax_precision: 7 } }, 'INVALID_ARGUMENT'],
    ['a window size below -1', [q4, kv4, kv4], { opset: 25, attributes: { left_window_size: -2 } }, 'INVALID_ARGUMENT'],
  ];
  it.each(cases)('%s', async (_name, inputs, opts, code) => {
    await expect(runKernel(attentionKernel, inputs, { opset: 23, ...opts })).rejects.toMatchObject({ code });
  });
});

describe('Attention: edge cases', () => {
  it('no keys at all gives zero rows, not NaN', async () => {
    const [y] = await runKernel(attentionKernel, [ramp([1, 1, 2, 4]), f32([], [1, 1, 0, 4]), f32([], [1, 1, 0, 3])], { opset: 23 });
    expect(plain(y)).toEqual({ dims: [1, 1, 2, 3], data: [0, 0, 0, 0, 0, 0] });
  });

  it('an integer mask is additive like a float one', async () => {
    const inputs = [ramp([1, 2, 3, 4]), ramp([1, 2, 5, 4], 0.2), ramp([1, 2, 5, 4], 0.3)];
    const maskValues = [0, -3, 0, 2, -100, 1, 0, 0, -1, 0, 0, 0, 5, 0, -2];
    const [fromInt] = await runKernel(attentionKernel, [...inputs, i64(maskValues, [3, 5])], { opset: 23 });
    const [fromFloat] = await runKernel(attentionKernel, [...inputs, f32(maskValues, [3, 5])], { opset: 23 });
    expect(plain(fromInt)).toEqual(plain(fromFloat));
  });

  it('a fully masked row with softcap and qk_matmul_output mode 3 stays zero in both outputs', async () => {
    const mask = bool([1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1], [3, 4]);
    const [y, , , probs] = await runKernel(attentionKernel, [ramp([1, 1, 3, 2]), ramp([1, 1, 4, 2]), ramp([1, 1, 4, 2]), mask], {
      opset: 23,
      outputs: 4,
      attributes: { softcap: { float: 2 }, qk_matmul_output_mode: 3 },
    });
    expect(plain(y).data.slice(2, 4)).toEqual([0, 0]);
    const p = plain(probs).data as number[];
    expect(p.slice(4, 8)).toEqual([0, 0, 0, 0]);
    expect(p[0] + p[1]).toBeCloseTo(1, 6);
  });
});

describe('RotaryEmbedding / RMSNormalization / SwiGLU / Gelu: coded errors and broadcasting', () => {
  const cache = ramp([4, 2]);
  it('rejects position ids outside the caches, odd rotary dims and 3-D input without num_heads', async () => {
    const x = ramp([1, 2, 2, 4]);
    await expect(runKernel(rotaryEmbeddingKernel, [x, cache, cache, i64([0, 4], [1, 2])], { opset: 23 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(runKernel(rotaryEmbeddingKernel, [x, cache, cache, i64([0, 1], [1, 2])], { opset: 23, attributes: { rotary_embedding_dim: 3 } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(runKernel(rotaryEmbeddingKernel, [ramp([1, 2, 8]), cache, cache, i64([0, 1], [1, 2])], { opset: 23 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(runKernel(rotaryEmbeddingKernel, [x, ramp([4, 3]), ramp([4, 3]), i64([0, 1], [1, 2])], { opset: 23 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });

  it('RMSNormalization broadcasts a Scale of X rank over all of X, and rejects one that does not broadcast', async () => {
    const x = f32([3, 4, 1, 1], [2, 2]);
    const [y] = await runKernel(rmsNormalizationKernel, [x, f32([1, 2], [2, 1])], { opset: 23, attributes: { epsilon: { float: 0 } } });
    // rows: rms(3, 4) = √12.5, rms(1, 1) = 1; scale 1 for row 0, 2 for row 1.
    const got = plain(y).data as number[];
    const want = [3 / Math.sqrt(12.5), 4 / Math.sqrt(12.5), 2, 2];
    got.forEach((v, i) => expect(v).toBeCloseTo(want[i], 6));
    await expect(runKernel(rmsNormalizationKernel, [x, f32([1, 2, 3], [3])], { opset: 23 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });

  it('SwiGLU refuses to broadcast; Gelu refuses an unknown approximation', async () => {
    await expect(runKernel(swiGluKernel, [ramp([2, 3]), ramp([1, 3])], { opset: 28 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(onnxGeluKernel, [ramp([2])], { opset: 20, attributes: { approximate: 'erf' } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('TensorScatter', () => {
  it('rejects a linear write past the cache and the batch axis', async () => {
    const past = ramp([1, 4, 2]);
    await expect(runKernel(tensorScatterKernel, [past, ramp([1, 2, 2]), i64([3])], { opset: 24 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(runKernel(tensorScatterKernel, [past, ramp([1, 2, 2])], { opset: 24, attributes: { axis: 0 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('scatters strings, wrapping in circular mode', async () => {
    const past = new Tensor('string', ['a', 'b', 'c', 'd', 'e', 'f'], [2, 3]);
    const update = new Tensor('string', ['X', 'Y', 'Z', 'W'], [2, 2]);
    const [out] = await runKernel(tensorScatterKernel, [past, update, i64([2, 0])], { opset: 24, attributes: { mode: 'circular', axis: 1 } });
    expect(plain(out)).toEqual({ dims: [2, 3], data: ['Y', 'b', 'X', 'Z', 'W', 'f'] });
  });
});

describe('CumProd on integers wraps as fixed-width arithmetic does', () => {
  it('int32, uint32 and int64 beyond 2^53', async () => {
    const big = [65536, 65536, 3];
    const [i32] = await runKernel(cumProdKernel, [new Tensor('int32', Int32Array.from(big), [3]), i64([0], [])], { opset: 26 });
    expect(plain(i32).data).toEqual([65536, 0, 0]);
    const [u32] = await runKernel(cumProdKernel, [new Tensor('uint32', Uint32Array.from([70000, 70000]), [2]), i64([0], [])], { opset: 26 });
    expect(plain(u32).data).toEqual([70000, Number((70000n * 70000n) % 2n ** 32n)]);
    const [w] = await runKernel(cumProdKernel, [new Tensor('int64', BigInt64Array.from([3n ** 30n, 3n ** 10n, 3n ** 5n]), [3]), i64([0], [])], {
      opset: 26,
      attributes: { exclusive: 1, reverse: 1 },
    });
    expect(Array.from(w instanceof Tensor ? (w.data as BigInt64Array) : [])).toEqual([3n ** 15n, 3n ** 5n, 1n]);
    const [wrapped] = await runKernel(cumProdKernel, [new Tensor('int64', BigInt64Array.from([2n ** 40n, 2n ** 30n]), [2]), i64([0], [])], { opset: 26 });
    expect((wrapped as Tensor).data).toEqual(BigInt64Array.from([2n ** 40n, BigInt.asIntN(64, 2n ** 70n)]));
  });
});

describe('LinearAttention / CausalConvWithState / FlexAttention: coded errors', () => {
  it('LinearAttention checks the inputs its update rule needs and the head counts', async () => {
    const q = ramp([1, 2, 8]);
    await expect(runKernel(linearAttentionKernel, [q, q, q], { opset: 27, attributes: { q_num_heads: 2, kv_num_heads: 2, update_rule: 'gated' } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(runKernel(linearAttentionKernel, [q, q, q], { opset: 27, attributes: { q_num_heads: 3, kv_num_heads: 2, update_rule: 'linear' } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(
      runKernel(linearAttentionKernel, [q, q, q, ramp([1, 2, 3, 4])], { opset: 27, outputs: 2, attributes: { q_num_heads: 2, kv_num_heads: 2, update_rule: 'linear' } }),
    ).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });

  it('CausalConvWithState checks the weight layout and the activation name', async () => {
    const x = ramp([1, 2, 5]);
    await expect(runKernel(causalConvWithStateKernel, [x, ramp([2, 2, 3])], { opset: 27, outputs: 2 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(causalConvWithStateKernel, [x, ramp([2, 1, 3])], { opset: 27, outputs: 2, attributes: { activation: 'gelu' } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('FlexAttention needs 4-D inputs and whole KV head groups', async () => {
    await expect(runKernel(flexAttentionKernel, [ramp([1, 3, 4]), ramp([1, 3, 4]), ramp([1, 3, 4])], { opset: 1 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(flexAttentionKernel, [ramp([1, 3, 2, 4]), ramp([1, 2, 2, 4]), ramp([1, 2, 2, 4])], { opset: 1 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});
