// GPU tests of the attention fold and fuse (ep-rocm plan/attention-fold.ts, attention-fuse.ts): a
// batch-1 self-attention block as torch exports it runs with Q/K/V as one GEMM and no Transpose --
// its scores chain as one Attention step in float32, or as MatMulStrided steps (float16, and with
// SWITCHYARD_ATTENTION_FUSE=0) --
// and matches the CPU EP in fp32 and fp16, eager and replayed. The Attention step against a JS
// reference at sizes that fill no tile evenly, with a -inf mask; and both steps refuse views that
// reach past their buffers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InferenceSession, Tensor, float16BitsToFloat32, float32ToFloat16Bits } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { assertClose, loaded, reference, seeded, skip } from './lib/harness.mjs';

const S = 16;
const H = 4;
const D = 8;
const N = H * D;

// x[B,S,N], mask[B,S] → Q/K/V Linear → heads → Q·Kᵀ ÷ √D + (1 − mask)·−1e4 → Softmax → ·V → merge → Linear.
function attention(batch) {
  const t = (dims, seed) => new Tensor('float32', seeded(dims.reduce((a, b) => a * b, 1), seed), dims);
  const ints = (...v) => new Tensor('int64', BigInt64Array.from(v.map(BigInt)), [v.length]);
  const scalar = (v) => new Tensor('float32', Float32Array.of(v), []);
  const linear = (name, x, out = name) => [
    { op: 'MatMul', inputs: [x, `w${name}`], outputs: [`${name}m`], name: `${name}.matmul` },
    { op: 'Add', inputs: [`${name}m`, `b${name}`], outputs: [out], name: `${name}.add` },
  ];
  const heads = (name, perm) => [
    { op: 'Reshape', inputs: [name, 'split'], outputs: [`${name}r`], name: `${name}.reshape` },
    { op: 'Transpose', inputs: [`${name}r`], outputs: [`${name}t`], name: `${name}.transpose`, attributes: { perm } },
  ];
  return buildModel({
    inputs: [['x', 'float32', [batch, S, N]], ['mask', 'float32', [batch, 1, 1, S]]],
    outputs: [['y', 'float32']],
    initializers: {
      wq: t([N, N], 1), bq: t([N], 2), wk: t([N, N], 3), bk: t([N], 4), wv: t([N, N], 5), bv: t([N], 6), wo: t([N, N], 7), bo: t([N], 8),
      split: ints(batch, S, H, D), merge: ints(batch, S, N), scale: scalar(Math.sqrt(D)), one: scalar(1), big: scalar(-1e4),
    },
    nodes: [
      ...linear('q', 'x'), ...linear('k', 'x'), ...linear('v', 'x'),
      ...heads('q', [0, 2, 1, 3]), ...heads('k', [0, 2, 3, 1]), ...heads('v', [0, 2, 1, 3]),
      { op: 'MatMul', inputs: ['qt', 'kt'], outputs: ['s'], name: 'scores' },
      { op: 'Div', inputs: ['s', 'scale'], outputs: ['ss'], name: 'scale' },
      { op: 'Sub', inputs: ['one', 'mask'], outputs: ['inv'], name: 'mask.sub' },
      { op: 'Mul', inputs: ['inv', 'big'], outputs: ['bias'], name: 'mask.mul' },
      { op: 'Add', inputs: ['ss', 'bias'], outputs: ['sm'], name: 'mask.add' },
      { op: 'Softmax', inputs: ['sm'], outputs: ['p'], name: 'softmax', attributes: { axis: -1 } },
      { op: 'MatMul', inputs: ['p', 'vt'], outputs: ['ctx'], name: 'context' },
      { op: 'Transpose', inputs: ['ctx'], outputs: ['ctxt'], name: 'ctx.transpose', attributes: { perm: [0, 2, 1, 3] } },
      { op: 'Reshape', inputs: ['ctxt', 'merge'], outputs: ['ctxr'], name: 'ctx.reshape' },
      ...linear('o', 'ctxr', 'y'),
    ],
    opset: 17,
  });
}

function feeds(batch) {
  const mask = new Float32Array(batch * S).fill(1);
  mask.fill(0, S - 3, S); // the last three keys of the first sequence are padding
  return { x: new Tensor('float32', seeded(batch * S * N, 11), [batch, S, N]), mask: new Tensor('float32', mask, [batch, 1, 1, S]) };
}

describe('attention fold', { skip }, () => {
  for (const fuse of [true, false]) {
    for (const [fp16, graph] of [[false, false], [false, true], [true, true]]) {
      // float16 plans keep the strided GEMMs (tensor cores beat the fused kernel there: rocm-partition.ts).
      const fused = fuse && !fp16;
      it(`batch 1 runs ${fused ? 'one Attention step' : 'strided GEMMs'} without a Transpose and matches the CPU EP${fp16 ? ' in fp16' : ''}${graph ? ' (graph replay)' : ''}${fuse ? '' : ' (fuse off)'}`, async () => {
        const expected = await reference(attention(1), feeds(1));
        if (!fuse) process.env.SWITCHYARD_ATTENTION_FUSE = '0'; // read when the plan is built (the first run)
        try {
          const s = await InferenceSession.fromModel(attention(1), { executionProviders: [{ name: 'rocm', fp16, enableHipGraph: graph }, 'cpu'] });
          for (let run = 0; run < 3; run++) assertClose((await s.run(feeds(1))).y.data, expected.y.data, fp16 ? 5e-3 : 1e-5, fp16 ? 2e-2 : 1e-4, `y run ${run}`);
          const ops = s.providers.find((p) => p.name === 'rocm').partitions.flatMap((p) => p.stats.lastDescription.steps.map((st) => st.op));
          console.log(`# steps: ${ops.join(' ')}`);
          assert.equal(ops.filter((op) => op === 'MatMulStrided').length, fused ? 0 : 2, ops.join(','));
          assert.equal(ops.filter((op) => op === 'Attention').length, fused ? 1 : 0, ops.join(','));
          assert.ok(!ops.includes('Transpose'), ops.join(','));
          assert.equal(ops.filter((op) => op === 'MatMulBias').length, 2, 'Q/K/V merged, the output Linear apart');
          await s.release();
        } finally {
          delete process.env.SWITCHYARD_ATTENTION_FUSE;
        }
      });
    }
  }

  it('batch 2 keeps its Transposes and matches the CPU EP', async () => {
    const expected = await reference(attention(2), feeds(2));
    const s = await InferenceSession.fromModel(attention(2), { executionProviders: ['rocm', 'cpu'] });
    assertClose((await s.run(feeds(2))).y.data, expected.y.data, 1e-5, 1e-4, 'y');
    await s.release();
  });

  it('MatMulStrided refuses a view past its buffer', (t) => {
    if (!loaded.binding.planStepOps().includes('MatMulStrided')) return t.skip('this build has no MatMulStrided step');
    const plan = (attrs) => () =>
      new loaded.binding.ExecutionPlan({
        deviceId: 0,
        arenaBytes: 3 * 256,
        captureGraph: false,
        buffers: [0, 1, 2].map((i) => ({ offset: i * 256, bytes: 64, dtype: 1, dims: [16] })),
        constants: [],
        inputs: [0, 1],
        outputs: [2],
        steps: [{ op: 'MatMulStrided', attrs, inputs: [0, 1], outputs: [2] }],
      });
    // [4x4]·[4x4] fits 16 elements; the same read at offset 1 does not, nor a second batch.
    assert.doesNotThrow(plan([0, 0, 4, 4, 4, 4, 4, 4, 1, 0, 0, 0, 0, 0, 0, 1]));
    assert.throws(plan([0, 0, 4, 4, 4, 4, 4, 4, 1, 0, 0, 0, 1, 0, 0, 1]), /reaches past its buffer/);
    assert.throws(plan([0, 0, 4, 4, 4, 4, 4, 4, 2, 16, 16, 16, 0, 0, 0, 1]), /reaches past its buffer/);
    assert.throws(plan([0, 0, 4, 4, 4, 2, 4, 4, 1, 0, 0, 0, 0, 0, 0, 1]), /malformed/);
    assert.throws(plan([0, 0, 4, 4, 4, 4, 4, 4, 1, 0, 0, 0, 0, 0, 0]), /whole-number view attributes/);
  });

  // Direct plans of one Attention step over dense [H, S, D] operands and a full [H, Sq, Sk] mask.
  function attentionPlan(dtype, heads, sq, sk, depth, attrs = undefined) {
    const element = dtype === 10 ? 2 : 4;
    const dims = [[heads, sq, depth], [heads, sk, depth], [heads, sk, depth], [heads, sq, sk], [heads, sq, depth]];
    let offset = 0;
    const buffers = dims.map((d) => {
      const bytes = d.reduce((a, b) => a * b, 1) * element;
      const b = { offset, bytes, dtype, dims: d };
      offset += Math.ceil(bytes / 256) * 256;
      return b;
    });
    attrs ??= [heads, sq, sk, depth, depth, sq * depth, 0, depth, sk * depth, 0, depth, sk * depth, 0, depth, sq * depth, 0, sq * sk, sk, 1, 1 / Math.sqrt(depth)];
    return new loaded.binding.ExecutionPlan({ deviceId: 0, arenaBytes: offset, captureGraph: false, buffers, constants: [], inputs: [0, 1, 2, 3], outputs: [4], steps: [{ op: 'Attention', attrs, inputs: [0, 1, 2, 3], outputs: [4] }] });
  }

  function attentionReference(q, k, v, mask, heads, sq, sk, depth) {
    const out = new Float32Array(heads * sq * depth);
    for (let h = 0; h < heads; h++) for (let i = 0; i < sq; i++) {
      const scores = Array.from({ length: sk }, (_, j) => {
        let dot = 0;
        for (let c = 0; c < depth; c++) dot += q[(h * sq + i) * depth + c] * k[(h * sk + j) * depth + c];
        return dot / Math.sqrt(depth) + mask[(h * sq + i) * sk + j];
      });
      const max = Math.max(...scores);
      const e = scores.map((x) => Math.exp(x - max));
      const sum = e.reduce((a, b) => a + b, 0);
      for (let c = 0; c < depth; c++) {
        let acc = 0;
        for (let j = 0; j < sk; j++) acc += (e[j] / sum) * v[(h * sk + j) * depth + c];
        out[(h * sq + i) * depth + c] = acc;
      }
    }
    return out;
  }

  for (const [heads, sq, sk, depth] of [[3, 37, 45, 3], [2, 9, 70, 128], [1, 1, 1, 64], [5, 130, 33, 40]]) {
    for (const fp16 of [false, true]) {
      it(`the Attention step matches a JS reference: ${heads} heads, ${sq}x${sk} scores, depth ${depth}${fp16 ? ', fp16' : ''}`, async (t) => {
        if (!loaded.binding.planStepOps().includes('Attention')) return t.skip('this build has no Attention step');
        const q = seeded(heads * sq * depth, 21).map((x) => 4 * x);
        const k = seeded(heads * sk * depth, 22).map((x) => 4 * x);
        const v = seeded(heads * sk * depth, 23);
        // Random additive noise, and -inf on a diagonal band (never a whole row).
        const mask = seeded(heads * sq * sk, 24).map((x, idx) => ((idx % sk) % 7 === 3 && sk > 1 ? -Infinity : x));
        const toDevice = (a) => (fp16 ? Uint16Array.from(a, float32ToFloat16Bits) : a);
        const round = (a) => (fp16 ? Float32Array.from(a, (x) => float16BitsToFloat32(float32ToFloat16Bits(x))) : a);
        const expected = attentionReference(round(q), round(k), round(v), round(mask), heads, sq, sk, depth);
        const plan = attentionPlan(fp16 ? 10 : 1, heads, sq, sk, depth);
        const out = fp16 ? new Uint16Array(heads * sq * depth) : new Float32Array(heads * sq * depth);
        await plan.run([toDevice(q), toDevice(k), toDevice(v), toDevice(mask)], [out]);
        plan.dispose();
        assertClose(fp16 ? Float32Array.from(out, float16BitsToFloat32) : out, expected, fp16 ? 2e-3 : 1e-5, fp16 ? 1e-2 : 1e-4, 'out');
      });
    }
  }

  it('the Attention step refuses views past their buffers and malformed attributes', (t) => {
    if (!loaded.binding.planStepOps().includes('Attention')) return t.skip('this build has no Attention step');
    const good = [2, 4, 4, 8, 8, 32, 0, 8, 32, 0, 8, 32, 0, 8, 32, 0, 16, 4, 1, 1];
    const build = (attrs) => () => attentionPlan(1, 2, 4, 4, 8, attrs).dispose();
    assert.doesNotThrow(build(good));
    const with_ = (i, v) => good.map((x, j) => (j === i ? v : x));
    assert.throws(build(with_(6, 1)), /reaches past its buffer/); // q offset 1
    assert.throws(build(with_(8, 33)), /reaches past its buffer/); // k head stride
    assert.throws(build(with_(16, 17)), /mask's strides reach past it/);
    assert.throws(build(with_(3, 129)), /head depth above 128/);
    assert.throws(build(with_(1, 0)), /malformed/);
    assert.throws(build(with_(19, Infinity)), /scale must be finite/);
    assert.throws(build(good.slice(0, 19)), /19 view attributes/);
  });
});
