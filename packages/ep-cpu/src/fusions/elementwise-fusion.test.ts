/**
 * The elementwise fusion on hand-built chains: every optimization level must agree with 'disabled',
 * 'all' must hold one com.switchyard::FusedElementwise where the pattern fuses (and no fused node below
 * 'all'), and values other nodes read must survive. Small tensors run the fused node's TS kernel,
 * large ones the native engine.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, type GraphOptimizationLevel, type Model } from '@switchyard/core';
import { buildModel, type ModelSpec, type NodeSpec } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { scalar, tensor } from './test-models.test-util.js';

const hasEngine = new CpuExecutionProvider().nativeUnavailable === undefined;
const FUSED = 'com.switchyard::FusedElementwise';

interface LevelRun {
  ops: string[];
  implementations: string[];
  outputs: Record<string, Tensor>;
}

async function runAt(model: Model, level: GraphOptimizationLevel, feeds: Record<string, Tensor>): Promise<LevelRun> {
  const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: level });
  try {
    const outputs = (await s.run(feeds)) as Record<string, Tensor>;
    return {
      ops: s.placement.nodes.map((n) => (n.domain ? `${n.domain}::${n.opType}` : n.opType)),
      implementations: s.placement.nodes.map((n) => n.implementation ?? ''),
      outputs,
    };
  } finally {
    await s.release();
  }
}

/** Runs `spec` at every level; each must match 'disabled' within `tol` · (1 + |expected|). Returns the 'all' run. */
async function acrossLevels(spec: ModelSpec, feeds: Record<string, Tensor>, tol = 2e-6): Promise<LevelRun> {
  const reference = await runAt(buildModel(spec), 'disabled', feeds);
  let all: LevelRun | undefined;
  for (const level of ['basic', 'extended', 'all'] as const) {
    const r = await runAt(buildModel(spec), level, feeds);
    if (level !== 'all') expect(r.ops, level).not.toContain(FUSED);
    for (const [name, e] of Object.entries(reference.outputs)) {
      const a = r.outputs[name];
      expect(a.dims, `${level} ${name}`).toEqual(e.dims);
      const ed = e.data as Float32Array;
      const ad = a.data as Float32Array;
      for (let i = 0; i < ed.length; i++) {
        const ok = Number.isNaN(ed[i]) ? Number.isNaN(ad[i]) : Math.abs(ad[i] - ed[i]) <= tol * (1 + Math.abs(ed[i]));
        if (!ok) throw new Error(`${level}: ${name}[${i}] = ${ad[i]}, 'disabled' gives ${ed[i]}`);
      }
    }
    if (level === 'all') all = r;
  }
  return all!;
}

const SMALL = [1, 3, 4, 5]; // 60 elements: the fused node's TS kernel
const LARGE = [1, 8, 40, 40]; // 12800 elements: the native engine

/** HardSwish as exported by frameworks without the op: x · clip(x + 3, 0, 6) / 6 (Clip with inputs, or attributes before opset 11). */
function hardSwish(dims: number[], opset: number): ModelSpec {
  const clip: NodeSpec = opset >= 11 ? { op: 'Clip', inputs: ['a', 'zero', 'six'], outputs: ['c'] } : { op: 'Clip', inputs: ['a'], outputs: ['c'], attributes: { min: { float: 0 }, max: { float: 6 } } };
  return {
    opset,
    inputs: [['x', 'float32', dims]],
    outputs: [['y', 'float32']],
    initializers: { three: scalar(3), zero: scalar(0), six: scalar(6) },
    nodes: [
      { op: 'Add', inputs: ['x', 'three'], outputs: ['a'] },
      clip,
      { op: 'Mul', inputs: ['x', 'c'], outputs: ['m'] },
      { op: 'Div', inputs: ['m', 'six'], outputs: ['y'] },
    ],
  };
}

describe.skipIf(!hasEngine)('elementwise fusion', () => {
  it('fuses decomposed HardSwish (Clip as inputs and as attributes), small and large', async () => {
    for (const opset of [13, 9]) {
      for (const dims of [SMALL, LARGE]) {
        const r = await acrossLevels(hardSwish(dims, opset), { x: tensor(dims, 1, -8, 8) });
        expect(r.ops, `opset ${opset} [${dims}]`).toEqual([FUSED]);
        expect(r.implementations[0]).toBe(dims === SMALL ? 'ts' : 'native');
      }
    }
  });

  it('keeps the rank a one-element constant gives the result (a rank-0 value divided by a [1] constant is [1])', async () => {
    // Found by the random-graph differential test (seed 1039): the [1] constant became an immediate, so the fused
    // node returned a rank-0 tensor.
    for (const cDims of [[1], [1, 1]]) {
      const spec: ModelSpec = {
        opset: 13,
        inputs: [['x', 'float32', [3, 4]]],
        outputs: [['y', 'float32']],
        initializers: { c: tensor(cDims, 3, 0.5, 1), half: scalar(0.5) },
        nodes: [
          { op: 'ReduceMin', inputs: ['x'], outputs: ['m'], attributes: { keepdims: 0 } },
          { op: 'Sigmoid', inputs: ['m'], outputs: ['s'] },
          { op: 'Div', inputs: ['s', 'c'], outputs: ['d'] },
          { op: 'Erf', inputs: ['d'], outputs: ['e'] },
          { op: 'Add', inputs: ['e', 'half'], outputs: ['y'] },
        ],
      };
      const r = await acrossLevels(spec, { x: tensor([3, 4], 4) });
      expect(r.ops).toEqual(['ReduceMin', 'Sigmoid', FUSED]); // σ of the rank-0 value stays out: smaller than the result
      expect(r.outputs.y.dims).toEqual(cDims);
    }
  });

  it('fuses x·σ(x) and the tanh-GELU polynomial', async () => {
    const swish: ModelSpec = {
      opset: 13,
      inputs: [['x', 'float32', LARGE]],
      outputs: [['y', 'float32']],
      nodes: [
        { op: 'Sigmoid', inputs: ['x'], outputs: ['s'] },
        { op: 'Mul', inputs: ['x', 's'], outputs: ['y'] },
      ],
    };
    expect((await acrossLevels(swish, { x: tensor(LARGE, 2, -10, 10) })).ops).toEqual([FUSED]);
    const geluTanh: ModelSpec = {
      opset: 13,
      inputs: [['x', 'float32', LARGE]],
      outputs: [['y', 'float32']],
      initializers: { three: scalar(3), k: scalar(0.044715), c: scalar(Math.sqrt(2 / Math.PI)), one: scalar(1), half: scalar(0.5) },
      nodes: [
        { op: 'Pow', inputs: ['x', 'three'], outputs: ['x3'] },
        { op: 'Mul', inputs: ['x3', 'k'], outputs: ['kx3'] },
        { op: 'Add', inputs: ['x', 'kx3'], outputs: ['inner'] },
        { op: 'Mul', inputs: ['inner', 'c'], outputs: ['u'] },
        { op: 'Tanh', inputs: ['u'], outputs: ['t'] },
        { op: 'Add', inputs: ['t', 'one'], outputs: ['t1'] },
        { op: 'Mul', inputs: ['x', 'half'], outputs: ['hx'] },
        { op: 'Mul', inputs: ['hx', 't1'], outputs: ['y'] },
      ],
    };
    expect((await acrossLevels(geluTanh, { x: tensor(LARGE, 3, -6, 6) }, 1e-5)).ops).toEqual([FUSED]);
  });

  it('fuses (x - mean) / std · g + b with broadcast statistics and per-channel affine', async () => {
    const spec: ModelSpec = {
      opset: 13,
      inputs: [
        ['x', 'float32', LARGE],
        ['mean', 'float32', [1, 8, 1, 1]],
        ['std', 'float32', [1, 8, 1, 1]],
      ],
      outputs: [['y', 'float32']],
      initializers: { g: tensor([8, 1, 1], 4, 0.5, 2), b: tensor([8, 1, 1], 5) },
      nodes: [
        { op: 'Sub', inputs: ['x', 'mean'], outputs: ['d'] },
        { op: 'Div', inputs: ['d', 'std'], outputs: ['n'] },
        { op: 'Mul', inputs: ['n', 'g'], outputs: ['s'] },
        { op: 'Add', inputs: ['s', 'b'], outputs: ['y'] },
      ],
    };
    const r = await acrossLevels(spec, { x: tensor(LARGE, 6), mean: tensor([1, 8, 1, 1], 7), std: tensor([1, 8, 1, 1], 8, 0.5, 2) });
    expect(r.ops).toEqual([FUSED]);
  });

  it('fuses Where on a bool mask, variadic Mean/Max and activations with attributes', async () => {
    const spec: ModelSpec = {
      opset: 13,
      inputs: [
        ['x', 'float32', LARGE],
        ['z', 'float32', LARGE],
        ['mask', 'bool', [1, 1, 40, 40]],
      ],
      outputs: [['y', 'float32']],
      initializers: { fill: scalar(-1e4) },
      nodes: [
        { op: 'Mean', inputs: ['x', 'z', 'x'], outputs: ['m'] },
        { op: 'LeakyRelu', inputs: ['m'], outputs: ['l'], attributes: { alpha: 0.2 } },
        { op: 'Max', inputs: ['l', 'z'], outputs: ['mx'] },
        { op: 'Where', inputs: ['mask', 'mx', 'fill'], outputs: ['w'] },
        { op: 'HardSigmoid', inputs: ['w'], outputs: ['y'], attributes: { alpha: 0.3, beta: 0.4 } },
      ],
    };
    const mask = new Tensor('bool', Uint8Array.from({ length: 1600 }, (_, i) => (i % 3 === 0 ? 1 : 0)), [1, 1, 40, 40]);
    const r = await acrossLevels(spec, { x: tensor(LARGE, 9, -3, 3), z: tensor(LARGE, 10, -3, 3), mask });
    expect(r.ops).toEqual([FUSED]);
  });

  it('keeps values other nodes read, graph outputs, and smaller producers outside the fused node', async () => {
    // s is a graph output, so Sigmoid stays; the squeeze-excitation σ(v) is [1, 8, 1, 1], so it stays too.
    const spec: ModelSpec = {
      opset: 13,
      inputs: [
        ['x', 'float32', LARGE],
        ['v', 'float32', [1, 8, 1, 1]],
      ],
      outputs: [
        ['y', 'float32'],
        ['s', 'float32'],
      ],
      nodes: [
        { op: 'Sigmoid', inputs: ['x'], outputs: ['s'] },
        { op: 'Mul', inputs: ['x', 's'], outputs: ['sw'] },
        { op: 'Sigmoid', inputs: ['v'], outputs: ['gate'] },
        { op: 'Mul', inputs: ['sw', 'gate'], outputs: ['g'] },
        { op: 'Relu', inputs: ['g'], outputs: ['y'] },
      ],
    };
    const r = await acrossLevels(spec, { x: tensor(LARGE, 11, -4, 4), v: tensor([1, 8, 1, 1], 12, -4, 4) });
    expect(r.ops.filter((op) => op === FUSED)).toHaveLength(1);
    expect(r.ops).toContain('Sigmoid');
    expect(r.ops.filter((op) => op === 'Sigmoid')).toHaveLength(2);
    // A value read by a non-elementwise node stays too: the Add feeding ReduceSum.
    const branching: ModelSpec = {
      opset: 13,
      inputs: [['x', 'float32', LARGE]],
      outputs: [
        ['y', 'float32'],
        ['r', 'float32'],
      ],
      initializers: { one: scalar(1) },
      nodes: [
        { op: 'Add', inputs: ['x', 'one'], outputs: ['a'] },
        { op: 'ReduceSum', inputs: ['a'], outputs: ['r'], attributes: { keepdims: 1 } },
        { op: 'Tanh', inputs: ['a'], outputs: ['t'] },
        { op: 'Neg', inputs: ['t'], outputs: ['y'] },
      ],
    };
    const b = await acrossLevels(branching, { x: tensor(LARGE, 13) }, 1e-5);
    expect(b.ops).toEqual(['Add', 'ReduceSum', FUSED]);
  });

  it('leaves non-float32 chains and single ops alone', async () => {
    const ints: ModelSpec = {
      opset: 13,
      inputs: [['x', 'int32', [64, 64]]],
      outputs: [['y', 'int32']],
      nodes: [
        { op: 'Abs', inputs: ['x'], outputs: ['a'] },
        { op: 'Neg', inputs: ['a'], outputs: ['y'] },
      ],
    };
    const x = new Tensor('int32', Int32Array.from({ length: 4096 }, (_, i) => i - 2000), [64, 64]);
    const r = await runAt(buildModel(ints), 'all', { x });
    expect(r.ops).toEqual(['Abs', 'Neg']);
    const single: ModelSpec = { opset: 13, inputs: [['x', 'float32', LARGE]], outputs: [['y', 'float32']], nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }] };
    expect((await runAt(buildModel(single), 'all', { x: tensor(LARGE, 14) })).ops).toEqual(['Relu']);
  });
});
