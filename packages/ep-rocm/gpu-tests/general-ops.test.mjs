// GPU tests of the ops real-world exports need beyond the CNN/transformer core: Resize, ConvTranspose,
// 1-D Conv, int64/bool arithmetic and comparisons, the activations the CPU EP fuses, and shape
// arithmetic over dynamic dims computed on the host at plan time. Each model runs with
// ['rocm', 'cpu'] (graph capture on) against the CPU EP alone; every node must be placed on rocm.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { assertClose, reference, seeded, skip } from './lib/harness.mjs';

const f32 = (dims, seed) => new Tensor('float32', seeded(dims.reduce((a, b) => a * b, 1), seed), dims);
const i64 = (...v) => new Tensor('int64', BigInt64Array.from(v.map(BigInt)), [v.length]);

async function compare(name, spec, feeds, { atol = 1e-4, rtol = 1e-4, runs = [feeds] } = {}) {
  const model = buildModel({ opset: 17, ...spec });
  const s = await InferenceSession.fromModel(model, { executionProviders: [{ name: 'rocm', enableHipGraph: true }, 'cpu'] });
  const off = s.placement.nodes.filter((n) => n.ep !== 'rocm').map((n) => `${n.name} (${n.opType}): ${n.declined.map((d) => d.reason.message).join('; ')}`);
  assert.deepEqual(off, [], `${name}: nodes off rocm`);
  for (const f of runs) {
    const got = await s.run(f);
    const want = await reference(model, f);
    for (const k of Object.keys(want)) {
      assert.deepEqual(got[k].dims, want[k].dims, `${name}.${k} dims`);
      assertClose(got[k].data, want[k].data, atol, rtol, `${name}.${k}`);
    }
  }
  const copies = s.placement.copies.length;
  await s.release();
  return copies;
}

describe('rocm: general ops against the CPU EP', { skip }, () => {
  const x4 = ['x', 'float32', [2, 3, 5, 7]];
  for (const mode of ['nearest', 'linear']) {
    for (const transform of ['half_pixel', 'asymmetric', 'align_corners', 'pytorch_half_pixel']) {
      for (const nearest of mode === 'nearest' ? ['round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil'] : ['round_prefer_floor']) {
        it(`Resize ${mode} ${transform} ${nearest} (scales 2, 1.5 and sizes)`, async () => {
          const attributes = { mode, coordinate_transformation_mode: transform, nearest_mode: nearest };
          await compare('resize-scales', {
            inputs: [x4], outputs: [['y', 'float32']],
            initializers: { s: new Tensor('float32', Float32Array.from([1, 1, 2, 1.5]), [4]) },
            nodes: [{ op: 'Resize', inputs: ['x', '', 's'], outputs: ['y'], name: 'r', attributes }],
          }, { x: f32([2, 3, 5, 7], 3) }, { atol: 1e-5 });
          await compare('resize-sizes', {
            inputs: [x4], outputs: [['y', 'float32']],
            initializers: { z: i64(2, 3, 3, 11) },
            nodes: [{ op: 'Resize', inputs: ['x', '', '', 'z'], outputs: ['y'], name: 'r', attributes }],
          }, { x: f32([2, 3, 5, 7], 4) }, { atol: 1e-5 });
        });
      }
    }
  }

  for (const [label, attributes, w] of [
    ['stride 2 kernel 2', { strides: [2, 2] }, [4, 6, 2, 2]],
    ['stride 2 kernel 3 pads 1 output_padding 1', { strides: [2, 2], pads: [1, 1, 1, 1], output_padding: [1, 1] }, [4, 6, 3, 3]],
    ['grouped, dilated', { group: 2, dilations: [2, 2] }, [4, 3, 3, 3]],
  ]) {
    it(`ConvTranspose ${label}`, async () => {
      const k = w[1] * (attributes.group ?? 1);
      await compare('convtranspose', {
        inputs: [['x', 'float32', [2, 4, 6, 5]]], outputs: [['y', 'float32']],
        initializers: { w: f32(w, 5), b: f32([k], 6) },
        nodes: [{ op: 'ConvTranspose', inputs: ['x', 'w', 'b'], outputs: ['y'], name: 'ct', attributes }],
      }, { x: f32([2, 4, 6, 5], 7) }, { atol: 1e-4 });
    });
  }

  it('1-D Conv (padded, strided, grouped) + Relu', async () => {
    await compare('conv1d', {
      inputs: [['x', 'float32', [2, 4, 33]]], outputs: [['y', 'float32'], ['z', 'float32']],
      initializers: { w: f32([8, 4, 5], 8), b: f32([8], 9), wg: f32([8, 2, 3], 10) },
      nodes: [
        { op: 'Conv', inputs: ['x', 'w', 'b'], outputs: ['c'], name: 'conv', attributes: { pads: [2, 1], strides: [2] } },
        { op: 'Relu', inputs: ['c'], outputs: ['y'], name: 'relu' },
        { op: 'Conv', inputs: ['x', 'wg'], outputs: ['z'], name: 'grouped', attributes: { group: 2, pads: [1, 1] } },
      ],
    }, { x: f32([2, 4, 33], 11) });
  });

  it('activations: Elu, Selu, Softplus, Softsign, HardSwish, HardSigmoid, Mish (opset 18)', async () => {
    const acts = [['Elu', { alpha: 0.7 }], ['Selu', {}], ['Softplus', {}], ['Softsign', {}], ['HardSwish', {}], ['HardSigmoid', {}]];
    await compare('acts', {
      inputs: [['x', 'float32', [4, 64]]], outputs: acts.map(([op]) => [op, 'float32']),
      nodes: acts.map(([op, attributes]) => ({ op, inputs: ['x'], outputs: [op], name: op, attributes })),
    }, { x: new Tensor('float32', seeded(256, 12).map((v) => v * 16), [4, 64]) }, { atol: 1e-5 });
    await compare('mish', { opset: 18, inputs: [['x', 'float32', [256]]], outputs: [['y', 'float32']], nodes: [{ op: 'Mish', inputs: ['x'], outputs: ['y'], name: 'm' }] },
      { x: new Tensor('float32', seeded(256, 13).map((v) => v * 16), [256]) }, { atol: 1e-5 });
  });

  it('int64 and bool elementwise on runtime data: Add/Sub/Mul/Div/Max, Equal/Less, And/Or/Not, Where', async () => {
    const a = new Tensor('int64', BigInt64Array.from({ length: 24 }, (_, i) => BigInt(i * 7 - 80)), [2, 3, 4]);
    const b = new Tensor('int64', BigInt64Array.from([3n, -5n, 7n, 0n]), [4]);
    await compare('int64', {
      inputs: [['a', 'int64', [2, 3, 4]], ['b', 'int64', [4]]],
      outputs: [['add', 'int64'], ['sub', 'int64'], ['mul', 'int64'], ['max', 'int64'], ['div', 'int64'], ['w', 'int64'], ['n', 'bool']],
      initializers: { one: i64(1) },
      nodes: [
        { op: 'Add', inputs: ['a', 'b'], outputs: ['add'], name: 'add' },
        { op: 'Sub', inputs: ['a', 'b'], outputs: ['sub'], name: 'sub' },
        { op: 'Mul', inputs: ['a', 'b'], outputs: ['mul'], name: 'mul' },
        { op: 'Max', inputs: ['a', 'b'], outputs: ['max'], name: 'max' },
        { op: 'Add', inputs: ['b', 'one'], outputs: ['b1'], name: 'b1' },
        { op: 'Div', inputs: ['a', 'b1'], outputs: ['div'], name: 'div' },
        { op: 'Equal', inputs: ['a', 'b'], outputs: ['eq'], name: 'eq' },
        { op: 'Less', inputs: ['a', 'b'], outputs: ['lt'], name: 'lt' },
        { op: 'Or', inputs: ['eq', 'lt'], outputs: ['le'], name: 'or' },
        { op: 'Not', inputs: ['le'], outputs: ['gt'], name: 'not' },
        { op: 'And', inputs: ['gt', 'lt'], outputs: ['n'], name: 'and' },
        { op: 'Where', inputs: ['gt', 'a', 'b'], outputs: ['w'], name: 'where' },
      ],
    }, { a, b }, { atol: 0, rtol: 0 });
  });

  it('shape arithmetic over dynamic dims runs on the host: one partition, outputs right at two sizes', async () => {
    const copies = await compare('shapes', {
      inputs: [['x', 'float32', ['b', 3, 'h', 'w']]], outputs: [['y', 'float32'], ['up', 'float32']],
      initializers: { zero: i64(0), m1: i64(-1), two: i64(2), idx: i64(2, 3), ax: i64(0) },
      nodes: [
        { op: 'Shape', inputs: ['x'], outputs: ['shape'], name: 'shape' },
        { op: 'Gather', inputs: ['shape', 'zero'], outputs: ['batch'], name: 'gather' },
        { op: 'Concat', inputs: ['batch', 'm1'], outputs: ['target'], name: 'concat', attributes: { axis: 0 } },
        { op: 'Reshape', inputs: ['x', 'target'], outputs: ['flat'], name: 'reshape' },
        { op: 'Relu', inputs: ['flat'], outputs: ['y'], name: 'relu' },
        { op: 'Gather', inputs: ['shape', 'idx'], outputs: ['hw'], name: 'hw' },
        { op: 'Mul', inputs: ['hw', 'two'], outputs: ['hw2'], name: 'double' },
        { op: 'Slice', inputs: ['shape', 'zero', 'two', 'ax'], outputs: ['nc'], name: 'nc' },
        { op: 'Concat', inputs: ['nc', 'hw2'], outputs: ['sizes'], name: 'sizes', attributes: { axis: 0 } },
        { op: 'Resize', inputs: ['x', '', '', 'sizes'], outputs: ['up'], name: 'up', attributes: { mode: 'nearest', coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor' } },
      ],
    }, undefined, { runs: [{ x: f32([1, 3, 8, 6], 15) }, { x: f32([2, 3, 5, 9], 16) }] });
    console.log(`# shape-arithmetic model: ${copies} copies in the placement`);
  });

  it('Split: GPT-2 q/k/v (equal parts, symbolic batch), sizes as an input, opset 18 num_outputs with a smaller last part', async () => {
    const qkv = (y) => ['q', 'k', 'v'].map((n) => [n, 'float32']).concat(y);
    await compare('split-equal', {
      inputs: [['x', 'float32', ['batch', 4, 12]]], outputs: qkv([]),
      initializers: { w: f32([12, 12], 20) },
      nodes: [
        { op: 'MatMul', inputs: ['x', 'w'], outputs: ['h'], name: 'mm' },
        { op: 'Split', inputs: ['h'], outputs: ['q', 'k', 'v'], name: 'split', attributes: { axis: 2 } },
      ],
    }, undefined, { runs: [{ x: f32([1, 4, 12], 21) }, { x: f32([3, 4, 12], 22) }] });
    await compare('split-sizes', {
      inputs: [['x', 'float32', [2, 6, 3]]], outputs: [['a', 'float32'], ['b', 'float32'], ['c', 'float32']],
      initializers: { s: i64(2, 3, 1) },
      nodes: [
        { op: 'Relu', inputs: ['x'], outputs: ['r'], name: 'relu' },
        { op: 'Split', inputs: ['r', 's'], outputs: ['a', 'b', 'c'], name: 'split', attributes: { axis: 1 } },
      ],
    }, { x: f32([2, 6, 3], 23) });
    await compare('split-num-outputs', {
      opset: 18, inputs: [['x', 'float32', [3, 7]]], outputs: [['a', 'float32'], ['b', 'float32'], ['c', 'float32']],
      nodes: [
        { op: 'Neg', inputs: ['x'], outputs: ['n'], name: 'neg' },
        { op: 'Split', inputs: ['n'], outputs: ['a', 'b', 'c'], name: 'split', attributes: { axis: -1, num_outputs: 3 } },
      ],
    }, { x: f32([3, 7], 24) });
  });

  // nn.LSTM's export (CRNN: bidirectional, hidden 96; VAD: forward, hidden 64, states in and out), a
  // reverse one with only the final states used, and one long and wide enough for several gate rows per warp.
  for (const [label, direction, { seq, batch, input, hidden, bias, states, outputs }] of [
    ['bidirectional, bias and states (CRNN)', 'bidirectional', { seq: 20, batch: 4, input: 48, hidden: 96, bias: true, states: true, outputs: ['y', 'yh', 'yc'] }],
    ['forward, no bias, zero states, Y only', 'forward', { seq: 3, batch: 1, input: 128, hidden: 64, bias: false, states: false, outputs: ['y', '', ''] }],
    ['reverse, Y_h and Y_c only', 'reverse', { seq: 7, batch: 2, input: 5, hidden: 33, bias: true, states: true, outputs: ['', 'yh', 'yc'] }],
  ]) {
    it(`LSTM ${label}`, async () => {
      const dirs = direction === 'bidirectional' ? 2 : 1;
      const scaled = (dims, seed, k) => new Tensor('float32', seeded(dims.reduce((a, b) => a * b, 1), seed).map((v) => v * k), dims);
      const feeds = { x: f32([seq, batch, input], 30) };
      if (states) Object.assign(feeds, { h0: f32([dirs, batch, hidden], 31), c0: f32([dirs, batch, hidden], 32) });
      await compare(`lstm-${direction}`, {
        inputs: [['x', 'float32', [seq, batch, input]], ...(states ? [['h0', 'float32', [dirs, batch, hidden]], ['c0', 'float32', [dirs, batch, hidden]]] : [])],
        outputs: outputs.filter(Boolean).map((n) => [n, 'float32']),
        initializers: {
          w: scaled([dirs, 4 * hidden, input], 33, 3 / Math.sqrt(input)),
          r: scaled([dirs, 4 * hidden, hidden], 34, 3 / Math.sqrt(hidden)),
          ...(bias ? { b: f32([dirs, 8 * hidden], 35) } : {}),
        },
        nodes: [{ op: 'LSTM', inputs: ['x', 'w', 'r', bias ? 'b' : '', '', ...(states ? ['h0', 'c0'] : [])], outputs, name: 'lstm', attributes: { direction, hidden_size: hidden } }],
      }, feeds, { atol: 1e-4 });
    });
  }
});
