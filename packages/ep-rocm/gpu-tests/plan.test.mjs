// GPU tests of the ROCm EP's execution plans. Plain node:test against the BUILT packages
// (packages/*/dist and native-hip/build/Release/switchyard_hip.node), so they run on a GPU host
// without node_modules: scripts/gpu-host/run.sh runs them. Without a usable device every test skips.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { RocmExecutionProvider } from '@switchyard/ep-rocm';
import { assertClose, loaded, reference, seeded, skip, usable } from './lib/harness.mjs';

// x[B,16] → MatMul W[16,32] → Add b → Relu → Softmax → ReduceMean(axis 1)
function mlp() {
  return buildModel({
    inputs: [['x', 'float32', ['batch', 16]]],
    outputs: [['y', 'float32'], ['p', 'float32']],
    initializers: { w: new Tensor('float32', seeded(16 * 32, 7), [16, 32]), b: new Tensor('float32', seeded(32, 9), [32]) },
    nodes: [
      { op: 'MatMul', inputs: ['x', 'w'], outputs: ['h'], name: 'matmul' },
      { op: 'Add', inputs: ['h', 'b'], outputs: ['hb'], name: 'bias' },
      { op: 'Relu', inputs: ['hb'], outputs: ['r'], name: 'relu' },
      { op: 'Softmax', inputs: ['r'], outputs: ['p'], name: 'softmax', attributes: { axis: -1 } },
      { op: 'ReduceMean', inputs: ['p'], outputs: ['y'], name: 'mean', attributes: { axes: [1], keepdims: 1 } },
    ],
    opset: 17,
  });
}

describe('rocm execution plans', { skip }, () => {
  let ops = [];
  before(() => {
    ops = loaded.binding.planStepOps();
  });

  it('reports the step ops this build runs', () => {
    assert.ok(ops.includes('Copy'), `planStepOps: ${ops.join(',')}`);
    console.log(`# step ops (${ops.length}): ${ops.join(' ')}`);
  });

  it('runs a hand-written plan in one call (Relu of a host input into a host output)', async (t) => {
    if (!ops.includes('Relu')) return t.skip('this build has no Relu step');
    const x = Float32Array.from([-2, -1, 0, 1, 2, 3]);
    const y = new Float32Array(6);
    const plan = new loaded.binding.ExecutionPlan({
      deviceId: 0,
      arenaBytes: 512,
      captureGraph: false,
      buffers: [
        { offset: 0, bytes: 24, dtype: 1, dims: [2, 3] },
        { offset: 256, bytes: 24, dtype: 1, dims: [2, 3] },
      ],
      constants: [],
      inputs: [0],
      outputs: [1],
      steps: [{ op: 'Relu', attrs: [], inputs: [0], outputs: [1] }],
    });
    await plan.run([x], [y]);
    assert.deepEqual(Array.from(y), [0, 0, 0, 1, 2, 3]);
    assert.equal(plan.runs, 1);
    plan.dispose();
    assert.throws(() => plan.run([x], [y]), /disposed/);
  });

  it('hands a disposed plan\'s stream (and its library handles) to the next plan, keeping at most two idle', async (t) => {
    if (!ops.includes('Relu')) return t.skip('this build has no Relu step');
    const make = () =>
      new loaded.binding.ExecutionPlan({
        deviceId: 0,
        arenaBytes: 512,
        captureGraph: false,
        buffers: [
          { offset: 0, bytes: 16, dtype: 1, dims: [4] },
          { offset: 256, bytes: 16, dtype: 1, dims: [4] },
        ],
        constants: [],
        inputs: [0],
        outputs: [1],
        steps: [{ op: 'Relu', attrs: [], inputs: [0], outputs: [1] }],
      });
    const plans = [make(), make(), make(), make()];
    const idleBefore = loaded.binding.idlePlanStreams(0);
    for (const plan of plans) {
      const y = new Float32Array(4);
      await plan.run([Float32Array.from([-1, 2, -3, 4])], [y]);
      assert.deepEqual(Array.from(y), [0, 2, 0, 4]);
    }
    for (const plan of plans) plan.dispose();
    assert.equal(loaded.binding.idlePlanStreams(0), 2, `idle before: ${idleBefore}`);
    const next = make();
    assert.equal(loaded.binding.idlePlanStreams(0), 1, 'the next plan takes an idle stream');
    const y = new Float32Array(4);
    await next.run([Float32Array.from([5, -6, 7, -8])], [y]);
    assert.deepEqual(Array.from(y), [5, 0, 7, 0]);
    next.dispose();
    assert.equal(loaded.binding.idlePlanStreams(0), 2);
  });

  it('copies large host inputs and outputs through its pinned mirrors in slices, run after run', async (t) => {
    if (!ops.includes('Relu')) return t.skip('this build has no Relu step');
    const n = (5 << 20) / 4 + 3; // 5 MiB and a bit: several slices on several threads, a ragged last one
    const bytes = n * 4;
    const plan = new loaded.binding.ExecutionPlan({
      deviceId: 0,
      arenaBytes: 2 * bytes + 256,
      captureGraph: false,
      buffers: [
        { offset: 0, bytes, dtype: 1, dims: [n] },
        { offset: bytes + 256 - ((bytes + 256) % 256), bytes, dtype: 1, dims: [n] },
      ],
      constants: [],
      inputs: [0],
      outputs: [1],
      steps: [{ op: 'Relu', attrs: [], inputs: [0], outputs: [1] }],
    });
    for (let run = 0; run < 3; run++) {
      const x = seeded(n, 20 + run);
      const y = new Float32Array(n).fill(Number.NaN);
      await plan.run([x], [y]);
      for (let i = 0; i < n; i++) if (y[i] !== Math.max(0, x[i])) assert.fail(`run ${run}: y[${i}] = ${y[i]}, expected ${Math.max(0, x[i])}`);
    }
    plan.dispose();
  });

  it('rejects a malformed description with a clear error', () => {
    assert.throws(() => new loaded.binding.ExecutionPlan({ deviceId: 0, arenaBytes: 16, captureGraph: false, buffers: [{ offset: 8, bytes: 16, dtype: 1, dims: [4] }], constants: [], inputs: [], outputs: [], steps: [] }), /ends past arenaBytes/);
    assert.throws(() => new loaded.binding.ExecutionPlan({ deviceId: 0, arenaBytes: 16, captureGraph: false, buffers: [{ offset: 0, bytes: 16, dtype: 1, dims: [4] }], constants: [], inputs: [0], outputs: [0], steps: [{ op: 'NoSuchOp', attrs: [], inputs: [0], outputs: [0] }] }), /no step op 'NoSuchOp'/);
  });

  it('places a whole MLP on rocm as one partition and matches the CPU EP', async () => {
    const x = new Tensor('float32', seeded(3 * 16, 3), [3, 16]);
    const expected = await reference(mlp(), { x });
    const s = await InferenceSession.fromModel(mlp(), { executionProviders: ['rocm', 'cpu'] });
    const placed = s.placement.nodes.map((n) => `${n.name}:${n.ep}`);
    console.log(`# placement: ${placed.join(' ')}`);
    const out = await s.run({ x });
    assertClose(out.p.data, expected.p.data, 1e-4, 1e-3, 'p');
    assertClose(out.y.data, expected.y.data, 1e-4, 1e-3, 'y');
    assert.ok(s.placement.nodes.every((n) => n.ep === 'rocm'), placed.join(' '));
    // A second batch size builds a second plan and still matches.
    const x5 = new Tensor('float32', seeded(5 * 16, 4), [5, 16]);
    const e5 = await reference(mlp(), { x: x5 });
    assertClose((await s.run({ x: x5 })).p.data, e5.p.data, 1e-4, 1e-3, 'p (batch 5)');
    await s.release();
  });

  it('keeps outputs on the device with preferredOutputLocation and takes device tensors as inputs', async () => {
    const model = buildModel({ inputs: [['x', 'float32', [4, 8]]], outputs: [['y', 'float32']], nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'], name: 'relu' }] });
    const s = await InferenceSession.fromModel(model, { executionProviders: ['rocm', 'cpu'], preferredOutputLocation: 'device' });
    const x = new Tensor('float32', seeded(32, 5), [4, 8]);
    const first = await s.run({ x });
    assert.equal(first.y.location, 'rocm:0');
    // Feed the device tensor back in: no copy to or from the host in between.
    const second = await s.run({ x: first.y });
    assert.equal(second.y.location, 'rocm:0');
    const data = await second.y.getData();
    assertClose(data, Array.from(x.data, (v) => Math.max(0, v)), 0, 0, 'relu(relu(x))');
    first.y.dispose();
    second.y.dispose();
    await s.release();
  });

  it('writes outputs read on the host straight into host memory, keeps device-preferred outputs on the device, and learns from their readers', async () => {
    const model = buildModel({ inputs: [['x', 'float32', [4, 8]]], outputs: [['y', 'float32']], nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'], name: 'relu' }] });
    const x = new Tensor('float32', seeded(32, 6), [4, 8]);
    const relu = Array.from(x.data, (v) => Math.max(0, v));
    // Host reader (the default output location): the plan fills the host array, placement stays host.
    const host = await InferenceSession.fromModel(model, { executionProviders: ['rocm', 'cpu'] });
    const hostPart = host.providers.find((p) => p.name === 'rocm').partitions[0];
    for (let i = 0; i < 3; i++) assertClose((await host.run({ x })).y.data, relu, 0, 0, `host run ${i}`);
    assert.deepEqual(hostPart.outputPlacement, ['host']);
    await host.release();
    // Device preference (IO binding): a graph output the session keeps on the device starts there; a
    // download turns it to the host for later runs, and a device consumer of a host result turns it back.
    const s = await InferenceSession.fromModel(model, { executionProviders: ['rocm', 'cpu'], preferredOutputLocation: 'device' });
    const part = s.providers.find((p) => p.name === 'rocm').partitions[0];
    assert.deepEqual(part.outputPlacement, ['device']);
    const first = await s.run({ x });
    assert.equal(first.y.location, 'rocm:0');
    assertClose(await first.y.getData(), relu, 0, 0, 'relu(x) from the device');
    assert.deepEqual(part.outputPlacement, ['host']);
    const second = await s.run({ x });
    assert.deepEqual(part.outputPlacement, ['host']);
    const third = await s.run({ x: second.y });
    assert.deepEqual(part.outputPlacement, ['device']);
    assert.equal(third.y.location, 'rocm:0');
    assertClose(await third.y.getData(), relu, 0, 0, 'relu(relu(x))');
    const fourth = await s.run({ x });
    assertClose(await fourth.y.getData(), relu, 0, 0, 'relu(x) as a host result');
    for (const t of [first, second, third, fourth]) t.y.dispose();
    await s.release();
  });

  it('reads an uploaded input in place run after run (uploadTensor), outputs kept on the device', async () => {
    const s = await InferenceSession.fromModel(mlp(), { executionProviders: ['rocm', 'cpu'], preferredOutputLocation: 'device' });
    const ep = s.providers.find((p) => p.name === 'rocm');
    const host = new Tensor('float32', seeded(3 * 16, 12), [3, 16]);
    const expected = await reference(mlp(), { x: host });
    const x = ep.uploadTensor(host);
    assert.equal(x.location, 'rocm:0');
    assert.throws(() => ep.uploadTensor(x), /not on the host/);
    for (let i = 0; i < 3; i++) {
      const out = await s.run({ x });
      assert.equal(out.p.location, 'rocm:0');
      assertClose(await out.p.getData(), expected.p.data, 1e-4, 1e-3, `p, run ${i}`);
      out.p.dispose();
      out.y.dispose();
    }
    // The caller's tensor outlives the runs that read it; disposing it frees it, and a later run says so.
    assertClose(await x.getData(), host.data, 0, 0, 'the uploaded input');
    x.dispose();
    await assert.rejects(() => s.run({ x }), /used after its dispose/);
    await s.release();
  });

  it('keeps maxPlansPerPartition plans, freeing the least recently used', async () => {
    const s = await InferenceSession.fromModel(mlp(), { executionProviders: [{ name: 'rocm', maxPlansPerPartition: 2 }, 'cpu'] });
    const part = s.providers.find((p) => p.name === 'rocm').partitions[0];
    const run = async (batch) => {
      const x = new Tensor('float32', seeded(batch * 16, 20 + batch), [batch, 16]);
      assertClose((await s.run({ x })).p.data, (await reference(mlp(), { x })).p.data, 1e-4, 1e-3, `p (batch ${batch})`);
    };
    // 1 and 2 built; 1 used again (most recent); 3 frees 2, not 1; 1 is still there; 2 is built again.
    for (const [batch, plans, freed] of [[1, 1, 0], [2, 2, 0], [1, 2, 0], [3, 3, 1], [1, 3, 1], [2, 4, 2]]) {
      await run(batch);
      assert.deepEqual([part.stats.plans, part.stats.plansFreed], [plans, freed], `after batch ${batch}`);
    }
    await s.release();
  });

  it('replays a captured graph when enableHipGraph is on, with the same results', async () => {
    const s = await InferenceSession.fromModel(mlp(), { executionProviders: [{ name: 'rocm', enableHipGraph: true }, 'cpu'] });
    const ep = s.providers.find((p) => p.name === 'rocm');
    const x = new Tensor('float32', seeded(2 * 16, 11), [2, 16]);
    const expected = await reference(mlp(), { x });
    for (let i = 0; i < 4; i++) assertClose((await s.run({ x })).p.data, expected.p.data, 1e-4, 1e-3, `run ${i}`);
    const plan = ep.partitions[0].stats.lastPlan;
    console.log(`# graph captured: ${plan.graphCaptured} ${plan.graphNote}`);
    assert.ok(plan.graphCaptured, plan.graphNote || 'not captured');
    await s.release();
  });

  it('runs fp16 partitions within half-precision tolerance', async () => {
    const x = new Tensor('float32', seeded(3 * 16, 13), [3, 16]);
    const expected = await reference(mlp(), { x });
    const s = await InferenceSession.fromModel(mlp(), { executionProviders: [{ name: 'rocm', fp16: true }, 'cpu'] });
    const out = await s.run({ x });
    assertClose(out.p.data, expected.p.data, 2e-3, 2e-2, 'p (fp16)');
    const ep = s.providers.find((p) => p.name === 'rocm');
    assert.ok(ep.partitions[0].stats.lastDescription.buffers.some((b) => b.dtype === 10), 'float16 buffers in the plan');
    await s.release();
  });
});

// x[1,3,9,9] → Conv(4 filters, bias or not) → act: the plan folds act into the Conv step's epilogue.
function convAct(act, withBias) {
  const nodes = [{ op: 'Conv', inputs: withBias ? ['x', 'w', 'b'] : ['x', 'w'], outputs: ['c'], name: 'conv', attributes: { pads: [1, 1, 1, 1] } }];
  if (act === 'Clip') nodes.push({ op: 'Clip', inputs: ['c', 'lo', 'hi'], outputs: ['y'], name: 'act' });
  else if (act === 'LeakyRelu') nodes.push({ op: 'LeakyRelu', inputs: ['c'], outputs: ['y'], name: 'act', attributes: { alpha: 0.1 } });
  else if (act) nodes.push({ op: act, inputs: ['c'], outputs: ['y'], name: 'act' });
  return buildModel({
    inputs: [['x', 'float32', [1, 3, 9, 9]]],
    outputs: [[act ? 'y' : 'c', 'float32']],
    initializers: {
      w: new Tensor('float32', seeded(4 * 3 * 9, 21), [4, 3, 3, 3]),
      b: new Tensor('float32', seeded(4, 22), [4]),
      lo: new Tensor('float32', Float32Array.of(-0.05), []),
      hi: new Tensor('float32', Float32Array.of(0.1), []),
    },
    nodes,
    opset: 17,
  });
}

describe('conv epilogues (activation folded into the Conv step)', { skip }, () => {
  for (const fp16 of [false, true]) {
    for (const [act, withBias] of [['Relu', true], ['Relu', false], ['Clip', true], ['LeakyRelu', true], ['Sigmoid', false], [undefined, true]]) {
      it(`${act ?? 'bias only'}${withBias ? '' : ' (no bias)'}${fp16 ? ' in fp16' : ''} matches the CPU EP`, async () => {
        const model = convAct(act, withBias);
        const x = new Tensor('float32', seeded(3 * 81, 23), [1, 3, 9, 9]);
        const expected = await reference(model, { x });
        const s = await InferenceSession.fromModel(model, { executionProviders: [{ name: 'rocm', fp16 }, 'cpu'] });
        const out = await s.run({ x });
        const name = act ? 'y' : 'c';
        assertClose(out[name].data, expected[name].data, fp16 ? 2e-3 : 1e-5, fp16 ? 1e-2 : 1e-4, name);
        const steps = s.providers.find((p) => p.name === 'rocm').partitions[0].stats.lastDescription.steps.map((st) => st.op);
        // Batch 1: 'auto' keeps float16 convolutions NCHW (see nhwc-layout.ts).
        assert.equal(steps.filter((op) => op === 'Conv').length, 1, steps.join(','));
        assert.ok(!steps.includes(act ?? 'none'), `the activation was folded: ${steps.join(',')}`);
        await s.release();
      });
    }
  }
});

describe('conv residual epilogue (Conv → Add → Relu in one step)', { skip }, () => {
  const model = () =>
    buildModel({
      inputs: [['x', 'float32', [2, 3, 9, 9]]],
      outputs: [['y', 'float32']],
      initializers: {
        w: new Tensor('float32', seeded(4 * 27, 31), [4, 3, 3, 3]),
        b: new Tensor('float32', seeded(4, 32), [4]),
        wd: new Tensor('float32', seeded(4 * 3, 33), [4, 3, 1, 1]),
      },
      nodes: [
        { op: 'Conv', inputs: ['x', 'w', 'b'], outputs: ['c'], name: 'conv', attributes: { pads: [1, 1, 1, 1] } },
        { op: 'Conv', inputs: ['x', 'wd'], outputs: ['z'], name: 'down' },
        { op: 'Add', inputs: ['c', 'z'], outputs: ['s'], name: 'add' },
        { op: 'Relu', inputs: ['s'], outputs: ['y'], name: 'relu' },
      ],
      opset: 17,
    });
  for (const fp16 of [false, true]) {
    for (const graph of [false, true]) {
      it(`matches the CPU EP${fp16 ? ' in fp16' : ''}${graph ? ' (graph replay)' : ''}`, async () => {
        const x = new Tensor('float32', seeded(2 * 3 * 81, 34), [2, 3, 9, 9]);
        const expected = await reference(model(), { x });
        const s = await InferenceSession.fromModel(model(), { executionProviders: [{ name: 'rocm', fp16, enableHipGraph: graph }, 'cpu'] });
        for (let i = 0; i < 3; i++) assertClose((await s.run({ x })).y.data, expected.y.data, fp16 ? 2e-3 : 1e-5, fp16 ? 1e-2 : 1e-4, `y run ${i}`);
        const steps = s.providers.find((p) => p.name === 'rocm').partitions[0].stats.lastDescription.steps;
        console.log(`# steps: ${steps.map((st) => `${st.op}(${st.node})`).join(' ')}`);
        assert.ok(!steps.some((st) => st.op === 'Add' || st.op === 'Relu'), 'Add and Relu folded');
        await s.release();
      });
    }
  }
});

describe('float16 convolutions channels-last (ConvNHWC, PoolNHWC) against NCHW and the CPU EP', { skip }, () => {
  // conv(relu) → maxpool → conv + residual from a 1x1 conv → relu → a Softmax reading the NCHW value too
  // → GlobalAveragePool → Flatten → Gemm: every layout boundary the pass handles.
  const model = () =>
    buildModel({
      inputs: [['x', 'float32', ['batch', 3, 12, 12]]],
      outputs: [['y', 'float32'], ['sm', 'float32']],
      initializers: {
        w1: new Tensor('float32', seeded(8 * 27, 41), [8, 3, 3, 3]),
        b1: new Tensor('float32', seeded(8, 42), [8]),
        w2: new Tensor('float32', seeded(8 * 72, 43), [8, 8, 3, 3]),
        wd: new Tensor('float32', seeded(8 * 8, 44), [8, 8, 1, 1]),
        fc: new Tensor('float32', seeded(5 * 8, 45), [5, 8]),
      },
      nodes: [
        { op: 'Conv', inputs: ['x', 'w1', 'b1'], outputs: ['c1'], name: 'conv1', attributes: { pads: [1, 1, 1, 1] } },
        { op: 'Relu', inputs: ['c1'], outputs: ['r1'], name: 'relu1' },
        { op: 'MaxPool', inputs: ['r1'], outputs: ['p'], name: 'pool', attributes: { kernel_shape: [2, 2], strides: [2, 2] } },
        { op: 'Conv', inputs: ['p', 'w2'], outputs: ['c2'], name: 'conv2', attributes: { pads: [1, 1, 1, 1] } },
        { op: 'Conv', inputs: ['p', 'wd'], outputs: ['d'], name: 'down' },
        { op: 'Add', inputs: ['c2', 'd'], outputs: ['s'], name: 'add' },
        { op: 'Relu', inputs: ['s'], outputs: ['r2'], name: 'relu2' },
        { op: 'Softmax', inputs: ['r2'], outputs: ['sm'], name: 'softmax', attributes: { axis: 1 } },
        { op: 'GlobalAveragePool', inputs: ['r2'], outputs: ['g'], name: 'gap' },
        { op: 'Flatten', inputs: ['g'], outputs: ['f'], name: 'flatten' },
        { op: 'Gemm', inputs: ['f', 'fc'], outputs: ['y'], name: 'gemm', attributes: { transB: 1 } },
      ],
      opset: 17,
    });
  for (const graph of [false, true]) {
    it(`NHWC matches NCHW and the CPU EP${graph ? ' (graph replay)' : ''}`, async () => {
      const x = new Tensor('float32', seeded(2 * 3 * 144, 46), [2, 3, 12, 12]);
      const expected = await reference(model(), { x });
      const results = {};
      for (const layout of ['NHWC', 'NCHW']) {
        const s = await InferenceSession.fromModel(model(), { executionProviders: [{ name: 'rocm', fp16: true, fp16ConvLayout: layout, enableHipGraph: graph }, 'cpu'] });
        for (let i = 0; i < 3; i++) {
          const out = await s.run({ x });
          assertClose(out.y.data, expected.y.data, 5e-3, 2e-2, `${layout} y run ${i}`);
          assertClose(out.sm.data, expected.sm.data, 2e-3, 2e-2, `${layout} sm run ${i}`);
          results[layout] = out;
        }
        const part = s.providers.find((p) => p.name === 'rocm').partitions[0];
        const ops = part.stats.lastDescription.steps.map((st) => st.op);
        console.log(`# ${layout}: ${ops.join(' ')}${part.stats.layoutNote ? ` (${part.stats.layoutNote})` : ''}`);
        if (layout === 'NHWC') {
          assert.equal(part.stats.layoutNote, undefined);
          assert.equal(ops.filter((op) => op === 'ConvNHWC').length, 3, ops.join(','));
          assert.equal(ops.filter((op) => op === 'PoolNHWC').length, 2, ops.join(','));
        } else assert.ok(!ops.some((op) => op.endsWith('NHWC')), ops.join(','));
        await s.release();
      }
      assertClose(results.NHWC.y.data, results.NCHW.y.data, 5e-3, 2e-2, 'NHWC vs NCHW');
    });
  }
});

describe('GELU chain folded into one BiasActivation step', { skip }, () => {
  const scalar = (v) => new Tensor('float32', Float32Array.of(v), []);
  // x[batch,64] → MatMul → Add bias → Div √2 → Erf → Add 1 → Mul → Mul 0.5 (torch's exported GELU)
  const model = () =>
    buildModel({
      inputs: [['x', 'float32', ['batch', 64]]],
      outputs: [['y', 'float32']],
      initializers: { w: new Tensor('float32', seeded(64 * 96, 51), [64, 96]), b: new Tensor('float32', seeded(96, 52), [96]), sqrt2: scalar(Math.SQRT2), one: scalar(1), half: scalar(0.5) },
      nodes: [
        { op: 'MatMul', inputs: ['x', 'w'], outputs: ['m'], name: 'matmul' },
        { op: 'Add', inputs: ['m', 'b'], outputs: ['h'], name: 'bias' },
        { op: 'Div', inputs: ['h', 'sqrt2'], outputs: ['d'], name: 'div' },
        { op: 'Erf', inputs: ['d'], outputs: ['e'], name: 'erf' },
        { op: 'Add', inputs: ['e', 'one'], outputs: ['a'], name: 'add1' },
        { op: 'Mul', inputs: ['h', 'a'], outputs: ['p'], name: 'mul' },
        { op: 'Mul', inputs: ['p', 'half'], outputs: ['y'], name: 'half' },
      ],
      opset: 17,
    });
  for (const fp16 of [false, true]) {
    it(`matches the CPU EP${fp16 ? ' in fp16' : ''}`, async () => {
      const x = new Tensor('float32', seeded(5 * 64, 53).map((v) => v * 6), [5, 64]);
      const expected = await reference(model(), { x });
      const s = await InferenceSession.fromModel(model(), { executionProviders: [{ name: 'rocm', fp16 }, 'cpu'] });
      const out = await s.run({ x });
      assertClose(out.y.data, expected.y.data, fp16 ? 1e-2 : 1e-5, fp16 ? 1e-2 : 1e-4, 'y');
      const ops = s.providers.find((p) => p.name === 'rocm').partitions[0].stats.lastDescription.steps.map((st) => st.op);
      assert.ok(ops.includes('BiasActivation') && !ops.includes('Erf'), ops.join(','));
      await s.release();
    });
  }
});

describe('row kernels (broadcast along a long last axis; transposes keeping it)', { skip }, () => {
  // a[2,5,3,96] + bias[96]; · mask[2,1,1,96]; transpose [0,2,1,3]; Sub with the operands swapped.
  const model = () =>
    buildModel({
      inputs: [['a', 'float32', [2, 5, 3, 96]], ['m', 'float32', [2, 1, 1, 96]]],
      outputs: [['y', 'float32'], ['z', 'float32']],
      initializers: { bias: new Tensor('float32', seeded(96, 61), [96]) },
      nodes: [
        { op: 'Add', inputs: ['a', 'bias'], outputs: ['s'], name: 'bias' },
        { op: 'Mul', inputs: ['m', 's'], outputs: ['p'], name: 'mask' },
        { op: 'Transpose', inputs: ['p'], outputs: ['t'], name: 'heads', attributes: { perm: [0, 2, 1, 3] } },
        { op: 'Sub', inputs: ['bias', 't'], outputs: ['y'], name: 'sub' },
        { op: 'Transpose', inputs: ['a'], outputs: ['z'], name: 'back', attributes: { perm: [2, 0, 1, 3] } },
      ],
      opset: 17,
    });
  for (const fp16 of [false, true]) {
    it(`match the CPU EP${fp16 ? ' in fp16' : ''}`, async () => {
      const feeds = { a: new Tensor('float32', seeded(2 * 5 * 3 * 96, 62), [2, 5, 3, 96]), m: new Tensor('float32', seeded(2 * 96, 63), [2, 1, 1, 96]) };
      const expected = await reference(model(), feeds);
      const s = await InferenceSession.fromModel(model(), { executionProviders: [{ name: 'rocm', fp16 }, 'cpu'] });
      const out = await s.run(feeds);
      assertClose(out.y.data, expected.y.data, fp16 ? 2e-3 : 1e-6, fp16 ? 1e-2 : 1e-6, 'y');
      assertClose(out.z.data, expected.z.data, fp16 ? 1e-3 : 0, fp16 ? 1e-3 : 0, 'z');
      await s.release();
    });
  }
});

describe('rocm EP on this machine', () => {
  it('initializes or declines with a reason', async () => {
    const ep = new RocmExecutionProvider();
    const err = await ep.init().then(() => undefined, (e) => e);
    if (usable) assert.equal(err, undefined, String(err));
    else assert.match(String(err?.message), /GPU|HIP|addon|device/);
    console.log(`# rocm: ${usable ? ep.describe() : err.message}`);
  });
});

describe('Linear layers (MatMul → Add bias as one MatMulBias step, GEMM algorithm chosen at plan build)', { skip }, () => {
  // x[1,S,K] → MatMul W[K,N] → Add b → MatMul W2[N,K] → Add b2: BERT's FFN shapes at reduced size, where
  // the algorithm search times cublasLt's candidates (split-K among them) on the step's own buffers.
  const model = (S, K, N) =>
    buildModel({
      inputs: [['x', 'float32', [1, S, K]]],
      outputs: [['y', 'float32']],
      initializers: {
        w: new Tensor('float32', seeded(K * N, 61).map((v) => v / 8), [K, N]),
        b: new Tensor('float32', seeded(N, 62), [N]),
        w2: new Tensor('float32', seeded(N * K, 63).map((v) => v / 8), [N, K]),
        b2: new Tensor('float32', seeded(K, 64), [K]),
      },
      nodes: [
        { op: 'MatMul', inputs: ['x', 'w'], outputs: ['h'], name: 'fc1' },
        { op: 'Add', inputs: ['h', 'b'], outputs: ['hb'], name: 'bias1' },
        { op: 'MatMul', inputs: ['hb', 'w2'], outputs: ['o'], name: 'fc2' },
        { op: 'Add', inputs: ['b2', 'o'], outputs: ['y'], name: 'bias2' },
      ],
      opset: 17,
    });
  for (const [S, K, N] of [[128, 256, 1024], [7, 33, 65]]) {
    for (const [fp16, graph] of [[false, false], [false, true], [true, true]]) {
      it(`[1,${S},${K}] x [${K},${N}]${fp16 ? ' fp16' : ''}${graph ? ' with enableHipGraph' : ''} matches the CPU EP`, async (t) => {
        const x = new Tensor('float32', seeded(S * K, 65), [1, S, K]);
        const expected = await reference(model(S, K, N), { x });
        const s = await InferenceSession.fromModel(model(S, K, N), { executionProviders: [{ name: 'rocm', fp16, enableHipGraph: graph }, 'cpu'] });
        for (let run = 0; run < 3; run++) {
          const out = await s.run({ x });
          assertClose(out.y.data, expected.y.data, fp16 ? 2e-2 : 1e-4, fp16 ? 1e-2 : 1e-4, `y (run ${run})`);
        }
        const ops = s.providers.find((p) => p.name === 'rocm').partitions[0].stats.lastDescription.steps.map((st) => st.op);
        if (!loaded.binding.planStepOps().includes('MatMulBias')) t.diagnostic('this build has no MatMulBias step');
        else assert.deepEqual(ops.filter((op) => op.startsWith('MatMul') || op === 'Add'), ['MatMulBias', 'MatMulBias'], ops.join(','));
        await s.release();
      });
    }
  }
});

describe('Gemm with a row bias (fused into the prepared GEMM) and with a full C (broadcast first)', { skip }, () => {
  const model = (cDims, beta) =>
    buildModel({
      inputs: [['x', 'float32', [3, 40]]],
      outputs: [['y', 'float32']],
      initializers: {
        w: new Tensor('float32', seeded(24 * 40, 71), [24, 40]),
        c: new Tensor('float32', seeded(cDims.reduce((a, b) => a * b, 1), 72), cDims),
      },
      nodes: [{ op: 'Gemm', inputs: ['x', 'w', 'c'], outputs: ['y'], name: 'fc', attributes: { transB: 1, alpha: { float: 0.75 }, beta: { float: beta } } }],
      opset: 17,
    });
  for (const [cDims, beta] of [[[24], 1], [[1, 24], 1], [[3, 24], 0.5], [[24], 2]]) {
    for (const graph of [false, true]) {
      it(`C ${JSON.stringify(cDims)} beta ${beta}${graph ? ' with enableHipGraph' : ''} matches the CPU EP`, async () => {
        const x = new Tensor('float32', seeded(120, 73), [3, 40]);
        const expected = await reference(model(cDims, beta), { x });
        const s = await InferenceSession.fromModel(model(cDims, beta), { executionProviders: [{ name: 'rocm', enableHipGraph: graph }, 'cpu'] });
        for (let run = 0; run < 2; run++) assertClose((await s.run({ x })).y.data, expected.y.data, 1e-4, 1e-4, `y (run ${run})`);
        await s.release();
      });
    }
  }
});
