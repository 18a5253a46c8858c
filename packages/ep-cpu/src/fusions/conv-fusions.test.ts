/**
 * Conv + BatchNormalization folding and Conv + Add(Z) + activation fusion, on hand-built graphs:
 * each model runs at 'disabled' and 'all' and must agree; the optimized graph must hold the fused ops.
 * Both with the oneDNN addon (post-ops) and without it (the TS FusedConv kernel).
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel, type NodeSpec } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { compareLevels, scalar, tensor } from './test-models.test-util.js';

// With the addon loaded (and not turned off by SWITCHYARD_CPU_NATIVE=0) both paths run.
const nativeModes = new CpuExecutionProvider().nativeUnavailable === undefined ? [true, false] : [false];
const C = 8;
const BLOCKED_CONV = 'com.switchyard::BlockedConv';
const FROM_BLOCKED = 'com.switchyard::ReorderFromBlocked';

function bnParams(prefix: string, seed: number): Record<string, Tensor> {
  return {
    [`${prefix}_s`]: tensor([C], seed, 0.5, 1.5),
    [`${prefix}_o`]: tensor([C], seed + 1),
    [`${prefix}_m`]: tensor([C], seed + 2),
    [`${prefix}_v`]: tensor([C], seed + 3, 0.25, 2),
  };
}
const bn = (prefix: string, input: string, output: string): NodeSpec => ({
  op: 'BatchNormalization',
  inputs: [input, `${prefix}_s`, `${prefix}_o`, `${prefix}_m`, `${prefix}_v`],
  outputs: [output],
  attributes: { epsilon: { float: 1e-3 } },
});

/** Conv3x3 + BN + Relu, Conv3x3 + BN, + x, Relu: a ResNet basic block (batch may be symbolic). */
function resnetBlock(size = 10, batch: number | string = 1) {
  return () =>
    buildModel({
      inputs: [['x', 'float32', [batch, C, size, size]]],
      outputs: [['y', 'float32', [batch, C, size, size]]],
      initializers: { w1: tensor([C, C, 3, 3], 1, -0.3, 0.3), b1: tensor([C], 2), w2: tensor([C, C, 3, 3], 3, -0.3, 0.3), ...bnParams('bn1', 10), ...bnParams('bn2', 20) },
      nodes: [
        { op: 'Conv', inputs: ['x', 'w1', 'b1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
        bn('bn1', 'c1', 'n1'),
        { op: 'Relu', inputs: ['n1'], outputs: ['r1'] },
        { op: 'Conv', inputs: ['r1', 'w2'], outputs: ['c2'], attributes: { pads: [1, 1, 1, 1] } },
        bn('bn2', 'c2', 'n2'),
        { op: 'Add', inputs: ['x', 'n2'], outputs: ['a'] },
        { op: 'Relu', inputs: ['a'], outputs: ['y'] },
      ],
    });
}

describe.each(nativeModes)('conv fusions (oneDNN addon: %s)', (useNative) => {
  it('folds BN into both convs and fuses Relu and the residual Add: a ResNet block becomes two FusedConvs', async () => {
    const r = await compareLevels(resnetBlock(), { x: tensor([1, C, 10, 10], 30) }, { useNative });
    if (useNative) {
      // The two convs then stay channel-blocked between them (blocked-layout pass).
      expect(r.ops).toEqual([BLOCKED_CONV, BLOCKED_CONV, FROM_BLOCKED]);
      expect(r.fired).toEqual(['cpu:conv-batchnorm-folding', 'cpu:conv-activation-fusion', 'cpu:blocked-layout']);
      expect(r.implementations).toEqual(['onednn', 'onednn', 'onednn']);
    } else {
      expect(r.ops).toEqual(['com.microsoft::FusedConv', 'com.microsoft::FusedConv']);
      expect(r.fired).toEqual(['cpu:conv-batchnorm-folding', 'cpu:conv-activation-fusion']);
      expect(r.implementations).toEqual(['ts', 'ts']);
    }
  });

  it('fuses the residual Add when the batch dim is symbolic (same symbol on both sides)', async () => {
    const r = await compareLevels(resnetBlock(6, 'N'), { x: tensor([3, C, 6, 6], 32) }, { useNative });
    // The blocked layout needs only the channel counts: a symbolic batch stays blocked too.
    expect(r.ops).toEqual(useNative ? [BLOCKED_CONV, BLOCKED_CONV, FROM_BLOCKED] : ['com.microsoft::FusedConv', 'com.microsoft::FusedConv']);
  });

  it('honours intraOpNumThreads = 1', async () => {
    const r = await compareLevels(resnetBlock(), { x: tensor([1, C, 10, 10], 31) }, { useNative, intraOpNumThreads: 1 });
    expect(r.ops).toHaveLength(useNative ? 3 : 2);
  });

  it('fuses Clip with constant bounds (opset 11+ inputs) and LeakyRelu', async () => {
    const build = () =>
      buildModel({
        inputs: [['x', 'float32', [2, 3, 7, 7]]],
        outputs: [['y', 'float32'], ['z', 'float32']],
        initializers: { w: tensor([C, 3, 3, 3], 1), b: tensor([C], 2), lo: scalar(-0.25), hi: scalar(0.5), w2: tensor([4, C, 1, 1], 3) },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w', 'b'], outputs: ['c'], attributes: { strides: [2, 2] } },
          { op: 'Clip', inputs: ['c', 'lo', 'hi'], outputs: ['y'] },
          { op: 'Conv', inputs: ['y', 'w2'], outputs: ['c2'] },
          { op: 'LeakyRelu', inputs: ['c2'], outputs: ['z'], attributes: { alpha: { float: 0.2 } } },
        ],
      });
    const r = await compareLevels(build, { x: tensor([2, 3, 7, 7], 4, -3, 3) }, { useNative });
    // With oneDNN, y (a graph output) comes back from the blocked region through a reorder.
    expect(r.ops).toEqual(useNative ? [BLOCKED_CONV, FROM_BLOCKED, BLOCKED_CONV, FROM_BLOCKED] : ['com.microsoft::FusedConv', 'com.microsoft::FusedConv']);
  });

  it('folds BN, a per-channel Mul, Sub and Div into a Conv without bias, and keeps an Add that broadcasts over H', async () => {
    const build = () =>
      buildModel({
        inputs: [['x', 'float32', [1, C, 5, 5]]],
        outputs: [['y', 'float32']],
        initializers: {
          w: tensor([C, C, 1, 1], 1), shift: tensor([1, C, 1, 1], 2), gain: tensor([C, 1, 1], 5, 0.5, 2), two: scalar(2), rows: tensor([5, 1], 6), ...bnParams('bn', 3),
        },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w'], outputs: ['c'] },
          bn('bn', 'c', 'n'),
          { op: 'Add', inputs: ['n', 'shift'], outputs: ['a'] },
          { op: 'Mul', inputs: ['gain', 'a'], outputs: ['g'] },
          { op: 'Sub', inputs: ['two', 'g'], outputs: ['s'] },
          { op: 'Div', inputs: ['s', 'two'], outputs: ['d'] },
          // [5, 1] broadcasts along H: not a per-channel map, so it stays a node.
          { op: 'Add', inputs: ['d', 'rows'], outputs: ['y'] },
        ],
      });
    const r = await compareLevels(build, { x: tensor([1, C, 5, 5], 4) }, { useNative });
    expect(r.ops).toEqual(['Conv', 'Add']);
  });
});

describe.each(nativeModes)('ConvTranspose folding (oneDNN addon: %s)', (useNative) => {
  it('folds BN and a per-channel Mul into a grouped, strided ConvTranspose (weights [C, M/group, k, k])', async () => {
    // C = 8 in, M = 8 out, group 2: W [8, 4, 3, 3]; output channel g·4 + j is column j of group g's 4 rows.
    const build = () =>
      buildModel({
        inputs: [['x', 'float32', [1, C, 5, 5]]],
        outputs: [['y', 'float32']],
        initializers: { w: tensor([C, C / 2, 3, 3], 1, -0.5, 0.5), b: tensor([C], 2), gain: tensor([1, C, 1, 1], 5, 0.5, 2), ...bnParams('bn', 3) },
        nodes: [
          { op: 'ConvTranspose', inputs: ['x', 'w', 'b'], outputs: ['c'], attributes: { group: 2, strides: [2, 2], pads: [1, 1, 0, 0] } },
          bn('bn', 'c', 'n'),
          { op: 'Mul', inputs: ['n', 'gain'], outputs: ['y'] },
        ],
      });
    const r = await compareLevels(build, { x: tensor([1, C, 5, 5], 4) }, { useNative });
    expect(r.ops).toEqual(['ConvTranspose']);
    expect(r.fired).toEqual(['cpu:conv-batchnorm-folding']);
  });
});

describe('conv fusions leave alone what they cannot rewrite exactly', () => {
  it('keeps BN when its statistics are graph inputs (not constants) and keeps a Conv output read twice', async () => {
    const build = () =>
      buildModel({
        inputs: [['x', 'float32', [1, C, 4, 4]], ['mean', 'float32', [C]]],
        outputs: [['y', 'float32'], ['c', 'float32']],
        initializers: { w: tensor([C, C, 1, 1], 1), ...bnParams('bn', 3) },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w'], outputs: ['c'] },
          { op: 'BatchNormalization', inputs: ['c', 'bn_s', 'bn_o', 'mean', 'bn_v'], outputs: ['n'] },
          { op: 'Relu', inputs: ['n'], outputs: ['y'] },
        ],
      });
    const r = await compareLevels(build, { x: tensor([1, C, 4, 4], 4), mean: tensor([C], 5) });
    expect(r.ops).toEqual(['Conv', 'BatchNormalization', 'Relu']);
    expect(r.fired).toEqual([]);
  });

  it('does not absorb an Add whose other input broadcasts, nor fuse past a value that is also a graph output', async () => {
    const build = () =>
      buildModel({
        inputs: [['x', 'float32', [1, 2, 4, 4]], ['z', 'float32', [1, 2, 1, 4]]],
        outputs: [['y', 'float32'], ['a', 'float32']],
        initializers: { w: tensor([2, 2, 1, 1], 1) },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w'], outputs: ['c'] },
          { op: 'Add', inputs: ['c', 'z'], outputs: ['a'] },
          { op: 'Relu', inputs: ['a'], outputs: ['y'] },
        ],
      });
    const r = await compareLevels(build, { x: tensor([1, 2, 4, 4], 2), z: tensor([1, 2, 1, 4], 3) });
    expect(r.ops).toEqual(['Conv', 'Add', 'Relu']);
  });

  it('runs FusedConv on the TS kernel with a Z input and every onnxruntime activation', async () => {
    for (const [activation, params] of [['Sigmoid', []], ['Tanh', []], ['HardSigmoid', [0.3, 0.4]], ['Relu', []]] as const) {
      const model = () =>
        buildModel({
          inputs: [['x', 'float32', [1, 2, 3, 3]], ['z', 'float32', [1, 2, 3, 3]]],
          outputs: [['y', 'float32']],
          initializers: { w: new Tensor('float32', Float32Array.of(1, 0, 0, 1), [2, 2, 1, 1]) },
          nodes: [
            {
              op: 'FusedConv',
              domain: 'com.microsoft',
              inputs: ['x', 'w', '', 'z'],
              outputs: ['y'],
              attributes: params.length ? { activation, activation_params: { floats: [...params] } } : { activation },
            },
          ],
        });
      const m = model();
      m.graph.opsetImports.set('com.microsoft', 1);
      const x = tensor([1, 2, 3, 3], 1, -2, 2);
      const z = tensor([1, 2, 3, 3], 2, -2, 2);
      const s = await InferenceSession.fromModel(m, { executionProviders: [new CpuExecutionProvider({ useNative: false })] });
      const y = ((await s.run({ x, z })).y as Tensor).data as Float32Array;
      await s.release();
      const f = (v: number) =>
        activation === 'Sigmoid' ? 1 / (1 + Math.exp(-v)) : activation === 'Tanh' ? Math.tanh(v) : activation === 'Relu' ? Math.max(0, v) : Math.max(0, Math.min(1, 0.3 * v + 0.4));
      // W is the identity on channels, so Y = f(X + Z) elementwise.
      for (let i = 0; i < y.length; i++) expect(y[i]).toBeCloseTo(f(x.data[i] + z.data[i]), 5);
    }
  });
});
