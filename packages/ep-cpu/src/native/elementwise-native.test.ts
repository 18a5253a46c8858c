/**
 * The native elementwise engine against the TS kernels: every op and opset form on one-node models,
 * over broadcasts of many shapes (contiguous rows, per-row scalars, gathered short rows, a channel-
 * blocked per-channel operand, outputs large enough to split among threads) and edge values (NaN, ±Inf,
 * ±0, huge, subnormal), once per instruction set this CPU has (SWITCHYARD_CPU_VECTOR_ISA caps the
 * engine's choice). Ops whose result the TS kernel rounds once from a double must match bit for bit;
 * the transcendental ones within a few float32 ulp.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, type DataType } from '@switchyard/core';
import { buildModel, type NodeSpec, type PlainAttribute } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';
import { SYNC_ELEMENTWISE_LIMIT } from './native-support.js';
import { fusedAttributes } from '../elementwise/fused-node.js';
import type { ElementwiseInstruction } from '../elementwise/program.js';

/** A FusedElementwise node's attributes as buildModel's plain attribute values. */
function attributesOf(program: ElementwiseInstruction[]): Record<string, PlainAttribute> {
  const out: Record<string, PlainAttribute> = {};
  for (const [name, a] of fusedAttributes(program)) {
    if (a.type === 'strings' || a.type === 'ints') out[name] = a.value;
    else if (a.type === 'floats') out[name] = { floats: a.value };
  }
  return out;
}

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const hasEngine = native.ok && typeof native.binding.ElementwisePrimitive === 'function' && new CpuExecutionProvider().nativeUnavailable === undefined;

/** The instruction sets this CPU runs, probed through the primitive's `isa` option. */
function supportedIsas(): string[] {
  if (!native.ok || !native.binding.ElementwisePrimitive) return [];
  return (['generic', 'avx2', 'avx512'] as const).filter((isa) => {
    try {
      new native.binding.ElementwisePrimitive!({ inputs: [{ dims: [1] }], program: [{ op: 'neg', args: [0] }], isa }).dispose();
      return true;
    } catch {
      return false;
    }
  });
}
const ISAS = supportedIsas();
const savedIsa = process.env.SWITCHYARD_CPU_VECTOR_ISA;
afterAll(() => {
  if (savedIsa === undefined) delete process.env.SWITCHYARD_CPU_VECTOR_ISA;
  else process.env.SWITCHYARD_CPU_VECTOR_ISA = savedIsa;
});

const EDGES = [NaN, Infinity, -Infinity, 0, -0, 3e38, -3e38, 1e-40, -1e-40, 1, -1, 0.5, -0.5, 2.5, -2.5, 88.8, -88.8, 1e-7];

/** Seeded values in [-scale, scale], with the edge values spread through the first elements. */
function values(n: number, seed: number, scale: number, edges = true): Float32Array {
  const v = seededFloats(n, seed, scale);
  if (edges) for (let i = 0; i < EDGES.length && i * 7 < n; i++) v[i * 7] = EDGES[i];
  return v;
}

interface InputSpec {
  dims: number[];
  type?: DataType;
  /** Values scale (default 4); 'positive' draws |values|. */
  scale?: number;
  positive?: boolean;
  edges?: boolean;
}

interface Case {
  op: string;
  domain?: string;
  opset?: number;
  attributes?: Record<string, PlainAttribute>;
  inputs: (InputSpec | '')[];
  /** Ulp-level tolerance (relative); 0: bit for bit (NaN matching NaN). */
  tol?: number;
  /** Absolute tolerance on top (results that cancel: alpha·x + beta near 0). */
  atol?: number;
}

function feedFor(spec: InputSpec, seed: number): Tensor {
  const n = spec.dims.reduce((a, b) => a * b, 1);
  if (spec.type === 'bool') return new Tensor('bool', Uint8Array.from({ length: n }, (_, i) => ((i * 7 + seed) % 3 === 0 ? 1 : 0)), spec.dims);
  const v = values(n, seed, spec.scale ?? 4, spec.edges ?? true);
  if (spec.positive) for (let i = 0; i < n; i++) v[i] = Math.abs(v[i]);
  return new Tensor('float32', v, spec.dims);
}

async function runCase(c: Case, useNative: boolean): Promise<{ y: Tensor; implementation: string | undefined }> {
  const names = c.inputs.map((s, i) => (s === '' ? '' : `i${i}`));
  const node: NodeSpec = { op: c.op, inputs: names, outputs: ['y'], name: 'n', attributes: c.attributes };
  if (c.domain) node.domain = c.domain;
  const specs = c.inputs.map((s, i) => [s, i] as const).filter((p): p is [InputSpec, number] => p[0] !== '');
  const model = buildModel({
    opset: c.opset ?? 13,
    inputs: specs.map(([s, i]) => [`i${i}`, s.type ?? 'float32', s.dims]),
    outputs: [['y', ['Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual'].includes(c.op) ? 'bool' : 'float32']],
    nodes: [node],
  });
  if (c.domain) model.graph.opsetImports.set(c.domain, 1);
  const s = await InferenceSession.fromModel(model, {
    executionProviders: [new CpuExecutionProvider({ useNative, smallOpsInTs: false })],
    graphOptimizationLevel: 'disabled',
  });
  try {
    const feeds = Object.fromEntries(specs.map(([spec, i]) => [`i${i}`, feedFor(spec, 17 + i)]));
    const y = (await s.run(feeds)).y as Tensor;
    return { y, implementation: s.placement.nodes[0].implementation };
  } finally {
    await s.release();
  }
}

/** Equal within `tol` (relative) + `atol` (subnormal results: 1e-37 at least); NaN only with NaN; ±0 by sign when exact. */
function mismatch(a: number, e: number, tol: number, atol = 0): boolean {
  if (Number.isNaN(e)) return !Number.isNaN(a);
  if (tol === 0 && atol === 0) return !Object.is(a, e);
  if (!Number.isFinite(e)) return a !== e;
  return !(Math.abs(a - e) <= tol * Math.abs(e) + Math.max(atol, 1e-37));
}

async function check(c: Case): Promise<void> {
  const reference = await runCase(c, false);
  for (const isa of ISAS) {
    process.env.SWITCHYARD_CPU_VECTOR_ISA = isa;
    const fast = await runCase(c, true);
    const label = `${c.op}${c.opset ? `@${c.opset}` : ''} [${c.inputs.map((s) => (s === '' ? '-' : s.dims.join('x'))).join(', ')}] on ${isa}`;
    expect(fast.implementation, label).toBe('native');
    expect(fast.y.dims, label).toEqual(reference.y.dims);
    expect(fast.y.type, label).toBe(reference.y.type);
    const a = fast.y.data as Float32Array | Uint8Array;
    const e = reference.y.data as Float32Array | Uint8Array;
    for (let i = 0; i < e.length; i++) {
      if (mismatch(a[i], e[i], c.tol ?? 0, c.atol)) throw new Error(`${label}: [${i}] native ${a[i]}, ts ${e[i]}`);
    }
  }
}

const UNARY_SHAPES = [[2, 3, 37], [3, 1100], [40000], [1]];
const APPROX = 2e-6; // ~16 float32 ulp: the vector transcendentals measure at most ~8 against double
const GELU_TANH = 3e-5; // e^(2u) with |2u| up to 104 before it underflows: ~|2u|·2e-7 relative

const UNARY: Array<[op: string, tol: number, extra?: Partial<Case>, input?: Partial<InputSpec>]> = [
  // alpha·x + beta rounds twice without FMA (the baseline loops): an ulp of the operands, absolute.
  ['Relu', 0],
  // Parameters: a model's float attributes are float32 (the engine's); the TS kernel's defaults are doubles.
  ['LeakyRelu', 0, { attributes: { alpha: { float: 0.125 } } }],
  ['LeakyRelu', 1.2e-7],
  ['Sigmoid', APPROX, {}, { scale: 30 }],
  ['HardSigmoid', 1.2e-7, { atol: 1.2e-7, attributes: { alpha: { float: 0.3 }, beta: { float: 0.6 } } }],
  ['HardSwish', 1.2e-7, { atol: 4e-7, opset: 14 }, { scale: 6 }],
  ['Tanh', APPROX, {}, { scale: 12 }],
  ['Erf', APPROX, {}, { scale: 5 }],
  ['Exp', APPROX, {}, { scale: 100 }],
  ['Log', APPROX, {}, { scale: 1e6 }],
  ['Log', APPROX, {}, { scale: 3, positive: true }],
  ['Sqrt', 0, {}, { positive: true }],
  ['Abs', 0],
  ['Neg', 0],
  ['Reciprocal', 0],
  ['Floor', 0, {}, { scale: 1e3 }],
  ['Ceil', 0, {}, { scale: 1e3 }],
  ['Round', 0, { opset: 11 }, { scale: 8 }],
  ['Sign', 0],
  ['Elu', APPROX, { attributes: { alpha: { float: 0.7 } } }, { scale: 8 }],
  ['Selu', APPROX, {}, { scale: 8 }],
  ['Celu', APPROX, { opset: 12, attributes: { alpha: { float: 1.5 } } }, { scale: 8 }],
  ['Softplus', APPROX, {}, { scale: 40 }],
  ['Softsign', 1.2e-7],
  ['Mish', APPROX, { opset: 18 }, { scale: 30 }],
  ['ThresholdedRelu', 0, { opset: 10, attributes: { alpha: { float: 0.25 } } }],
  ['Sin', 1.2e-7, {}, { scale: 100 }],
  ['Cos', 1.2e-7, {}, { scale: 100 }],
  // σ(2u) far in its tail: the float32 argument 2u carries ~|2u|·6e-8 of absolute error into e^2u.
  ['FastGelu', GELU_TANH, { domain: 'com.microsoft' }, { scale: 14 }],
];

const BINARY_SHAPES: number[][][] = [
  [[2, 3, 37], [2, 3, 37]],
  [[2, 3, 37], [37]],
  [[2, 3, 37], [3, 1]],
  [[4, 1, 5], [1, 3, 1]],
  [[1], [2, 3]],
  [[], [5, 7]],
  [[3, 600], [600]],
  [[64, 700], [64, 1]],
  [[50, 41], [1, 41]],
  [[2, 16, 9, 9, 8], [1, 16, 1, 1, 8]], // channel-blocked tensor, per-channel operand
  [[2, 3, 40, 40, 16], [1, 3, 1, 1, 16]], // ... whose rows repeat across many blocks (one gather serves them)
  [[2, 30, 30, 24], [24]], // channels-last rows and a per-channel bias
  [[1, 32, 40, 40], [1, 32, 1, 1]], // 51200 elements: split among threads
  [[3, 1, 2], [1, 4, 1]],
];

const BINARY: Array<[op: string, tol: number, extra?: Partial<Case>]> = [
  ['Add', 0], ['Sub', 0], ['Mul', 0], ['Div', 0], ['Pow', 1.2e-7], ['PRelu', 0], ['Max', 0], ['Min', 0],
  ['Equal', 0], ['Less', 0], ['Greater', 0], ['LessOrEqual', 0], ['GreaterOrEqual', 0],
];

describe.skipIf(!hasEngine)('native elementwise ops vs the TS kernels', () => {
  it('runs on every instruction set this CPU has', () => {
    expect(ISAS[0]).toBe('generic');
    expect(ISAS.length).toBeGreaterThanOrEqual(1);
  });

  it('unary ops, every attribute form, over edge values and shapes', { timeout: 120_000 }, async () => {
    for (const [op, tol, extra, input] of UNARY) {
      for (const dims of UNARY_SHAPES) await check({ op, tol, ...extra, inputs: [{ dims, ...input }] });
    }
  });

  it('a com.switchyard FusedElementwise program over every instruction the ops above do not reach', { timeout: 60_000 }, async () => {
    // Values: 0 = x, 1 = bias [37], 2 = mask (bool); then one instruction each.
    const program: ElementwiseInstruction[] = [
      { op: 'gelu', args: [0] }, // 3
      { op: 'swish', args: [0] }, // 4
      { op: 'gelu_tanh', args: [0] }, // 5
      { op: 'square', args: [1] }, // 6
      { op: 'cube', args: [0] }, // 7
      { op: 'const', args: [], value: -0.75 }, // 8
      { op: 'clip_range', args: [7], alpha: -2, beta: 3 }, // 9
      { op: 'clip', args: [4, 8, 6] }, // 10: a bound per element
      { op: 'where', args: [2, 3, 10] }, // 11
      { op: 'identity', args: [11] }, // 12
      { op: 'add', args: [12, 5] }, // 13
      { op: 'add', args: [13, 9] }, // 14
    ];
    await check({
      op: 'FusedElementwise',
      domain: 'com.switchyard',
      tol: GELU_TANH,
      attributes: attributesOf(program),
      inputs: [{ dims: [2, 3, 37], scale: 10 }, { dims: [37] }, { dims: [3, 1], type: 'bool' }],
    });
  });

  it('FastGelu with a bias, and Clip in both opset forms', { timeout: 60_000 }, async () => {
    await check({ op: 'FastGelu', domain: 'com.microsoft', tol: GELU_TANH, inputs: [{ dims: [4, 300], scale: 10 }, { dims: [300] }] });
    const x = { dims: [3, 1100], scale: 10 };
    await check({ op: 'Clip', opset: 6, attributes: { min: { float: -1.5 }, max: { float: 2 } }, inputs: [x] });
    await check({ op: 'Clip', opset: 6, attributes: { min: { float: 0 } }, inputs: [x] });
    await check({ op: 'Clip', opset: 6, inputs: [x] });
    // From opset 11 the bounds are inputs: both, either, none (graph inputs here: read at run time).
    await check({ op: 'Clip', opset: 13, inputs: [x, { dims: [], edges: false }, { dims: [], scale: 1, edges: false }] });
    await check({ op: 'Clip', opset: 11, inputs: [x, '', { dims: [] }] });
    await check({ op: 'Clip', opset: 12, inputs: [x, { dims: [1] }] });
    await check({ op: 'Clip', opset: 13, inputs: [x] });
  });

  it('binary ops with numpy broadcasting over many shapes', { timeout: 180_000 }, async () => {
    for (const [op, tol] of BINARY) {
      for (const [a, b] of BINARY_SHAPES) {
        const extra = op === 'PRelu' ? { opset: 9 } : {};
        await check({ op, tol, ...extra, inputs: [{ dims: a, scale: op === 'Pow' ? 3 : 4 }, { dims: b, scale: op === 'Pow' ? 3 : 4 }] });
        await check({ op, tol, ...extra, inputs: [{ dims: b }, { dims: a }] });
      }
    }
  });

  it('Pow with the exponents that take a shortcut, and exponents per row', { timeout: 60_000 }, async () => {
    for (const e of [2, 3, 0.5, -1, 1, 1.7]) {
      const exponent = new Float32Array([e]);
      const model = buildModel({
        opset: 13,
        inputs: [['x', 'float32', [3, 700]]],
        outputs: [['y', 'float32']],
        initializers: { e: new Tensor('float32', exponent, []) },
        nodes: [{ op: 'Pow', inputs: ['x', 'e'], outputs: ['y'] }],
      });
      const x = new Tensor('float32', values(2100, 5, 6), [3, 700]);
      const outputs: Float32Array[] = [];
      for (const useNative of [true, false]) {
        const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider({ useNative, smallOpsInTs: false })], graphOptimizationLevel: 'disabled' });
        outputs.push(((await s.run({ x })).y as Tensor).data as Float32Array);
        await s.release();
      }
      for (let i = 0; i < 2100; i++) if (mismatch(outputs[0][i], outputs[1][i], 1.2e-7)) throw new Error(`x^${e} at ${x.data[i]}: native ${outputs[0][i]}, ts ${outputs[1][i]}`);
    }
    await check({ op: 'Pow', tol: 1.2e-7, inputs: [{ dims: [4, 900], scale: 5 }, { dims: [4, 1], scale: 3, edges: false }] });
  });

  it('pre-opset-7 broadcasting: B placed at `axis`, PRelu slopes per channel', { timeout: 60_000 }, async () => {
    for (const op of ['Add', 'Mul', 'Sub', 'Div', 'Less']) {
      await check({ op, opset: 6, attributes: { broadcast: 1, axis: 1 }, inputs: [{ dims: [2, 3, 4, 5] }, { dims: [3, 4] }] });
      await check({ op, opset: 6, attributes: { broadcast: 1, axis: -1 }, inputs: [{ dims: [2, 3, 4, 5] }, { dims: [5] }] });
    }
    await check({ op: 'PRelu', opset: 6, inputs: [{ dims: [2, 3, 4, 5] }, { dims: [3] }] });
    await check({ op: 'PRelu', opset: 6, inputs: [{ dims: [2, 3, 4, 5] }, { dims: [1] }] });
  });

  it('variadic Sum, Mean, Max, Min with broadcasting', { timeout: 60_000 }, async () => {
    for (const op of ['Sum', 'Mean', 'Max', 'Min']) {
      await check({ op, inputs: [{ dims: [2, 3, 40] }, { dims: [40] }, { dims: [3, 1] }] });
      await check({ op, inputs: [{ dims: [5, 300] }, { dims: [5, 300] }] });
      await check({ op, inputs: [{ dims: [1] }, { dims: [2, 2] }, { dims: [2, 1] }, { dims: [2] }] });
    }
  });

  it('Where on a bool condition, each operand broadcast', { timeout: 60_000 }, async () => {
    const shapes: number[][][] = [
      [[2, 3, 37], [2, 3, 37], [2, 3, 37]],
      [[2, 3, 37], [37], [2, 3, 1]],
      [[1, 1, 50], [7, 1, 1], []],
      [[64, 700], [1], [64, 700]],
      [[3, 1], [3, 1100], [1100]],
    ];
    for (const [c, x, y] of shapes) await check({ op: 'Where', inputs: [{ dims: c, type: 'bool' }, { dims: x }, { dims: y }] });
  });

  it('runs outputs past SYNC_ELEMENTWISE_LIMIT (queued on the addon thread, not inline) to the same results', async () => {
    const n = SYNC_ELEMENTWISE_LIMIT + 3;
    const model = buildModel({ opset: 13, inputs: [['x', 'float32', [n]], ['b', 'float32', [1]]], outputs: [['y', 'float32']], nodes: [{ op: 'Sub', inputs: ['x', 'b'], outputs: ['y'] }] });
    const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: 'disabled', intraOpNumThreads: 2 });
    const x = new Tensor('float32', seededFloats(n, 3, 10), [n]);
    const y = (await s.run({ x, b: new Tensor('float32', Float32Array.of(0.25), [1]) })).y as Tensor;
    const yd = y.data as Float32Array;
    const bad = yd.findIndex((v, i) => v !== Math.fround(x.data[i] - 0.25));
    expect(bad).toBe(-1);
    expect(s.placement.nodes[0].implementation).toBe('native');
    await s.release();
  });

  it('declines what it does not serve: other dtypes, and problems the TS kernel must report', async () => {
    const model = buildModel({ opset: 13, inputs: [['x', 'float64', [64, 64]]], outputs: [['y', 'float64']], nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }] });
    const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider({ smallOpsInTs: false })] });
    expect(s.placement.nodes[0].implementation).toBe('ts');
    await s.release();
    // A Clip bound that is not one element: the TS kernel's INVALID_SHAPE, not a broadcast.
    const clip = buildModel({ opset: 13, inputs: [['x', 'float32', [8, 8]], ['lo', 'float32', [8]]], outputs: [['y', 'float32']], nodes: [{ op: 'Clip', inputs: ['x', 'lo'], outputs: ['y'] }] });
    const c = await InferenceSession.fromModel(clip, { executionProviders: [new CpuExecutionProvider({ smallOpsInTs: false })] });
    await expect(c.run({ x: new Tensor('float32', new Float32Array(64), [8, 8]), lo: new Tensor('float32', new Float32Array(8), [8]) })).rejects.toThrow(/must be a scalar/);
    await c.release();
    // Shapes that do not broadcast: the TS kernel's message.
    const add = buildModel({ opset: 13, inputs: [['a', 'float32', ['n']], ['b', 'float32', ['m']]], outputs: [['y', 'float32']], nodes: [{ op: 'Add', inputs: ['a', 'b'], outputs: ['y'] }] });
    const d = await InferenceSession.fromModel(add, { executionProviders: [new CpuExecutionProvider({ smallOpsInTs: false })] });
    await expect(d.run({ a: new Tensor('float32', new Float32Array(5), [5]), b: new Tensor('float32', new Float32Array(3), [3]) })).rejects.toThrow(/cannot be broadcast/);
    await d.release();
  });
});
