/**
 * LayerNorm, GELU and MatMul+Add fusions on hand-built transformer pieces: 'disabled' vs 'all' must
 * agree and the optimized graph must hold the fused op; near-misses must stay as they are.
 */
import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { buildModel, type NodeSpec, type PlainAttribute } from '@switchyard/core/testing';
import { gelu } from '../kernels/FusedGelu.js';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { compareLevels, scalar, tensor } from './test-models.test-util.js';

// With the addon loaded (and not turned off by SWITCHYARD_CPU_NATIVE=0) both paths run.
const nativeModes = new CpuExecutionProvider().nativeUnavailable === undefined ? [true, false] : [false];
const H = 16;

function layerNorm(opset: number, opts: { affine?: boolean; square?: 'Pow' | 'Mul'; axis?: number } = {}) {
  const { affine = true, square = 'Pow', axis = -1 } = opts;
  const ax: { attributes: Record<string, PlainAttribute>; extra: string[] } =
    opset >= 18 ? { attributes: {}, extra: ['axes'] } : { attributes: { axes: [axis] }, extra: [] };
  const nodes: NodeSpec[] = [
    { op: 'ReduceMean', inputs: ['x', ...ax.extra], outputs: ['m'], attributes: ax.attributes },
    { op: 'Sub', inputs: ['x', 'm'], outputs: ['d'] },
    square === 'Pow' ? { op: 'Pow', inputs: ['d', 'two'], outputs: ['p'] } : { op: 'Mul', inputs: ['d', 'd'], outputs: ['p'] },
    { op: 'ReduceMean', inputs: ['p', ...ax.extra], outputs: ['v'], attributes: ax.attributes },
    { op: 'Add', inputs: ['v', 'eps'], outputs: ['e'] },
    { op: 'Sqrt', inputs: ['e'], outputs: ['s'] },
    { op: 'Div', inputs: ['d', 's'], outputs: affine ? ['n'] : ['y'] },
  ];
  if (affine) nodes.push({ op: 'Mul', inputs: ['gamma', 'n'], outputs: ['g'] }, { op: 'Add', inputs: ['g', 'beta'], outputs: ['y'] });
  return () =>
    buildModel({
      opset,
      inputs: [['x', 'float32', [2, 5, H]]],
      outputs: [['y', 'float32']],
      initializers: {
        two: scalar(2),
        eps: scalar(1e-5),
        gamma: tensor([H], 1, 0.5, 1.5),
        beta: tensor([H], 2),
        axes: new Tensor('int64', BigInt64Array.of(BigInt(axis)), [1]),
      },
      nodes,
    });
}

describe('layer-norm fusion', () => {
  it('emits ai.onnx LayerNormalization at opset 17 and 18 (axes as an input)', async () => {
    for (const opset of [17, 18]) {
      const r = await compareLevels(layerNorm(opset), { x: tensor([2, 5, H], 3, -3, 3) }, { tol: 1e-5 });
      expect(r.ops).toEqual(['LayerNormalization']);
    }
  });

  it('emits com.microsoft LayerNormalization below opset 17, also for Mul(d, d) and no gamma/beta', async () => {
    const r = await compareLevels(layerNorm(13, { square: 'Mul' }), { x: tensor([2, 5, H], 4, -3, 3) });
    expect(r.ops).toEqual(['com.microsoft::LayerNormalization']);
    const plain = await compareLevels(layerNorm(13, { affine: false }), { x: tensor([2, 5, H], 5, -3, 3) });
    expect(plain.ops).toEqual(['com.microsoft::LayerNormalization']);
  });

  it('leaves a normalization over a non-trailing axis alone', async () => {
    const r = await compareLevels(layerNorm(13, { axis: 1 }), { x: tensor([2, 5, H], 6) });
    expect(r.ops).toContain('ReduceMean');
    expect(r.ops).not.toContain('LayerNormalization');
    expect(r.fired).not.toContain('cpu:layer-norm-fusion');
  });
});

function geluModel(form: 'torch' | 'half-first' | 'half-last', viaMul = false) {
  const pre: NodeSpec = viaMul ? { op: 'Mul', inputs: ['x', 'invsqrt2'], outputs: ['t'] } : { op: 'Div', inputs: ['x', 'sqrt2'], outputs: ['t'] };
  const tails: Record<typeof form, NodeSpec[]> = {
    torch: [
      { op: 'Mul', inputs: ['x', 'a'], outputs: ['m'] },
      { op: 'Mul', inputs: ['m', 'half'], outputs: ['y'] },
    ],
    'half-first': [
      { op: 'Mul', inputs: ['x', 'half'], outputs: ['h'] },
      { op: 'Mul', inputs: ['h', 'a'], outputs: ['y'] },
    ],
    'half-last': [
      { op: 'Mul', inputs: ['a', 'half'], outputs: ['m'] },
      { op: 'Mul', inputs: ['m', 'x'], outputs: ['y'] },
    ],
  };
  return () =>
    buildModel({
      inputs: [['x', 'float32', [3, H]]],
      outputs: [['y', 'float32']],
      initializers: { sqrt2: scalar(Math.fround(Math.SQRT2)), invsqrt2: scalar(Math.fround(Math.SQRT1_2)), one: scalar(1), half: scalar(0.5) },
      nodes: [pre, { op: 'Erf', inputs: ['t'], outputs: ['e'] }, { op: 'Add', inputs: ['e', 'one'], outputs: ['a'] }, ...tails[form]],
    });
}

describe('gelu fusion', () => {
  it.each([
    ['torch', false],
    ['half-first', false],
    ['half-last', true],
  ] as const)('fuses the %s form (Mul by 1/√2: %s) into com.microsoft Gelu', async (form, viaMul) => {
    const r = await compareLevels(geluModel(form, viaMul), { x: tensor([3, H], 7, -6, 6) }, { tol: 2e-6 });
    expect(r.ops).toEqual(['com.microsoft::Gelu']);
  });

  it('does not fuse when the constant is not √2', async () => {
    const build = () => {
      const m = geluModel('torch')();
      m.graph.initializers.set('sqrt2', scalar(1.5));
      return m;
    };
    const r = await compareLevels(build, { x: tensor([3, H], 8) });
    // The chain stays five elementwise ops (which the elementwise fusion, last, runs as one pass).
    expect(r.ops).not.toContain('com.microsoft::Gelu');
    expect(r.fired).not.toContain('cpu:gelu-fusion');
  });

  it('computes x·Φ(x) to < 1e-6 relative error, also deep in the negative tail', () => {
    // Reference Φ by Simpson integration of the normal density: independent of any erf approximation.
    const tail = (a: number) => {
      const n = 20000;
      const b = a + 14;
      const h = (b - a) / n;
      const phi = (t: number) => Math.exp(-0.5 * t * t) / Math.sqrt(2 * Math.PI);
      let s = phi(a) + phi(b);
      for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * phi(a + i * h);
      return (s * h) / 3;
    };
    for (let x = -9; x <= 6; x += 0.173) {
      const cdf = x < 0 ? tail(-x) : 1 - tail(x);
      const expected = x * cdf;
      expect(Math.abs(gelu(x) - expected)).toBeLessThanOrEqual(1e-6 * Math.abs(expected) + 1e-300);
    }
  });
});

describe.each(nativeModes)('matmul-add fusion (oneDNN addon: %s)', (useNative) => {
  const linear = (aDims: number[], biasDims: number[], bDims = [H, 12]) => () =>
    buildModel({
      inputs: [['a', 'float32', aDims]],
      outputs: [['y', 'float32']],
      initializers: { w: tensor(bDims, 1), bias: tensor(biasDims, 2) },
      nodes: [
        { op: 'MatMul', inputs: ['a', 'w'], outputs: ['p'] },
        { op: 'Add', inputs: ['bias', 'p'], outputs: ['y'] },
      ],
    });

  it('turns a 2-D MatMul + bias into Gemm', async () => {
    const r = await compareLevels(linear([4, H], [12]), { a: tensor([4, H], 3) }, { useNative });
    expect(r.ops).toEqual(['Gemm']);
    // Four static rows times constant weights: the addon's skinny kernel.
    expect(r.implementations).toEqual([useNative ? 'skinny' : 'ts']);
  });

  it('turns an N-D MatMul + bias ([N] or [1, 1, N]) into FusedMatMul with a 1-D bias', async () => {
    for (const biasDims of [[12], [1, 1, 12]]) {
      const r = await compareLevels(linear([2, 4, H], biasDims), { a: tensor([2, 4, H], 4) }, { useNative });
      expect(r.ops).toEqual(['com.switchyard::FusedMatMul']);
      expect(r.implementations).toEqual([useNative ? 'onednn' : 'ts']);
    }
  });

  it('keeps an Add that broadcasts along another axis', async () => {
    const r = await compareLevels(linear([4, H], [4, 1]), { a: tensor([4, H], 5) }, { useNative });
    expect(r.ops).toEqual(['MatMul', 'Add']);
  });
});

describe('the fusions together', () => {
  it('rewrite a BERT-style feed-forward block: Linear → GELU → Linear → residual → LayerNorm', async () => {
    const D = 16;
    const F = 32;
    const build = () =>
      buildModel({
        inputs: [['x', 'float32', [2, 3, D]]],
        outputs: [['y', 'float32']],
        initializers: {
          w1: tensor([D, F], 1, -0.5, 0.5), b1: tensor([F], 2), w2: tensor([F, D], 3, -0.5, 0.5), b2: tensor([D], 4),
          sqrt2: scalar(Math.fround(Math.SQRT2)), one: scalar(1), half: scalar(0.5), two: scalar(2), eps: scalar(1e-12),
          gamma: tensor([D], 5, 0.5, 1.5), beta: tensor([D], 6),
        },
        nodes: [
          { op: 'MatMul', inputs: ['x', 'w1'], outputs: ['h0'] },
          { op: 'Add', inputs: ['h0', 'b1'], outputs: ['h'] },
          { op: 'Div', inputs: ['h', 'sqrt2'], outputs: ['t'] },
          { op: 'Erf', inputs: ['t'], outputs: ['e'] },
          { op: 'Add', inputs: ['e', 'one'], outputs: ['a'] },
          { op: 'Mul', inputs: ['h', 'a'], outputs: ['g0'] },
          { op: 'Mul', inputs: ['g0', 'half'], outputs: ['g'] },
          { op: 'MatMul', inputs: ['g', 'w2'], outputs: ['o0'] },
          { op: 'Add', inputs: ['o0', 'b2'], outputs: ['o'] },
          { op: 'Add', inputs: ['o', 'x'], outputs: ['r'] },
          { op: 'ReduceMean', inputs: ['r'], outputs: ['m'], attributes: { axes: [-1] } },
          { op: 'Sub', inputs: ['r', 'm'], outputs: ['d'] },
          { op: 'Pow', inputs: ['d', 'two'], outputs: ['p'] },
          { op: 'ReduceMean', inputs: ['p'], outputs: ['v'], attributes: { axes: [-1] } },
          { op: 'Add', inputs: ['v', 'eps'], outputs: ['ve'] },
          { op: 'Sqrt', inputs: ['ve'], outputs: ['s'] },
          { op: 'Div', inputs: ['d', 's'], outputs: ['n'] },
          { op: 'Mul', inputs: ['n', 'gamma'], outputs: ['ng'] },
          { op: 'Add', inputs: ['ng', 'beta'], outputs: ['y'] },
        ],
      });
    const r = await compareLevels(build, { x: tensor([2, 3, D], 7, -2, 2) }, { tol: 1e-4 });
    // With the addon, the residual Add joins the LayerNormalization (skip-layer-norm-fusion).
    const tail = nativeModes.includes(true) ? ['com.switchyard::SkipLayerNormalization'] : ['Add', 'LayerNormalization'];
    // The GELU joins the first product as its activation (matmul-add-fusion + activation-match).
    expect(r.ops).toEqual(['com.switchyard::FusedMatMul', 'com.switchyard::FusedMatMul', ...tail]);
    expect(r.activations.slice(0, 2)).toEqual(['Gelu', '']);
  });
});

describe.each(nativeModes)('MatMul + bias + activation (oneDNN addon: %s)', (useNative) => {
  const cases: Array<{ name: string; rank: 2 | 3; nodes: NodeSpec[]; activation: string }> = [
    { name: '2-D product + Relu (a FusedMatMul, not a Gemm)', rank: 2, nodes: [{ op: 'Relu', inputs: ['a'], outputs: ['y'] }], activation: 'Relu' },
    {
      name: '3-D product + x·sigmoid(x)',
      rank: 3,
      nodes: [
        { op: 'Sigmoid', inputs: ['a'], outputs: ['s'] },
        { op: 'Mul', inputs: ['a', 's'], outputs: ['y'] },
      ],
      activation: 'Swish',
    },
    { name: '3-D product + Tanh', rank: 3, nodes: [{ op: 'Tanh', inputs: ['a'], outputs: ['y'] }], activation: 'Tanh' },
  ];
  for (const t of cases) {
    it(`${t.name}: one FusedMatMul carrying ${t.activation}, equal at every level`, async () => {
      const xDims = t.rank === 2 ? [6, H] : [2, 3, H];
      const build = () =>
        buildModel({
          inputs: [['x', 'float32', xDims]],
          outputs: [['y', 'float32']],
          initializers: { w: tensor([H, 24], 1), b: tensor([24], 2) },
          nodes: [{ op: 'MatMul', inputs: ['x', 'w'], outputs: ['m'] }, { op: 'Add', inputs: ['m', 'b'], outputs: ['a'] }, ...t.nodes],
        });
      const r = await compareLevels(build, { x: tensor(xDims, 3, -2, 2) }, { useNative, tol: 1e-5 });
      expect(r.ops).toEqual(['com.switchyard::FusedMatMul']);
      expect(r.activations).toEqual([t.activation]);
    });
  }
});
