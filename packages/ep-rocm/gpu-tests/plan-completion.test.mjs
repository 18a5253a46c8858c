// GPU tests of how a plan's run ends: a graph replay with small host inputs and outputs begins on
// the JS thread (start) and is polled to its end from the event loop (poll); anything else goes to
// the worker. Runs against the BUILT packages, as plan.test.mjs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { assertClose, loaded, reference, seeded, skip } from './lib/harness.mjs';

// y = Relu(x) over n floats, captured as a graph from the second run on.
function reluPlan(n) {
  const bytes = n * 4;
  const second = Math.ceil(bytes / 256) * 256;
  return new loaded.binding.ExecutionPlan({
    deviceId: 0,
    arenaBytes: second + bytes,
    captureGraph: true,
    buffers: [
      { offset: 0, bytes, dtype: 1, dims: [n] },
      { offset: second, bytes, dtype: 1, dims: [n] },
    ],
    constants: [],
    inputs: [0],
    outputs: [1],
    steps: [{ op: 'Relu', attrs: [], inputs: [0], outputs: [1] }],
  });
}

const relu = (x) => Array.from(x, (v) => Math.max(0, v));

// Polls a started run to its end the way runPlan does, counting the polls.
async function pollToEnd(plan) {
  let polls = 0;
  for (;;) {
    await new Promise((resolve) => setImmediate(resolve));
    polls++;
    if (plan.poll()) return polls;
  }
}

// Two eager-or-capturing runs first: only a replay may be polled.
async function warm(plan, n) {
  for (let i = 0; i < 2; i++) await plan.run([seeded(n, 90 + i)], [new Float32Array(n)]);
  assert.ok(plan.graphCaptured, plan.graphNote || 'not captured');
}

describe('plan completion: start/poll on the event loop, the worker otherwise', { skip }, () => {
  it('polls a graph replay to its end and fills the outputs', async () => {
    const n = 4096;
    const plan = reluPlan(n);
    const x = seeded(n, 1);
    const first = plan.start([x], [new Float32Array(n)]);
    assert.ok(first instanceof Promise, 'an eager first run goes to the worker');
    await first;
    await warm(plan, n);
    for (let run = 0; run < 3; run++) {
      const input = seeded(n, 10 + run);
      const y = new Float32Array(n).fill(Number.NaN);
      assert.equal(plan.start([input], [y]), true);
      const polls = await pollToEnd(plan);
      assert.ok(polls >= 1);
      assertClose(y, relu(input), 0, 0, `run ${run}`);
      assert.equal(plan.lastRunPhasesMs.polled, true);
      assert.equal(plan.lastRunPhasesMs.onCaller, true);
    }
    assert.throws(() => plan.poll(), /no run begun by start\(\) is in flight/);
    plan.dispose();
  });

  it('drains outputs under 4 MiB in ~64 KiB slices on one thread, ragged last slice included', async () => {
    // 400,012 bytes: 6 slices, polled; 1,200,012 bytes: 16 slices, on the worker (past 1 MiB).
    for (const n of [100003, 300003]) {
      const plan = reluPlan(n);
      await warm(plan, n);
      for (let run = 0; run < 2; run++) {
        const x = seeded(n, 60 + run);
        const y = new Float32Array(n).fill(Number.NaN);
        const started = plan.start([x], [y]);
        if (started === true) await pollToEnd(plan);
        else await started;
        assert.equal(plan.lastRunPhasesMs.polled, n * 4 <= 1 << 20, `n ${n}`);
        for (let i = 0; i < n; i++) if (y[i] !== Math.max(0, x[i])) assert.fail(`n ${n} run ${run}: y[${i}] = ${y[i]}, expected ${Math.max(0, x[i])}`);
      }
      plan.dispose();
    }
  });

  it('queues a run made while a polled one is in flight on the worker, and both finish', async () => {
    const n = 4096;
    const plan = reluPlan(n);
    await warm(plan, n);
    const a = seeded(n, 21);
    const b = seeded(n, 22);
    const ya = new Float32Array(n);
    const yb = new Float32Array(n);
    assert.equal(plan.start([a], [ya]), true);
    const queued = plan.run([b], [yb]);
    // A second start while one is polled falls back to the worker too.
    const c = seeded(n, 23);
    const yc = new Float32Array(n);
    const third = plan.start([c], [yc]);
    assert.ok(third instanceof Promise);
    await pollToEnd(plan);
    await Promise.all([queued, third]);
    assertClose(ya, relu(a), 0, 0, 'polled');
    assertClose(yb, relu(b), 0, 0, 'queued run');
    assertClose(yc, relu(c), 0, 0, 'queued start');
    plan.dispose();
  });

  it('finishes a polled run when the plan is disposed, and the next poll says so', async () => {
    const n = 4096;
    const plan = reluPlan(n);
    await warm(plan, n);
    const x = seeded(n, 31);
    const y = new Float32Array(n);
    assert.equal(plan.start([x], [y]), true);
    plan.dispose(); // must not wait for a poll that only this thread could make
    assert.throws(() => plan.poll(), /ExecutionPlan\.poll: the plan was disposed/);
    assertClose(y, relu(x), 0, 0, 'the run finished before the plan was freed');
    assert.throws(() => plan.start([x], [y]), /disposed/);
  });

  it('sends large host outputs and SWITCHYARD_PLAN_WAIT=worker to the worker', async () => {
    const big = (1 << 20) / 4 + 64; // past the 1 MiB the JS thread may drain
    const plan = reluPlan(big);
    await warm(plan, big);
    const x = seeded(big, 41);
    const y = new Float32Array(big);
    const started = plan.start([x], [y]);
    assert.ok(started instanceof Promise, 'large outputs drain on the worker');
    await started;
    assertClose(y, relu(x), 0, 0, 'large');
    assert.equal(plan.lastRunPhasesMs.polled, false);
    plan.dispose();

    const small = reluPlan(1024);
    await warm(small, 1024);
    process.env.SWITCHYARD_PLAN_WAIT = 'worker';
    try {
      const s = seeded(1024, 42);
      const ys = new Float32Array(1024);
      const p = small.start([s], [ys]);
      assert.ok(p instanceof Promise);
      await p;
      assertClose(ys, relu(s), 0, 0, 'worker');
    } finally {
      delete process.env.SWITCHYARD_PLAN_WAIT;
    }
    small.dispose();
  });

  it('checks start()\'s arguments as run() does', async () => {
    const plan = reluPlan(16);
    assert.throws(() => plan.start([new Float32Array(15)], [new Float32Array(16)]), /ExecutionPlan\.start: inputs\[0\] has 60 bytes, the plan expects 64/);
    assert.throws(() => plan.start([new Float32Array(16)], []), /takes 1 inputs and 1 outputs, got 1 and 0/);
    assert.throws(() => plan.start(null, []), /both must be arrays/);
    // A failed check leaves nothing in flight: the next run is not held up.
    const x = seeded(16, 5);
    const y = new Float32Array(16);
    await plan.run([x], [y]);
    assertClose(y, relu(x), 0, 0, 'after the failed checks');
    plan.dispose();
  });

  it('ends a session\'s graph replays on the event loop, with the same results', async () => {
    const model = buildModel({
      inputs: [['x', 'float32', [8, 64]]],
      outputs: [['y', 'float32']],
      initializers: { w: new Tensor('float32', seeded(64 * 64, 51), [64, 64]) },
      nodes: [
        { op: 'MatMul', inputs: ['x', 'w'], outputs: ['h'], name: 'matmul' },
        { op: 'Relu', inputs: ['h'], outputs: ['y'], name: 'relu' },
      ],
    });
    const x = new Tensor('float32', seeded(8 * 64, 52), [8, 64]);
    const expected = await reference(model, { x });
    const s = await InferenceSession.fromModel(model, { executionProviders: [{ name: 'rocm', enableHipGraph: true }, 'cpu'] });
    // Runs overlap: each partition serializes its plan's runs, polled or not.
    const outs = await Promise.all(Array.from({ length: 6 }, () => s.run({ x })));
    for (const [i, out] of outs.entries()) assertClose(out.y.data, expected.y.data, 1e-4, 1e-3, `run ${i}`);
    const plan = s.providers.find((p) => p.name === 'rocm').partitions[0].stats.lastPlan;
    assert.ok(plan.graphCaptured, plan.graphNote);
    assert.equal(plan.lastRunPhasesMs.polled, true);
    await s.release();
  });
});
