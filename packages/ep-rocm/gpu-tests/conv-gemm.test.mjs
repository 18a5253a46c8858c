// GPU tests of Conv steps run as im2col + GEMM (native-hip plan/conv_gemm.h): forced on with
// SWITCHYARD_CONV_GEMM=always, every convolution shape the form handles must match the CPU EP; with
// the default (auto) the step notes give both timings; with never, the library runs every Conv it
// accepts (cuDNN declines uneven pads: those run as im2col + GEMM in every mode).
import { afterEach, describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { assertClose, loaded, reference, seeded, skip } from './lib/harness.mjs';

// One Conv per shape case of the form: padded 3x3 (im2col), an unpadded 1x1 stride 1 (x is the GEMM
// operand itself) with bias, residual and ReLU folded in (and the 1x1 "down" conv giving the residual),
// a 1x1 stride 2 (im2col subsamples), a 7x7 stride-2 stem, a dilated 3x3 with uneven pads, and a
// grouped conv (never a GEMM: the library keeps it).
function model(batch) {
  const conv = (name, x, w, attributes, b) => ({ op: 'Conv', inputs: b ? [x, w, b] : [x, w], outputs: [name], name, attributes });
  return buildModel({
    inputs: [['x', 'float32', [batch, 6, 15, 15]]],
    outputs: [['stem', 'float32'], ['out', 'float32'], ['dil', 'float32'], ['grp', 'float32']],
    initializers: {
      w3: new Tensor('float32', seeded(8 * 6 * 9, 61), [8, 6, 3, 3]),
      b3: new Tensor('float32', seeded(8, 62), [8]),
      w1: new Tensor('float32', seeded(8 * 8, 63), [8, 8, 1, 1]),
      b1: new Tensor('float32', seeded(8, 64), [8]),
      wd: new Tensor('float32', seeded(8 * 6, 65), [8, 6, 1, 1]),
      w7: new Tensor('float32', seeded(4 * 6 * 49, 66), [4, 6, 7, 7]),
      wdil: new Tensor('float32', seeded(5 * 6 * 9, 67), [5, 6, 3, 3]),
      wg: new Tensor('float32', seeded(6 * 3 * 9, 68), [6, 3, 3, 3]),
    },
    nodes: [
      conv('c3', 'x', 'w3', { pads: [1, 1, 1, 1] }, 'b3'),
      { op: 'Relu', inputs: ['c3'], outputs: ['r3'], name: 'relu3' },
      conv('c1', 'r3', 'w1', {}, 'b1'),
      conv('down', 'x', 'wd', {}),
      { op: 'Add', inputs: ['c1', 'down'], outputs: ['sum'], name: 'add' },
      { op: 'Relu', inputs: ['sum'], outputs: ['r1'], name: 'relu1' },
      conv('out', 'r1', 'w1', { strides: [2, 2] }),
      conv('stem', 'x', 'w7', { pads: [3, 3, 3, 3], strides: [2, 2] }),
      conv('dil', 'x', 'wdil', { pads: [2, 1, 1, 2], dilations: [2, 2] }),
      conv('grp', 'x', 'wg', { pads: [1, 1, 1, 1], group: 2 }),
    ],
    opset: 17,
  });
}

const OUTPUTS = ['stem', 'out', 'dil', 'grp'];
// Conv attrs [group, pad_top, pad_left, pad_bottom, pad_right, ...]: cuDNN declines uneven pads, so
// the dilated conv runs as im2col + GEMM whatever the mode.
const uneven = (step) => step.attrs[1] !== step.attrs[3] || step.attrs[2] !== step.attrs[4];

async function runWith(mode, { batch = 1, fp16 = false, graph = false, layout = 'auto', ep = {} } = {}) {
  if (mode === undefined) delete process.env.SWITCHYARD_CONV_GEMM;
  else process.env.SWITCHYARD_CONV_GEMM = mode;
  const x = new Tensor('float32', seeded(batch * 6 * 225, 69), [batch, 6, 15, 15]);
  const expected = await reference(model(batch), { x });
  const s = await InferenceSession.fromModel(model(batch), { executionProviders: [{ name: 'rocm', fp16, enableHipGraph: graph, fp16ConvLayout: layout, ...ep }, 'cpu'] });
  for (let run = 0; run < 3; run++) {
    const out = await s.run({ x });
    for (const name of OUTPUTS) assertClose(out[name].data, expected[name].data, fp16 ? 5e-3 : 1e-5, fp16 ? 2e-2 : 1e-4, `${name} run ${run}`);
  }
  // The branches from x may form several partitions: every plan's steps, each with its note.
  const parts = s.providers.find((p) => p.name === 'rocm').partitions;
  const steps = parts.flatMap((part) => part.stats.lastDescription.steps.map((st, i) => ({ ...st, note: part.stats.lastStepNotes?.[i] ?? '' })));
  await s.release();
  return steps.filter((st) => st.op === 'Conv' || st.op === 'ConvNHWC');
}

describe('Conv steps as im2col + GEMM', { skip }, () => {
  afterEach(() => delete process.env.SWITCHYARD_CONV_GEMM);

  for (const [batch, fp16, graph] of [[1, false, false], [1, false, true], [2, false, false], [1, true, true]]) {
    it(`forced (always) match the CPU EP at batch ${batch}${fp16 ? ' in fp16' : ''}${graph ? ' (graph replay)' : ''}`, async () => {
      const convs = await runWith('always', { batch, fp16, graph });
      for (const c of convs) console.log(`# ${c.node}: ${c.note}`);
      assert.equal(convs.length, 7, convs.map((c) => c.node).join(','));
      for (const c of convs) {
        if (c.attrs[0] !== 1) assert.match(c.note, /^$/, `${c.node} is grouped: no choice`);
        else if (uneven(c)) assert.match(c.note, /^im2col \+ GEMM \(the library declines/, c.node);
        else assert.match(c.note, /^(im2col \+ )?GEMM \(SWITCHYARD_CONV_GEMM=always/, c.node);
      }
      const byNode = Object.fromEntries(convs.map((c) => [c.node.split(' + ')[0], c]));
      assert.match(byNode.c1.note, /^GEMM /, 'an unpadded 1x1 stride-1 conv needs no im2col');
      assert.equal(byNode.c1.workspace, undefined, 'and no workspace');
      assert.ok(byNode.c3.workspace?.bytes >= batch * 6 * 9 * 225 * (fp16 ? 2 : 4), 'a padded 3x3 conv gets its im2col workspace');
      // Batch 1 with bias + ReLU and no residual: cuBLASLt takes both into the GEMM (no epilogue kernel).
      if (loaded.binding.blasInfo().backend === 'cuBLAS') {
        if (batch === 1) assert.match(byNode.c3.note, /with bias and ReLU in its epilogue/, byNode.c3.note);
        else assert.doesNotMatch(byNode.c3.note, /epilogue/, byNode.c3.note);
        assert.doesNotMatch(byNode.c1.note, /epilogue/, 'a residual keeps the epilogue kernel');
      }
    });
  }

  it('forced (always) match the CPU EP channels-last, where the 1x1 stride-1 convolutions are one GEMM each', async () => {
    const convs = await runWith('always', { batch: 2, fp16: true, graph: true, layout: 'NHWC' });
    for (const c of convs) console.log(`# ${c.op} ${c.node}: ${c.note}`);
    const nhwc = convs.filter((c) => c.op === 'ConvNHWC');
    assert.ok(nhwc.length >= 4, convs.map((c) => `${c.op}(${c.node})`).join(','));
    for (const c of nhwc) {
      // 'down' and 'c1' are the model's unpadded 1x1 stride-1 convolutions.
      if (['down', 'c1'].includes(c.node.split(' + ')[0])) assert.match(c.note, /^GEMM \(SWITCHYARD_CONV_GEMM=always/, c.node);
      else assert.equal(c.note, '', `${c.node}: no GEMM form channels-last`);
    }
  });

  it('auto times both forms and says which won', async () => {
    const convs = await runWith(undefined);
    for (const c of convs) console.log(`# ${c.node}: ${c.note}`);
    for (const c of convs.filter((c) => c.attrs[0] === 1 && !uneven(c))) assert.match(c.note, /[\d.]+ ms.* over .*[\d.]+ ms/, c.node);
  });

  it('auto takes an earlier plan\'s answer from the algorithm cache instead of timing again', async () => {
    await runWith(undefined);
    const before = loaded.binding.dnnAlgoCacheStats('convform');
    const convs = await runWith(undefined);
    const after = loaded.binding.dnnAlgoCacheStats('convform');
    const timed = convs.filter((c) => c.attrs[0] === 1 && !uneven(c));
    for (const c of timed) assert.match(c.note, /over .* \(cached\)$/, c.node);
    assert.equal(after.searches, before.searches, 'nothing timed again');
    assert.equal(after.memoryHits + after.diskHits - before.memoryHits - before.diskHits, timed.length);
  });

  it('tunableOpEnable: false keeps the library for every Conv it accepts (and the plain GEMM path)', async () => {
    const convs = await runWith(undefined, { ep: { tunableOpEnable: false } });
    for (const c of convs.filter((c) => c.attrs[0] === 1)) {
      if (uneven(c)) assert.match(c.note, /the library declines.*cublasGemmEx \(tuning off\)/, c.node);
      else assert.match(c.note, /tuning off: tunableOpEnable is false/, c.node);
    }
  });

  it('tunableOpTuningEnable: false takes cached forms only, and times nothing new', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-convform-'));
    process.env.SWITCHYARD_CONV_ALGO_CACHE = dir; // a cache that knows nothing yet
    try {
      const before = loaded.binding.dnnAlgoCacheStats('convform');
      const convs = await runWith(undefined, { batch: 3, ep: { tunableOpTuningEnable: false } });
      for (const c of convs.filter((c) => c.attrs[0] === 1 && !uneven(c))) assert.match(c.note, /no cached form, and tunableOpTuningEnable is false/, c.node);
      assert.equal(loaded.binding.dnnAlgoCacheStats('convform').searches, before.searches, 'nothing timed');
    } finally {
      delete process.env.SWITCHYARD_CONV_ALGO_CACHE;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never keeps the library for every Conv', async () => {
    const convs = await runWith('never');
    for (const c of convs.filter((c) => c.attrs[0] === 1)) assert.match(c.note, uneven(c) ? /the library declines/ : /SWITCHYARD_CONV_GEMM=never/, c.node);
  });
});
