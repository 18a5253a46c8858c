import { describe, expect, it } from 'vitest';
import { Tensor, inferShapes } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { nativeHipBinding } from '@switchyard/native-hip';
import { concreteGraph } from '../rocm-partition.js';
import { buildPlanDescription } from './plan-description.js';
import { MIN_SPLIT_MACS, roundTf32, splitWeights } from './split-tf32.js';

function seeded(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32 - 0.5) * 8;
  });
}
const bitsOf = (x: number) => new Uint32Array(Float32Array.of(x).buffer)[0];

describe('3xTF32 split', () => {
  it('rounds to TF32 to nearest, ties to even, leaving inf and NaN alone', () => {
    expect(roundTf32(1 + 2 ** -11)).toBe(1); // a tie, to the even neighbour
    expect(roundTf32(1 + 3 * 2 ** -11)).toBe(1 + 2 ** -9); // a tie, to the even neighbour above
    expect(roundTf32(1 + 2 ** -11 + 2 ** -20)).toBe(1 + 2 ** -10);
    expect(roundTf32(-1.5)).toBe(-1.5);
    expect(roundTf32(Infinity)).toBe(Infinity);
    expect(roundTf32(NaN)).toBeNaN();
  });

  it('splits weights into exact TF32 parts whose sum is the weight to 2^-21', () => {
    const k = 7;
    const n = 5;
    const b = seeded(k * n, 3);
    const b3 = splitWeights(b);
    expect(b3.length).toBe(3 * k * n);
    for (let i = 0; i < k * n; i++) {
      const [lo, hi, hi2] = [b3[i], b3[k * n + i], b3[2 * k * n + i]];
      expect(hi2).toBe(hi);
      expect(bitsOf(hi) & 0x1fff).toBe(0);
      expect(bitsOf(lo) & 0x1fff).toBe(0);
      expect(Math.abs(b[i] - hi - lo)).toBeLessThanOrEqual(2 ** -21 * Math.abs(b[i]));
      expect(Math.abs(b[i] - hi)).toBeGreaterThan(0); // seeded values need more than 11 bits
    }
  });

  it('three TF32 products of the parts give A·B to fp32 accuracy, where one gives ~1e-4', () => {
    const [m, k, n] = [6, 64, 4];
    const a = seeded(m * k, 5);
    const b = seeded(k * n, 6);
    const b3 = splitWeights(b);
    let worst3 = 0;
    let worst1 = 0;
    for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
      let exact = 0;
      let scale = 0;
      let three = 0;
      let one = 0;
      for (let p = 0; p < k; p++) {
        const x = a[i * k + p];
        const hi = roundTf32(x);
        const lo = roundTf32(Math.fround(x - hi));
        exact += x * b[p * n + j];
        scale += Math.abs(x * b[p * n + j]);
        three += hi * b3[p * n + j] + lo * b3[(k + p) * n + j] + hi * b3[(2 * k + p) * n + j];
        one += hi * roundTf32(b[p * n + j]);
      }
      worst3 = Math.max(worst3, Math.abs(three - exact) / scale);
      worst1 = Math.max(worst1, Math.abs(one - exact) / scale);
    }
    expect(worst3).toBeLessThan(1e-6);
    expect(worst1).toBeGreaterThan(1e-5);
  });
});

function describeLinear(m: number, k: number, n: number, options: { splitTf32?: boolean; fp16?: boolean; shareWeight?: boolean } = {}) {
  const model = buildModel({
    inputs: [['x', 'float32', [m, k]]],
    outputs: [['y', 'float32'], ...(options.shareWeight ? [['z', 'float32'] as ['z', 'float32']] : [])],
    initializers: { w: new Tensor('float32', seeded(k * n, 9), [k, n]), b: new Tensor('float32', seeded(n, 10), [n]) },
    nodes: [
      { op: 'MatMul', inputs: ['x', 'w'], outputs: ['h'], name: 'matmul' },
      { op: 'Add', inputs: ['h', 'b'], outputs: ['y'], name: 'bias' },
      ...(options.shareWeight ? [{ op: 'Relu', inputs: ['w'], outputs: ['z'], name: 'other' }] : []),
    ],
    opset: 17,
  });
  inferShapes(model.graph);
  const outputNames = options.shareWeight ? ['y', 'z'] : ['y'];
  const p = { name: 'p', graph: model.graph, nodes: model.graph.nodes, inputNames: ['x'], outputNames };
  const g = concreteGraph(p, [Tensor.zeros('float32', [m, k])]);
  return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: options.fp16 ?? false, matmulBiasFold: true, splitTf32: options.splitTf32 ?? true });
}

const native = nativeHipBinding();
const nativeSplit = native.ok ? (native.binding as { planSplitTf32?: (w: Float32Array) => Float32Array }).planSplitTf32 : undefined;

// The addon builds on CI's machine (for AMD, no GPU needed for this host function), so this runs there.
describe.runIf(nativeSplit !== undefined)('native-hip planSplitTf32', () => {
  it('gives the same bits as the JS split, special values and a multi-threaded size included', () => {
    const special = Float32Array.of(0, -0, 1, -1.5, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 3.4028234663852886e38, -3.4028234663852886e38, 1e-40, -1e-45, Infinity, -Infinity, NaN);
    const big = seeded(3 * 2 ** 20 + 7, 17);
    for (const w of [special, big, new Float32Array(0)]) {
      const got = nativeSplit!(w);
      const want = splitWeights(w);
      expect(got.length).toBe(3 * w.length);
      expect(Buffer.from(got.buffer, got.byteOffset, got.byteLength).equals(Buffer.from(want.buffer, want.byteOffset, want.byteLength))).toBe(true);
    }
  });

  it('takes only a Float32Array', () => {
    expect(() => (nativeSplit as unknown as (w: unknown) => unknown)(new Float64Array(2))).toThrow(/must be a Float32Array/);
    expect(() => (nativeSplit as unknown as (w: unknown) => unknown)([1, 2])).toThrow(/must be a Float32Array/);
  });
});

describe('large float32 Linear layers as MatMulSplitTf32', () => {
  it('replaces the weight by its split and gives the step its activation workspace', () => {
    expect(1024 * 1024 * 1024).toBe(MIN_SPLIT_MACS);
    const d = describeLinear(1024, 1024, 1024);
    const step = d.steps.find((s) => s.op === 'MatMulSplitTf32')!;
    expect(step).toBeDefined();
    const [x, b3, bias] = step.inputs;
    expect(d.buffers[x].dims).toEqual([1024, 1024]);
    expect(d.buffers[b3].dims).toEqual([3072, 1024]);
    expect(d.buffers[bias].dims).toEqual([1024]);
    expect(step.workspace?.bytes).toBe(1024 * 3072 * 4);
    // The weight itself is no longer uploaded; its split is.
    const uploaded = d.constants.map((c) => d.buffers[c.buffer].name);
    expect(uploaded).toContain(`${d.buffers[b3].name}`);
    expect(uploaded).not.toContain('w');
    const b3Data = d.constants.find((c) => c.buffer === b3)!.data as Float32Array;
    expect(b3Data.subarray(1024 * 1024, 1024 * 1024 + 4)).toEqual(splitWeights(seeded(1024 * 1024, 9)).subarray(1024 * 1024, 1024 * 1024 + 4));
    // The workspace lies inside the arena.
    expect(step.workspace!.offset + step.workspace!.bytes).toBeLessThanOrEqual(d.arenaBytes);
  });

  it('keeps a weight another step reads', () => {
    const d = describeLinear(1024, 1024, 1024, { shareWeight: true });
    expect(d.steps.some((s) => s.op === 'MatMulSplitTf32')).toBe(true);
    expect(d.constants.map((c) => d.buffers[c.buffer].name)).toContain('w');
  });

  it('leaves smaller products, float16 plans and plans built without the option alone', () => {
    expect(describeLinear(512, 1024, 1024).steps.map((s) => s.op)).toEqual(['MatMulBias']);
    expect(describeLinear(1024, 1024, 1024, { splitTf32: false }).steps.map((s) => s.op)).toEqual(['MatMulBias']);
    expect(describeLinear(1024, 1024, 1024, { fp16: true }).steps.map((s) => s.op)).not.toContain('MatMulSplitTf32');
  });
});

describe('a Gemm that is a Linear layer', () => {
  function describeGemm(attributes: Record<string, number>) {
    const [m, k, n] = [1024, 1024, 1024];
    const model = buildModel({
      inputs: [['x', 'float32', [m, k]]],
      outputs: [['y', 'float32']],
      initializers: { w: new Tensor('float32', seeded(k * n, 9), [k, n]), c: new Tensor('float32', seeded(n, 10), [n]) },
      nodes: [{ op: 'Gemm', inputs: ['x', 'w', 'c'], outputs: ['y'], name: 'gemm', attributes }],
      opset: 17,
    });
    inferShapes(model.graph);
    const p = { name: 'p', graph: model.graph, nodes: model.graph.nodes, inputNames: ['x'], outputNames: ['y'] };
    const g = concreteGraph(p, [Tensor.zeros('float32', [m, k])]);
    return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false, splitTf32: true });
  }

  it('splits with its C as the bias, and keeps transposed or scaled ones', () => {
    const d = describeGemm({});
    expect(d.steps.map((s) => s.op)).toEqual(['MatMulSplitTf32']);
    expect(d.steps[0].attrs).toEqual([]);
    expect(d.buffers[d.steps[0].inputs[2]].dims).toEqual([1024]);
    expect(describeGemm({ transB: 1 }).steps.map((s) => s.op)).toEqual(['Gemm']);
    expect(describeGemm({ alpha: 2.5 }).steps.map((s) => s.op)).toEqual(['Gemm']);
    expect(describeGemm({ beta: 0.5 }).steps.map((s) => s.op)).toEqual(['Gemm']);
  });
});
