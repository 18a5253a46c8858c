// GPU tests of the attention fold (ep-rocm plan/attention-fold.ts): a batch-1 self-attention block as
// torch exports it runs with Q/K/V as one GEMM and its head products as MatMulStrided steps (no
// Transpose), and matches the CPU EP in fp32 and fp16, eager and replayed; and the MatMulStrided step
// refuses views that reach past their buffers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InferenceSession, Tensor } from '@switchyard/core';
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
  for (const [fp16, graph] of [[false, false], [false, true], [true, true]]) {
    it(`batch 1 runs without a Transpose and matches the CPU EP${fp16 ? ' in fp16' : ''}${graph ? ' (graph replay)' : ''}`, async () => {
      const expected = await reference(attention(1), feeds(1));
      const s = await InferenceSession.fromModel(attention(1), { executionProviders: [{ name: 'rocm', fp16, enableHipGraph: graph }, 'cpu'] });
      for (let run = 0; run < 3; run++) assertClose((await s.run(feeds(1))).y.data, expected.y.data, fp16 ? 5e-3 : 1e-5, fp16 ? 2e-2 : 1e-4, `y run ${run}`);
      const ops = s.providers.find((p) => p.name === 'rocm').partitions.flatMap((p) => p.stats.lastDescription.steps.map((st) => st.op));
      console.log(`# steps: ${ops.join(' ')}`);
      assert.equal(ops.filter((op) => op === 'MatMulStrided').length, 2, ops.join(','));
      assert.ok(!ops.includes('Transpose'), ops.join(','));
      assert.equal(ops.filter((op) => op === 'MatMulBias').length, 2, 'Q/K/V merged, the output Linear apart');
      await s.release();
    });
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
});
