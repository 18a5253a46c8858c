/**
 * float16-in-float32 and cast-pair-collapse on hand-built float16 graphs: what the region takes and
 * leaves, where Casts go, and that every level agrees with 'disabled' (where each float16 op runs as
 * written) within float16 rounding. The converter-style models exported from torch, and the
 * comparison with onnxruntime-node, are in float16-models.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Tensor, defineKernel, float16ToFloat32Array, float32ToFloat16Array, type ExecutionProvider, type Model } from '@switchyard/core';
import { buildModel, type NodeSpec } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { tensor } from './test-models.test-util.js';
import { LEVELS, half, halfConvWeights, runAtLevel, stepsApart, type LevelRun } from './float16-models.test-util.js';

const nativeModes = new CpuExecutionProvider().nativeUnavailable === undefined ? [true, false] : [false];
const C = 8;
const TO_FLOAT = 1;
const TO_FLOAT16 = 10;
const TO_DOUBLE = 11;
// Native kernels are named by their path (onednn, or the addon's own im2col/winograd on AVX2); `ts` is the only non-native one.
const HEAVY = /^(Conv|FusedConv|BlockedConv|Gemm|MatMul|FusedMatMul)$/;

const cast = (input: string, output: string, to: number): NodeSpec => ({ op: 'Cast', inputs: [input], outputs: [output], attributes: { to } });

/**
 * Runs every level; returns the runs, checking each against 'disabled' within `k` float16 steps
 * (float16-models.test-util.ts). These graphs are a few ops deep and 'disabled' already accumulates
 * each Conv/Gemm in float32, so the levels differ by the per-op float16 roundings float32 regions
 * skip: measured ≤ 0.5 steps on the CNN, ≤ 0.21 on the others; k is 4 and 2.
 */
async function everyLevel(build: () => Model, feeds: Record<string, Tensor>, k: number, useNative?: boolean): Promise<Record<string, LevelRun>> {
  const runs: Record<string, LevelRun> = {};
  for (const level of LEVELS) runs[level] = await runAtLevel(build, feeds, level, { useNative });
  for (const level of LEVELS) expect(stepsApart(runs[level], runs.disabled), level).toBeLessThanOrEqual(k);
  return runs;
}

/**
 * What onnxconverter-common writes for a small CNN with keep_io_types: float32 in and out, a Cast
 * to float16 after the input and to float32 before the output, every weight float16. Conv + BN +
 * Relu, Conv + BN, residual Add, Relu, MaxPool, GlobalAveragePool, Flatten, Gemm, Softmax.
 */
function converterCnn(): Model {
  const bn = (p: string, seed: number) => ({
    [`${p}_s`]: half([C], seed, 0.5, 1.5),
    [`${p}_b`]: half([C], seed + 1, -0.2, 0.2),
    [`${p}_m`]: half([C], seed + 2, -0.2, 0.2),
    [`${p}_v`]: half([C], seed + 3, 0.5, 1.5),
  });
  const bnNode = (p: string, x: string, y: string): NodeSpec => ({ op: 'BatchNormalization', inputs: [x, `${p}_s`, `${p}_b`, `${p}_m`, `${p}_v`], outputs: [y], attributes: { epsilon: { float: 1e-5 } } });
  return buildModel({
    inputs: [['x', 'float32', [1, 3, 12, 12]]],
    outputs: [['probs', 'float32', [1, 5]]],
    initializers: {
      w0: halfConvWeights([C, 3, 3, 3], 1),
      w1: halfConvWeights([C, C, 3, 3], 2),
      w2: halfConvWeights([C, C, 3, 3], 3),
      fc: half([5, C], 4, -0.5, 0.5),
      fcb: half([5], 5, -0.1, 0.1),
      ...bn('bn0', 10),
      ...bn('bn1', 20),
      ...bn('bn2', 30),
    },
    // The converter appends its Casts after every other node; here they sit where they belong
    // (float16-models.test.ts has the converter's own order).
    nodes: [
      cast('x', 'xh', TO_FLOAT16),
      { op: 'Conv', name: 'conv0', inputs: ['xh', 'w0'], outputs: ['c0'], attributes: { pads: [1, 1, 1, 1] } },
      bnNode('bn0', 'c0', 'n0'),
      { op: 'Relu', inputs: ['n0'], outputs: ['r0'] },
      { op: 'Conv', name: 'conv1', inputs: ['r0', 'w1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
      bnNode('bn1', 'c1', 'n1'),
      { op: 'Relu', inputs: ['n1'], outputs: ['r1'] },
      { op: 'Conv', name: 'conv2', inputs: ['r1', 'w2'], outputs: ['c2'], attributes: { pads: [1, 1, 1, 1] } },
      bnNode('bn2', 'c2', 'n2'),
      { op: 'Add', inputs: ['r0', 'n2'], outputs: ['a'] },
      { op: 'Relu', inputs: ['a'], outputs: ['r2'] },
      { op: 'MaxPool', inputs: ['r2'], outputs: ['p'], attributes: { kernel_shape: [2, 2], strides: [2, 2] } },
      { op: 'GlobalAveragePool', inputs: ['p'], outputs: ['g'] },
      { op: 'Flatten', inputs: ['g'], outputs: ['f'] },
      { op: 'Gemm', name: 'fc', inputs: ['f', 'fc', 'fcb'], outputs: ['logits'], attributes: { transB: 1 } },
      { op: 'Softmax', inputs: ['logits'], outputs: ['ph'], attributes: { axis: -1 } },
      cast('ph', 'probs', TO_FLOAT),
    ],
  });
}

describe.each(nativeModes)('float16 computed in float32 (oneDNN addon: %s)', (useNative) => {
  it('runs a converter-style CNN in float32: no Cast left, BN folded, heavy ops native', async () => {
    const runs = await everyLevel(converterCnn, { x: tensor([1, 3, 12, 12], 7) }, 4, useNative);
    for (const level of ['disabled', 'basic'] as const) expect(runs[level].ops.filter((o) => o === 'Cast')).toHaveLength(2);
    for (const level of ['extended', 'all'] as const) {
      const r = runs[level];
      expect(r.ops, level).not.toContain('Cast');
      expect(r.ops, level).not.toContain('BatchNormalization');
      expect(r.fired.slice(0, 3), level).toEqual(['cpu:float16-in-float32', 'cpu:cast-pair-collapse', 'cpu:conv-batchnorm-folding']);
      expect(r.inputTypes.flat(), level).not.toContain('float16');
      const heavy = r.placed.filter((p) => HEAVY.test(p.split(':')[0]));
      expect(heavy.length, level).toBeGreaterThanOrEqual(4);
      if (useNative) expect(heavy.filter((p) => p.endsWith(':ts')), level).toEqual([]);
    }
  });

  it('keeps float16 graph inputs and outputs: one Cast in, one Cast out around the float32 region', async () => {
    const build = () =>
      buildModel({
        inputs: [['x', 'float16', [1, C, 6, 6]]],
        outputs: [['y', 'float16', [1, C, 6, 6]]],
        initializers: { w: halfConvWeights([C, C, 3, 3], 11), b: half([C], 12) },
        nodes: [
          { op: 'Conv', name: 'conv', inputs: ['x', 'w', 'b'], outputs: ['c'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Sigmoid', inputs: ['c'], outputs: ['y'] },
        ],
      });
    const runs = await everyLevel(build, { x: half([1, C, 6, 6], 13) }, 2, useNative);
    const all = runs.all;
    expect(all.ops[0]).toBe('Cast');
    expect(all.ops[all.ops.length - 1]).toBe('Cast');
    expect(all.ops.filter((o) => o === 'Cast')).toHaveLength(2);
    expect(all.outputs.y.type).toBe('float16');
    if (useNative) expect(all.placed.filter((p) => /Conv/.test(p)).every((p) => p.endsWith(':onednn'))).toBe(true);
  });

  it('meets ops that stay float16 through Casts, one per value, and keeps the float16 value they read', async () => {
    // Cast(int64 → float16) feeds the region; Cast(float16 → float64) reads a value the region computes.
    const build = () =>
      buildModel({
        inputs: [
          ['x', 'float16', [1, C, 5, 5]],
          ['k', 'int64', [1]],
        ],
        outputs: [
          ['y', 'float16', [1, C, 5, 5]],
          ['r64', 'float64', [1, C, 5, 5]],
        ],
        initializers: { w: halfConvWeights([C, C, 3, 3], 21) },
        nodes: [
          cast('k', 'kh', TO_FLOAT16),
          { op: 'Conv', name: 'conv', inputs: ['x', 'w'], outputs: ['c'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Relu', inputs: ['c'], outputs: ['r'] },
          cast('r', 'r64', TO_DOUBLE),
          { op: 'Mul', inputs: ['r', 'kh'], outputs: ['m'] },
          { op: 'Tanh', inputs: ['m'], outputs: ['y'] },
        ],
      });
    const feeds = { x: half([1, C, 5, 5], 22), k: new Tensor('int64', BigInt64Array.of(3n), [1]) };
    const runs = await everyLevel(build, feeds, 2, useNative);
    const all = runs.all;
    // In: x and kh (two Casts to float32); out: r back to float16 for the float64 Cast, and y.
    expect(all.ops.filter((o) => o === 'Cast')).toHaveLength(6);
    expect(all.outputs.r64.type).toBe('float64');
    // r64 was cast from float16 at every level: its values are float16 values.
    const r64 = all.outputs.r64.data as Float64Array;
    const bits = new Uint16Array(r64.length);
    const back = new Float32Array(r64.length);
    float32ToFloat16Array(Float32Array.from(r64), bits);
    float16ToFloat32Array(bits, back);
    expect(Array.from(back)).toEqual(Array.from(r64));
  });

  it('gives a subgraph that reads a region value its float16 copy', async () => {
    const branch = (name: string, op: string): Model['graph'] =>
      buildModel({ inputs: [], outputs: [[`${name}_out`, 'float16', [1, C, 4, 4]]], nodes: [{ op, inputs: ['r'], outputs: [`${name}_out`] }] }).graph;
    const build = () => {
      const model = buildModel({
        inputs: [
          ['x', 'float16', [1, C, 4, 4]],
          ['flag', 'bool', []],
        ],
        outputs: [['y', 'float16', [1, C, 4, 4]]],
        initializers: { w: halfConvWeights([C, C, 1, 1], 31) },
        nodes: [
          { op: 'Conv', name: 'conv', inputs: ['x', 'w'], outputs: ['c'] },
          { op: 'Relu', inputs: ['c'], outputs: ['r'] },
          { op: 'If', name: 'if', inputs: ['flag'], outputs: ['y'] },
        ],
      });
      const ifNode = model.graph.nodes[2];
      ifNode.attributes.set('then_branch', { type: 'graph', value: branch('then', 'Neg') });
      ifNode.attributes.set('else_branch', { type: 'graph', value: branch('else', 'Sigmoid') });
      return model;
    };
    for (const flag of [true, false]) {
      const runs = await everyLevel(build, { x: half([1, C, 4, 4], 32), flag: new Tensor('bool', Uint8Array.of(flag ? 1 : 0), []) }, 2, useNative);
      const all = runs.all;
      // x in, r back out for the If; the branches' ops stay float16 inside.
      expect(all.ops.filter((o) => o === 'Cast')).toHaveLength(2);
      expect(all.inputTypes[all.ops.indexOf('If')]).toEqual(['bool']);
      expect(all.outputs.y.type).toBe('float16');
    }
  });

  it('leaves a float16 node an earlier EP takes to it, with Casts between it and the float32 region', async () => {
    const first = float16ReluProvider();
    const build = () =>
      buildModel({
        inputs: [['x', 'float32', [1, C, 5, 5]]],
        outputs: [['y', 'float32', [1, C, 5, 5]]],
        initializers: { w1: halfConvWeights([C, C, 3, 3], 41), w2: halfConvWeights([C, C, 3, 3], 42) },
        nodes: [
          cast('x', 'xh', TO_FLOAT16),
          { op: 'Conv', name: 'conv1', inputs: ['xh', 'w1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Relu', name: 'relu', inputs: ['c1'], outputs: ['r'] },
          { op: 'Conv', name: 'conv2', inputs: ['r', 'w2'], outputs: ['c2'], attributes: { pads: [1, 1, 1, 1] } },
          cast('c2', 'y', TO_FLOAT),
        ],
      });
    const feeds = { x: tensor([1, C, 5, 5], 43) };
    const reference = await runAtLevel(build, feeds, 'disabled', { useNative });
    const run = await runAtLevel(build, feeds, 'all', { useNative, providers: [first] });
    expect(stepsApart(run, reference)).toBeLessThanOrEqual(2);
    const relu = run.ops.indexOf('Relu');
    expect(run.placed[relu]).toBe('Relu:float16-relu');
    expect(run.inputTypes[relu]).toEqual(['float16']);
    // c1 goes down to float16 for the Relu, r comes back up for conv2.
    expect(run.ops.filter((o) => o === 'Cast')).toHaveLength(2);
    expect(run.inputTypes.filter((t, i) => run.ops[i] !== 'Cast' && i !== relu).flat()).not.toContain('float16');
  });

  it('leaves data movement alone when no computing op joins it (no Casts for a lone Reshape/Transpose)', async () => {
    const build = () =>
      buildModel({
        inputs: [['x', 'float16', [2, 3, 4]]],
        outputs: [['y', 'float16', [4, 6]]],
        initializers: { shape: new Tensor('int64', BigInt64Array.of(6n, 4n), [2]) },
        nodes: [
          { op: 'Reshape', inputs: ['x', 'shape'], outputs: ['s'] },
          { op: 'Transpose', inputs: ['s'], outputs: ['y'], attributes: { perm: [1, 0] } },
        ],
      });
    const runs = await everyLevel(build, { x: half([2, 3, 4], 51) }, 0, useNative);
    expect(runs.all.ops).toEqual(['Reshape', 'Transpose']);
    expect(runs.all.fired).toEqual([]);
  });

  it('lets Shape read the float32 copy of a value the region computes, with no Cast for it', async () => {
    const build = () =>
      buildModel({
        inputs: [['x', 'float16', ['N', C, 4, 4]]],
        outputs: [['y', 'float16', ['N', C * 16]]],
        initializers: { w: halfConvWeights([C, C, 1, 1], 61), zero: new Tensor('int64', BigInt64Array.of(0n), [1]), flat: new Tensor('int64', BigInt64Array.of(-1n), [1]) },
        nodes: [
          { op: 'Conv', name: 'conv', inputs: ['x', 'w'], outputs: ['c'] },
          { op: 'Shape', inputs: ['c'], outputs: ['shape'] },
          { op: 'Gather', inputs: ['shape', 'zero'], outputs: ['n'], attributes: { axis: 0 } },
          { op: 'Concat', inputs: ['n', 'flat'], outputs: ['target'], attributes: { axis: 0 } },
          { op: 'Reshape', inputs: ['c', 'target'], outputs: ['y'] },
        ],
      });
    const runs = await everyLevel(build, { x: half([2, C, 4, 4], 62) }, 2, useNative);
    // Only x in and y out: c never goes back to float16 for Shape.
    expect(runs.all.ops.filter((o) => o === 'Cast')).toHaveLength(2);
  });

  it('leaves models of opset < 6 alone (Cast took its type as a string there)', async () => {
    const build = () =>
      buildModel({
        opset: 5,
        inputs: [['x', 'float16', [1, C, 4, 4]]],
        outputs: [['y', 'float16', [1, C, 4, 4]]],
        initializers: { w: halfConvWeights([C, C, 1, 1], 71) },
        nodes: [{ op: 'Conv', name: 'conv', inputs: ['x', 'w'], outputs: ['y'] }],
      });
    const run = await runAtLevel(build, { x: half([1, C, 4, 4], 72) }, 'all', { useNative });
    expect(run.ops).toEqual(['Conv']);
    expect(run.inputTypes[0]).toEqual(['float16', 'float16']);
  });
});

describe('cast pairs between float32 and float16', () => {
  const pair = (extraOutput = false, pairToOutput = false) => () =>
    buildModel({
      inputs: [['x', 'float32', [2, 8]]],
      outputs: [['y', 'float32', [2, 8]], ...(extraOutput ? [['h', 'float16', [2, 8]] as ['h', 'float16', number[]]] : [])],
      nodes: [
        { op: 'Relu', inputs: ['x'], outputs: ['r'] },
        cast('r', 'h', TO_FLOAT16),
        cast('h', pairToOutput ? 'y' : 'back', TO_FLOAT),
        ...(pairToOutput ? [] : [{ op: 'Sigmoid', inputs: ['back'], outputs: ['y'] }]),
      ],
    });
  const feeds = { x: tensor([2, 8], 81, -3, 3) };

  it("drops float32 → float16 → float32 from 'extended' on: the float16 rounding goes with it", async () => {
    const basic = await runAtLevel(pair(), feeds, 'basic');
    // 'extended': at 'all' the elementwise fusion would then join Relu and Sigmoid into one node.
    const all = await runAtLevel(pair(), feeds, 'extended');
    expect(basic.ops).toEqual(['Relu', 'Cast', 'Cast', 'Sigmoid']);
    expect(all.ops).toEqual(['Relu', 'Sigmoid']);
    const x = feeds.x.data as Float32Array;
    const y = all.outputs.y.data as Float32Array;
    // Exactly sigmoid(relu(x)) in float32: nothing rounded to float16 in between.
    for (let i = 0; i < x.length; i++) expect(y[i]).toBeCloseTo(1 / (1 + Math.exp(-Math.max(x[i], 0))), 6);
    expect(stepsApart(all, basic)).toBeLessThanOrEqual(1);
  });

  it('keeps the pair when the float16 value is read elsewhere too (here: a graph output)', async () => {
    const all = await runAtLevel(pair(true), feeds, 'all');
    expect(all.ops).toEqual(['Relu', 'Cast', 'Cast', 'Sigmoid']);
  });

  it("renames the producer's output when the pair's end is a graph output", async () => {
    const all = await runAtLevel(pair(false, true), feeds, 'all');
    expect(all.ops).toEqual(['Relu']);
    const y = all.outputs.y.data as Float32Array;
    (feeds.x.data as Float32Array).forEach((v, i) => expect(y[i]).toBe(Math.max(v, 0)));
  });

  it('drops float16 → float32 → float16 (exact) and gives the same bits as without', async () => {
    const build = () =>
      buildModel({
        inputs: [['x', 'float16', [2, 8]]],
        outputs: [['y', 'float64', [2, 8]]],
        nodes: [cast('x', 'wide', TO_FLOAT), cast('wide', 'narrow', TO_FLOAT16), cast('narrow', 'y', TO_DOUBLE)],
      });
    const f = { x: half([2, 8], 91, -100, 100) };
    const basic = await runAtLevel(build, f, 'basic');
    const all = await runAtLevel(build, f, 'all');
    expect(basic.ops).toEqual(['Cast', 'Cast', 'Cast']);
    expect(all.ops).toEqual(['Cast']);
    expect(Array.from(all.outputs.y.data as Float64Array)).toEqual(Array.from(basic.outputs.y.data as Float64Array));
  });
});

/** An EP ahead of the CPU EP that takes float16 Relu only (as a GPU EP might), computing it in float32. */
function float16ReluProvider(): ExecutionProvider {
  const relu = defineKernel({
    ep: 'first',
    domain: '',
    opType: 'Relu',
    sinceVersion: 1,
    typeConstraints: { T: ['float16'] },
    implementation: 'float16-relu',
    create: () => ({
      run(ctx) {
        const x = ctx.input(0);
        const wide = new Float32Array(x.size);
        float16ToFloat32Array(x.data as Uint16Array, wide);
        for (let i = 0; i < wide.length; i++) wide[i] = Math.max(wide[i], 0);
        const out = ctx.output(0, 'float16', x.dims);
        float32ToFloat16Array(wide, out.data as Uint16Array);
        return [out];
      },
    }),
  });
  return { name: 'first', kernels: [relu] };
}
