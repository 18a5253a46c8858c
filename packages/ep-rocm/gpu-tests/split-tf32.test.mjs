// GPU tests of 3xTF32 products (native-hip's MatMulSplitTf32 step; ep-rocm plan/split-tf32.ts): the
// step over a split weight matches a float64 reference at fp32's level of error -- far below plain
// TF32's -- with and without a bias, eager and replayed; and a large Linear layer run through the EP
// takes the step with fp32MatmulPrecision 'high' on a TF32 GPU, not with 'highest', matching the
// CPU EP either way.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { assertClose, loaded, reference, seeded, skip } from './lib/harness.mjs';

const tf32Gpu = () => !skip && loaded.binding.blasInfo().backend === 'cuBLAS' && loaded.binding.deviceProperties(0).major >= 8;

// TF32 rounding and the weight split, as plan/split-tf32.ts does them (written out again here: the
// tests read the built packages, which export neither).
const f = new Float32Array(1);
const u = new Uint32Array(f.buffer);
function tf32(x) {
  f[0] = x;
  if ((u[0] & 0x7f800000) !== 0x7f800000) u[0] = ((u[0] + 0x0fff + ((u[0] >>> 13) & 1)) & 0xffffe000) >>> 0;
  return f[0];
}
function splitWeights(b, k, n) {
  const out = new Float32Array(3 * k * n);
  for (let i = 0; i < k * n; i++) {
    const hi = tf32(b[i]);
    out[i] = tf32(Math.fround(b[i] - hi));
    out[k * n + i] = out[2 * k * n + i] = hi;
  }
  return out;
}

// Worst |got - exact| over the elements' scale sum_k |a_ik b_kj| (+ |bias|): the error the product adds.
function relativeError(got, a, b, bias, m, k, n) {
  let worst = 0;
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
    let exact = bias ? bias[j] : 0;
    let scale = bias ? Math.abs(bias[j]) : 0;
    for (let p = 0; p < k; p++) {
      exact += a[i * k + p] * b[p * n + j];
      scale += Math.abs(a[i * k + p] * b[p * n + j]);
    }
    worst = Math.max(worst, Math.abs(got[i * n + j] - exact) / scale);
  }
  return worst;
}

describe('3xTF32 products', { skip }, () => {
  for (const [withBias, graph] of [[false, false], [true, false], [true, true]]) {
    it(`MatMulSplitTf32${withBias ? ' with a bias' : ''} matches float64 at fp32's error${graph ? ' (graph replay)' : ''}`, async (t) => {
      if (!loaded.binding.planStepOps().includes('MatMulSplitTf32')) return t.skip('this build has no MatMulSplitTf32 step');
      const [m, k, n] = [130, 300, 96];
      const a = seeded(m * k, 51).map((x) => x * 4);
      const b = seeded(k * n, 52).map((x) => x * 4);
      const bias = seeded(n, 53);
      const align = (bytes) => Math.ceil(bytes / 256) * 256;
      const sizes = [m * k * 4, 3 * k * n * 4, n * 4, m * n * 4, m * 3 * k * 4];
      const offsets = sizes.reduce((acc, s, i) => [...acc, i === 0 ? 0 : acc[i - 1] + align(sizes[i - 1])], []);
      const arenaBytes = offsets[4] + align(sizes[4]);
      const plan = new loaded.binding.ExecutionPlan({
        deviceId: 0, arenaBytes, captureGraph: graph,
        buffers: [[m, k], [3 * k, n], [n], [m, n]].map((dims, i) => ({ offset: offsets[i], bytes: sizes[i], dtype: 1, dims })),
        constants: [{ buffer: 1, data: splitWeights(b, k, n) }, ...(withBias ? [{ buffer: 2, data: bias }] : [])],
        inputs: [0], outputs: [3],
        steps: [{ op: 'MatMulSplitTf32', attrs: [], inputs: withBias ? [0, 1, 2] : [0, 1], outputs: [3], workspace: { offset: offsets[4], bytes: sizes[4] } }],
      });
      console.log(`# ${plan.stepNotes[0]}`);
      if (tf32Gpu()) assert.match(plan.stepNotes[0], /cublas/i);
      for (let run = 0; run < 3; run++) {
        const y = new Float32Array(m * n);
        await plan.run([a], [y]);
        const error = relativeError(y, a, b, withBias ? bias : undefined, m, k, n);
        if (run === 0) console.log(`# error ${error.toExponential(2)}`);
        assert.ok(error < 2e-6, `run ${run}: error ${error} (plain TF32 would be ~1e-4)`);
      }
      plan.dispose();
    });
  }

  it('refuses a workspace too small for the split activation, and a B3 whose rows are not 3K', (t) => {
    if (!loaded.binding.planStepOps().includes('MatMulSplitTf32')) return t.skip('this build has no MatMulSplitTf32 step');
    const build = (b3Rows, workspaceBytes) => () =>
      new loaded.binding.ExecutionPlan({
        deviceId: 0, arenaBytes: 4 * 65536, captureGraph: false,
        buffers: [{ offset: 0, bytes: 64 * 32 * 4, dtype: 1, dims: [64, 32] }, { offset: 65536, bytes: b3Rows * 32 * 4, dtype: 1, dims: [b3Rows, 32] }, { offset: 131072, bytes: 64 * 32 * 4, dtype: 1, dims: [64, 32] }],
        constants: [], inputs: [0, 1], outputs: [2],
        steps: [{ op: 'MatMulSplitTf32', attrs: [], inputs: [0, 1], outputs: [2], workspace: { offset: 196608, bytes: workspaceBytes } }],
      }).dispose();
    assert.doesNotThrow(build(96, 64 * 96 * 4));
    assert.throws(build(96, 64 * 96 * 4 - 4), /needs 24576 bytes of workspace/);
    assert.throws(build(95, 64 * 96 * 4), /B3 must be 2-D with 3K rows/);
  });

  it('a large Linear layer through the EP: MatMulSplitTf32 with high (the default) on TF32 GPUs, plain with highest', async () => {
    const [m, k, n] = [1024, 1024, 1024]; // 2^30 multiply-adds: the smallest product that splits
    const model = buildModel({
      inputs: [['x', 'float32', [m, k]]], outputs: [['y', 'float32']],
      initializers: { w: new Tensor('float32', seeded(k * n, 61), [k, n]), b: new Tensor('float32', seeded(n, 62), [n]) },
      nodes: [{ op: 'MatMul', inputs: ['x', 'w'], outputs: ['h'] }, { op: 'Add', inputs: ['h', 'b'], outputs: ['y'] }], opset: 17,
    });
    const feeds = { x: new Tensor('float32', seeded(m * k, 63), [m, k]) };
    const expected = (await reference(model, feeds)).y.data;
    for (const precision of [undefined, 'highest']) {
      const s = await InferenceSession.fromModel(model, { executionProviders: [{ name: 'rocm', ...(precision ? { fp32MatmulPrecision: precision } : {}) }, 'cpu'] });
      const got = (await s.run(feeds)).y.data;
      const ops = s.providers.find((p) => p.name === 'rocm').partitions.flatMap((p) => p.stats.lastDescription.steps.map((st) => st.op));
      console.log(`# ${precision ?? 'default'}: ${ops.join(' ')}`);
      assert.equal(ops.includes('MatMulSplitTf32'), precision === undefined && tf32Gpu(), ops.join(','));
      assertClose(got, expected, 1e-4, 1e-4, `y (${precision ?? 'default'})`);
      await s.release();
    }
  });
});
