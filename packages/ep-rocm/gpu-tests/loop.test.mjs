// Loop on rocm: a Loop's body is planned with the session's own providers (core build-plan.ts), so its
// float work -- here h = Relu(h · W + b), W and b read from the outer scope -- compiles into a rocm
// partition that runs once per iteration, while the Loop node itself (trip count, carried values) stays
// on the CPU EP. The result matches the CPU EP's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Graph, InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { assertClose, reference, seeded, skip } from './lib/harness.mjs';

const ROWS = 4;
const WIDTH = 64;
const TRIPS = 3;

function loopModel() {
  const model = buildModel({
    inputs: [['h0', 'float32', [ROWS, WIDTH]]],
    outputs: [['h', 'float32']],
    initializers: {
      trips: new Tensor('int64', BigInt64Array.from([BigInt(TRIPS)]), []),
      go: new Tensor('bool', Uint8Array.from([1]), []),
      w: new Tensor('float32', seeded(WIDTH * WIDTH, 5).map((v) => v * 0.25), [WIDTH, WIDTH]),
      b: new Tensor('float32', seeded(WIDTH, 6), [WIDTH]),
    },
    nodes: [],
    opset: 17,
  });
  const g = model.graph;
  const tensor = (elemType, shape) => ({ kind: 'tensor', elemType, shape });
  const body = new Graph({
    name: 'body',
    opsetImports: g.opsetImports,
    parent: g,
    inputs: [
      { name: 'i', type: tensor('int64', []) },
      { name: 'cond_in', type: tensor('bool', []) },
      { name: 'h_in', type: tensor('float32', [ROWS, WIDTH]) },
    ],
    outputs: [{ name: 'cond_out' }, { name: 'h_out' }],
  });
  body.addNode({ opType: 'Identity', name: 'keep_going', inputs: ['cond_in'], outputs: ['cond_out'] });
  body.addNode({ opType: 'MatMul', name: 'matmul', inputs: ['h_in', 'w'], outputs: ['mm'] });
  body.addNode({ opType: 'Add', name: 'bias', inputs: ['mm', 'b'], outputs: ['biased'] });
  body.addNode({ opType: 'Relu', name: 'relu', inputs: ['biased'], outputs: ['h_out'] });
  g.addNode({ opType: 'Loop', name: 'loop', inputs: ['trips', 'go', 'h0'], outputs: ['h'], attributes: new Map([['body', { type: 'graph', value: body }]]) });
  return model;
}

describe('rocm: Loop bodies', { skip }, () => {
  it("runs a Loop body's MatMul/Add/Relu on rocm each iteration, matching the CPU EP", async () => {
    const model = loopModel();
    const s = await InferenceSession.fromModel(model, { executionProviders: ['rocm', 'cpu'] });
    const feeds = { h0: new Tensor('float32', seeded(ROWS * WIDTH, 7), [ROWS, WIDTH]) };
    const want = await reference(model, feeds);
    const runs = 2;
    for (let r = 0; r < runs; r++) {
      const got = await s.run(feeds);
      assert.deepEqual(got.h.dims, [ROWS, WIDTH]);
      assertClose(got.h.data, want.h.data, 1e-4, 1e-4, `h (run ${r})`);
    }
    // The body's nodes on rocm (its Identity on the condition may form a partition of its own).
    const partitions = s.providers.find((p) => p.name === 'rocm').partitions;
    assert.ok(partitions.length >= 1, 'the body compiled a rocm partition');
    const steps = partitions.flatMap((p) => p.stats.lastDescription?.steps.map((st) => st.node) ?? []);
    for (const node of ['matmul', 'bias', 'relu']) assert.ok(steps.some((n) => n.includes(node)), `${node} in a rocm plan (${steps.join(', ')})`);
    for (const p of partitions) assert.equal(p.stats.runs, runs * TRIPS, 'each body partition runs once per iteration');
    await s.release();
  });
});
