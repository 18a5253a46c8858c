// If on rocm (plan/if-branches.ts): the exporter's sample-rate pattern, If(Equal(sr, 16000)) picking a
// strided Conv1d's hop, runs in one partition with the taken branch in the plan; alternating the rate
// builds one plan per value (then reuses them), and the outputs match the CPU EP's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Graph, InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { assertClose, reference, seeded, skip } from './lib/harness.mjs';

function srModel() {
  const model = buildModel({
    inputs: [['x', 'float32', [2, 1, 512]], ['sr', 'int64', []]],
    outputs: [['z', 'float32']],
    initializers: {
      basis: new Tensor('float32', seeded(8 * 32, 3), [8, 1, 32]),
      rate: new Tensor('int64', BigInt64Array.from([16000n]), []),
    },
    nodes: [
      { op: 'Equal', inputs: ['sr', 'rate'], outputs: ['eq'], name: 'equal' },
      { op: 'Cast', inputs: ['eq'], outputs: ['c'], name: 'cast', attributes: { to: 9 } },
    ],
    opset: 17,
  });
  const g = model.graph;
  const branch = (name, stride) => {
    const b = new Graph({ name, opsetImports: g.opsetImports, parent: g, outputs: [{ name: `y_${name}` }] });
    b.addNode({ opType: 'Conv', inputs: ['x', 'basis'], outputs: [`y_${name}`], attributes: new Map([['strides', { type: 'ints', value: [stride] }], ['kernel_shape', { type: 'ints', value: [32] }]]) });
    return b;
  };
  g.addNode({ opType: 'If', name: 'if', inputs: ['c'], outputs: ['y'], attributes: new Map([['then_branch', { type: 'graph', value: branch('then', 16) }], ['else_branch', { type: 'graph', value: branch('else', 8) }]]) });
  g.addNode({ opType: 'Relu', name: 'relu', inputs: ['y'], outputs: ['z'] });
  return model;
}

describe('rocm: If decided when the plan is built', { skip }, () => {
  it('runs the sample-rate If on rocm, one plan per rate, matching the CPU EP', async () => {
    const model = srModel();
    const s = await InferenceSession.fromModel(model, { executionProviders: [{ name: 'rocm', enableHipGraph: true }, 'cpu'] });
    const off = s.placement.nodes.filter((n) => n.ep !== 'rocm').map((n) => `${n.name} (${n.opType}): ${n.declined.map((d) => d.reason.message).join('; ')}`);
    assert.deepEqual(off, [], 'nodes off rocm');
    const parts = s.providers.find((p) => p.name === 'rocm').partitions;
    assert.equal(parts.length, 1, 'one partition');
    const x = new Tensor('float32', seeded(2 * 512, 9), [2, 1, 512]);
    const rates = [16000n, 8000n, 16000n, 8000n, 16000n];
    for (const rate of rates) {
      const feeds = { x, sr: new Tensor('int64', BigInt64Array.from([rate]), []) };
      const got = await s.run(feeds);
      const want = await reference(model, feeds);
      assert.deepEqual(got.z.dims, want.z.dims, `z dims at ${rate}`);
      assert.deepEqual(got.z.dims, [2, 8, rate === 16000n ? 31 : 61]);
      assertClose(got.z.data, want.z.data, 1e-4, 1e-4, `z at ${rate}`);
    }
    assert.equal(parts[0].stats.plans, 2, 'one plan per rate');
    assert.equal(parts[0].stats.runs, rates.length);
    await s.release();
  });
});
