/**
 * Every activation a conv fuses as a oneDNN post-op, written the ways exporters write them: single
 * nodes (Sigmoid, Tanh, HardSigmoid, HardSwish, Elu, Softplus, Mish, LeakyRelu, Clip) and idioms of
 * several nodes (x·sigmoid(x); x·HardSigmoid(x); x·clip(x + 3, 0, 6) / 6 in three orders; GELU's erf
 * form). Each model is conv → activation → conv, run at 'disabled' and 'all' with and without the
 * addon: the outputs agree, and at 'all' the first conv carries the activation (so nothing of it is
 * left as a separate node). Near-misses (a wrong constant, a value read elsewhere) stay unfused.
 */
import { describe, expect, it } from 'vitest';
import { buildModel, type NodeSpec } from '@switchyard/core/testing';
import type { Tensor } from '@switchyard/core';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { compareLevels, convWeights, scalar, tensor } from './test-models.test-util.js';

const nativeModes = new CpuExecutionProvider().nativeUnavailable === undefined ? [true, false] : [false];
// 16 channels: whole blocks at 8 and 16, so the convs stay blocked at 'all' on either ISA.
const C = 16;
const SIZE = 9;

interface Case {
  name: string;
  /** Nodes from `c` (the first conv's output) to `a` (the activated value). */
  nodes: NodeSpec[];
  constants?: Record<string, Tensor>;
  /** The activation the first conv should carry at 'all' ('' when it must stay unfused). */
  expected: string;
  opset?: number;
  /** Tolerance of 'all' against 'disabled' (default 1e-4). */
  tol?: number;
}

const one = (op: string, attributes: NodeSpec['attributes'] = {}): NodeSpec[] => [{ op, inputs: ['c'], outputs: ['a'], attributes }];
const hardSwishHead: NodeSpec[] = [
  { op: 'Add', inputs: ['c', 'three'], outputs: ['p'] },
  { op: 'Clip', inputs: ['p', 'zero', 'six'], outputs: ['q'] },
];
const hsConstants = { three: scalar(3), zero: scalar(0), six: scalar(6), sixth: scalar(1 / 6) };

const CASES: Case[] = [
  { name: 'Sigmoid', nodes: one('Sigmoid'), expected: 'Sigmoid' },
  { name: 'Tanh', nodes: one('Tanh'), expected: 'Tanh' },
  { name: 'HardSigmoid', nodes: one('HardSigmoid', { alpha: { float: 0.3 }, beta: { float: 0.4 } }), expected: 'HardSigmoid' },
  { name: 'HardSwish op', nodes: one('HardSwish'), expected: 'HardSwish' },
  { name: 'Elu', nodes: one('Elu', { alpha: { float: 0.7 } }), expected: 'Elu' },
  { name: 'Softplus', nodes: one('Softplus'), expected: 'Softplus' },
  { name: 'Mish', nodes: one('Mish'), expected: 'Mish', opset: 18 },
  { name: 'LeakyRelu', nodes: one('LeakyRelu', { alpha: { float: 0.2 } }), expected: 'LeakyRelu' },
  {
    name: 'Swish: x * Sigmoid(x)',
    nodes: [
      { op: 'Sigmoid', inputs: ['c'], outputs: ['s'] },
      { op: 'Mul', inputs: ['c', 's'], outputs: ['a'] },
    ],
    expected: 'Swish',
  },
  {
    name: 'HardSwish: HardSigmoid(x) * x',
    nodes: [
      { op: 'HardSigmoid', inputs: ['c'], outputs: ['s'], attributes: { alpha: { float: 1 / 6 }, beta: { float: 0.5 } } },
      { op: 'Mul', inputs: ['s', 'c'], outputs: ['a'] },
    ],
    expected: 'HardSwish',
  },
  {
    name: 'HardSwish: x * clip(x + 3, 0, 6) / 6',
    nodes: [...hardSwishHead, { op: 'Mul', inputs: ['c', 'q'], outputs: ['m'] }, { op: 'Div', inputs: ['m', 'six'], outputs: ['a'] }],
    constants: hsConstants,
    expected: 'HardSwish',
  },
  {
    name: 'HardSwish: x * (clip(x + 3, 0, 6) / 6)',
    nodes: [...hardSwishHead, { op: 'Div', inputs: ['q', 'six'], outputs: ['d'] }, { op: 'Mul', inputs: ['d', 'c'], outputs: ['a'] }],
    constants: hsConstants,
    expected: 'HardSwish',
  },
  {
    name: 'HardSwish: (x * clip(x + 3, 0, 6)) * (1/6)',
    nodes: [...hardSwishHead, { op: 'Mul', inputs: ['q', 'c'], outputs: ['m'] }, { op: 'Mul', inputs: ['sixth', 'm'], outputs: ['a'] }],
    constants: hsConstants,
    expected: 'HardSwish',
  },
  {
    name: 'HardSwish with 1/6 as a float16 model stores it (0.16662598)',
    nodes: [...hardSwishHead, { op: 'Mul', inputs: ['q', 'c'], outputs: ['m'] }, { op: 'Mul', inputs: ['m', 'sixth16'], outputs: ['a'] }],
    constants: { ...hsConstants, sixth16: scalar(0.16662598) },
    expected: 'HardSwish',
    // Fused, the exact 1/6 replaces its float16 rounding: a relative change of 2.4e-4, the model's own precision.
    tol: 1e-3,
  },
  {
    name: 'not HardSwish: 1/6 off by more than float16 rounding (0.1666)',
    nodes: [...hardSwishHead, { op: 'Mul', inputs: ['q', 'c'], outputs: ['m'] }, { op: 'Mul', inputs: ['m', 'sixthish'], outputs: ['a'] }],
    constants: { ...hsConstants, sixthish: scalar(0.1666) },
    expected: '',
  },
  {
    name: 'GELU (erf form, as torch exports it)',
    nodes: [
      { op: 'Div', inputs: ['c', 'sqrt2'], outputs: ['d'] },
      { op: 'Erf', inputs: ['d'], outputs: ['e'] },
      { op: 'Add', inputs: ['e', 'one'], outputs: ['f'] },
      { op: 'Mul', inputs: ['c', 'f'], outputs: ['g'] },
      { op: 'Mul', inputs: ['g', 'half'], outputs: ['a'] },
    ],
    constants: { sqrt2: scalar(Math.SQRT2), one: scalar(1), half: scalar(0.5) },
    expected: 'Gelu',
  },
  // Near-misses: each must stay as it is.
  {
    name: 'not HardSwish: clip(x + 3, 0, 5)',
    nodes: [
      { op: 'Add', inputs: ['c', 'three'], outputs: ['p'] },
      { op: 'Clip', inputs: ['p', 'zero', 'five'], outputs: ['q'] },
      { op: 'Mul', inputs: ['c', 'q'], outputs: ['m'] },
      { op: 'Div', inputs: ['m', 'six'], outputs: ['a'] },
    ],
    constants: { ...hsConstants, five: scalar(5) },
    expected: '',
  },
  {
    name: 'not Swish: x * Sigmoid(y) of another value',
    nodes: [
      { op: 'Neg', inputs: ['c'], outputs: ['n'] },
      { op: 'Sigmoid', inputs: ['n'], outputs: ['s'] },
      { op: 'Mul', inputs: ['c', 's'], outputs: ['a'] },
    ],
    expected: '',
  },
  {
    name: 'not Swish: the sigmoid is also read by the second conv',
    nodes: [
      { op: 'Sigmoid', inputs: ['c'], outputs: ['s'] },
      { op: 'Mul', inputs: ['c', 's'], outputs: ['m'] },
      { op: 'Add', inputs: ['m', 's'], outputs: ['a'] },
    ],
    expected: '',
  },
  {
    name: 'Clip with min > max stays a node (ONNX and oneDNN disagree there)',
    nodes: [{ op: 'Clip', inputs: ['c', 'six', 'zero'], outputs: ['a'] }],
    constants: hsConstants,
    expected: '',
  },
];

function model(t: Case) {
  return () => {
    const m = buildModel({
      opset: t.opset,
      inputs: [['x', 'float32', [1, C, SIZE, SIZE]]],
      outputs: [['y', 'float32', [1, C, SIZE, SIZE]]],
      initializers: { w1: convWeights([C, C, 3, 3], 1), b1: tensor([C], 2), w2: convWeights([C, C, 1, 1], 3), ...t.constants },
      nodes: [
        { op: 'Conv', inputs: ['x', 'w1', 'b1'], outputs: ['c'], attributes: { pads: [1, 1, 1, 1] } },
        ...t.nodes,
        { op: 'Conv', inputs: ['a', 'w2'], outputs: ['y'] },
      ],
    });
    return m;
  };
}

describe.each(nativeModes)('conv activation idioms (oneDNN addon: %s)', (useNative) => {
  for (const t of CASES) {
    it(`${t.name}: ${t.expected ? `fused as ${t.expected}` : 'left unfused'}, equal at every level`, async () => {
      const r = await compareLevels(model(t), { x: tensor([1, C, SIZE, SIZE], 4, -3, 3) }, { useNative, tol: t.tol ?? 1e-4 });
      const fused = r.activations.filter(Boolean);
      if (t.expected) {
        expect(fused).toEqual([t.expected]);
        // Only the convs (and, blocked, the reorder out) are left.
        expect(r.ops.filter((op) => !/Conv|Reorder/.test(op))).toEqual([]);
      } else {
        expect(fused).toEqual([]);
      }
    });
  }
});
