// The decomposed RMSNorm → one RMSNormalization (rms-norm-fusion.ts): every spelling exporters write fuses and
// matches the unoptimized graph; a chain that is not exactly an RMSNorm over trailing axes stays as it is.
import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { buildModel, type NodeSpec } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { compareLevels, tensor } from './test-models.test-util.js';

const nativeModes = new CpuExecutionProvider().nativeUnavailable === undefined ? [true, false] : [false];
const D = 24;
const scalar = (v: number) => new Tensor('float32', Float32Array.of(v), []);

interface Spelling {
  /** How x² is written. */
  square?: 'pow' | 'mul';
  /** How x is divided by the root: Div(x, r), Mul(x, Reciprocal(r)) or Mul(Div(1, r), x). */
  inverse?: 'div' | 'reciprocal' | 'one-over';
  /** γ's side of the last Mul, or none. */
  gamma?: 'right' | 'left' | 'none';
  axes?: number[];
  opset?: number;
  eps?: string;
  dims?: number[];
  gammaDims?: number[];
  exponent?: number;
  /** Extra nodes (reading intermediates), outputs of the graph. */
  extra?: NodeSpec[];
}

function rmsModel(o: Spelling = {}) {
  return () => {
    const dims = o.dims ?? [2, 3, D];
    const opset = o.opset ?? 17;
    const nodes: NodeSpec[] = [];
    nodes.push(o.square === 'mul' ? { op: 'Mul', inputs: ['x', 'x'], outputs: ['sq'] } : { op: 'Pow', inputs: ['x', 'two'], outputs: ['sq'] });
    const axes = o.axes ?? [-1];
    nodes.push(opset >= 18 ? { op: 'ReduceMean', inputs: ['sq', 'axes'], outputs: ['ms'] } : { op: 'ReduceMean', inputs: ['sq'], outputs: ['ms'], attributes: { axes } });
    nodes.push({ op: 'Add', inputs: ['ms', o.eps ?? 'eps'], outputs: ['v'] }, { op: 'Sqrt', inputs: ['v'], outputs: ['r'] });
    const inverse = o.inverse ?? 'div';
    if (inverse === 'div') nodes.push({ op: 'Div', inputs: ['x', 'r'], outputs: ['n'] });
    else if (inverse === 'reciprocal') nodes.push({ op: 'Reciprocal', inputs: ['r'], outputs: ['ir'] }, { op: 'Mul', inputs: ['x', 'ir'], outputs: ['n'] });
    else nodes.push({ op: 'Div', inputs: ['one', 'r'], outputs: ['ir'] }, { op: 'Mul', inputs: ['ir', 'x'], outputs: ['n'] });
    const gamma = o.gamma ?? 'right';
    if (gamma === 'none') nodes.push({ op: 'Relu', inputs: ['n'], outputs: ['y'] });
    else nodes.push({ op: 'Mul', inputs: gamma === 'right' ? ['n', 'g'] : ['g', 'n'], outputs: ['y'] });
    nodes.push(...(o.extra ?? []));
    return buildModel({
      opset,
      inputs: [['x', 'float32', dims]],
      outputs: [['y', 'float32'], ...(o.extra ?? []).map((n) => [n.outputs[0], 'float32'] as ['string', 'float32'])],
      initializers: {
        two: scalar(o.exponent ?? 2),
        one: scalar(1),
        eps: scalar(1e-6),
        epsRow: tensor([D], 5, 0.1, 0.2),
        axes: new Tensor('int64', BigInt64Array.from(axes.map(BigInt)), [axes.length]),
        g: tensor(o.gammaDims ?? [D], 3, 0.5, 1.5),
      },
      nodes,
    });
  };
}

describe.each(nativeModes)('RMSNorm fusion (native %s)', (useNative) => {
  const fused: Array<[string, Spelling]> = [
    ['Pow, Div(x, √·), γ on the right (T5)', {}],
    ['x · Reciprocal(√·), γ on the left', { inverse: 'reciprocal', gamma: 'left' }],
    ['Div(1, √·) · x (torch.rsqrt, Llama)', { inverse: 'one-over', square: 'mul' }],
    ['no γ (a 1s scale is added)', { gamma: 'none' }],
    ['two trailing axes with axes as an input (opset 18)', { axes: [1, 2], opset: 18, gammaDims: [3, D] }],
    ['a γ that broadcasts within the normalized axes', { axes: [-2, -1], gammaDims: [D] }],
    ['a 2-D [rows, D] input', { dims: [5, D] }],
  ];
  for (const [label, spelling] of fused) {
    it(`fuses ${label}`, async () => {
      const dims = spelling.dims ?? [2, 3, D];
      const r = await compareLevels(rmsModel(spelling), { x: tensor(dims, 7, -3, 3) }, { useNative });
      expect(r.ops).toContain('com.switchyard::RMSNormalization');
      expect(r.ops).not.toContain('Sqrt');
      expect(r.fired).toContain('cpu:rms-norm-fusion');
    });
  }

  it('runs the fused op natively when the addon is there', async () => {
    const r = await compareLevels(rmsModel(), { x: tensor([2, 3, D], 8) }, { useNative });
    expect(r.implementations[r.ops.indexOf('com.switchyard::RMSNormalization')]).toBe(useNative ? 'native' : 'ts');
  });

  const kept: Array<[string, Spelling]> = [
    ['averages a leading axis', { axes: [1] }],
    ['raises to the fourth power instead of squaring', { exponent: 4 }],
    ['adds a per-column ε', { eps: 'epsRow' }],
    ['shares its mean square with another reader', { extra: [{ op: 'Neg', inputs: ['ms'], outputs: ['side'] }] }],
  ];
  for (const [label, spelling] of kept) {
    it(`keeps a chain that ${label}`, async () => {
      const r = await compareLevels(rmsModel(spelling), { x: tensor([2, 3, D], 9, -3, 3) }, { useNative });
      expect(r.ops).not.toContain('com.switchyard::RMSNormalization');
    });
  }

  it('leaves γ out of the fusion when it spans more than the normalized axes', async () => {
    const r = await compareLevels(rmsModel({ gammaDims: [3, D] }), { x: tensor([2, 3, D], 10, -3, 3) }, { useNative });
    expect(r.ops).toContain('com.switchyard::RMSNormalization');
    expect(r.ops).toContain('Mul');
  });
});
