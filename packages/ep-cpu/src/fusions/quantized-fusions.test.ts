/**
 * The quantized fusions on models written the way onnxruntime's quantizers write them, each run at every
 * optimization level against 'disabled':
 *   - the dynamic-quantization fusion must give identical outputs (it repeats the graph's float steps);
 *   - the QDQ fusion is not bit-exact (exact int8 sums vs rounded float sums, one rounded multiplier):
 *     its 8-bit outputs may differ by one step next to a rounding boundary, and the test bounds that.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, type GraphOptimizationLevel, type Model } from '@switchyard/core';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { compareLevels, tensor } from './test-models.test-util.js';
import { buildModel } from '@switchyard/core/testing';
import { dynamicConvStack, dynamicLinear, f32, ints, qdqLinear, qdqResNetBlock } from './quantized-models.test-util.js';

const hasNative = new CpuExecutionProvider().nativeUnavailable === undefined;
const LEVELS: GraphOptimizationLevel[] = ['basic', 'extended', 'all'];

async function runAt(build: () => Model, feeds: Record<string, Tensor>, level: GraphOptimizationLevel) {
  const session = await InferenceSession.fromModel(build(), { executionProviders: [new CpuExecutionProvider({ smallOpsInTs: false })], graphOptimizationLevel: level });
  try {
    const out = await session.run(feeds);
    return {
      y: out.y as Tensor,
      ops: session.placement.nodes.map((n) => (n.domain ? `${n.domain}::${n.opType}` : n.opType)),
      implementations: session.placement.nodes.map((n) => n.implementation),
      attributes: session.model.graph.nodes.map((n) => n.attributes),
    };
  } finally {
    await session.release();
  }
}

/** Largest |a - b| over two tensors of one shape, and how many elements differ. */
function difference(a: Tensor, b: Tensor): { max: number; count: number } {
  expect(a.dims).toEqual(b.dims);
  expect(a.type).toBe(b.type);
  const x = a.data as ArrayLike<number>;
  const y = b.data as ArrayLike<number>;
  let max = 0;
  let count = 0;
  for (let i = 0; i < x.length; i++) {
    const d = Math.abs(x[i] - y[i]);
    if (d > 0) count++;
    max = Math.max(max, d);
  }
  return { max, count };
}

describe.skipIf(!hasNative)('quantized fusions', () => {
  it('dynamic quantization: a conv stack (uint8 weights, per-tensor zero point) fuses into DynamicQuantizedConv (Relu too), outputs identical', async () => {
    const build = dynamicConvStack({ layers: 3, channels: 16, size: 14, weightType: 'uint8', scaleShape: 'tensor' });
    const r = await compareLevels(build, { x: tensor([1, 16, 14, 14], 1, -2, 3) }, { tol: 0 });
    expect(r.maxAbsDiff).toBe(0);
    expect(r.fired).toContain('cpu:dynamic-quantize-fusion');
    // Every DynamicQuantizeLinear, ConvInteger, Cast, Mul, Add and Relu folded in.
    expect(r.ops).toEqual(Array(3).fill('com.switchyard::DynamicQuantizedConv'));
  });

  it('dynamic quantization: int8 weights with per-channel scales, a symbolic batch, every level equals disabled', async () => {
    const build = dynamicConvStack({ layers: 2, channels: 8, inputChannels: 3, size: 11, weightType: 'int8', batch: 'N' });
    const x = tensor([2, 3, 11, 11], 2, -1, 1);
    const reference = await runAt(build, { x }, 'disabled');
    for (const level of LEVELS) {
      const r = await runAt(build, { x }, level);
      expect(difference(r.y, reference.y).max, level).toBe(0);
      if (level === 'all') {
        expect(r.ops.filter((o) => o.endsWith('DynamicQuantizedConv'))).toHaveLength(2);
        expect(r.implementations[r.ops.indexOf('com.switchyard::DynamicQuantizedConv')]).toBe('onednn');
      }
    }
  });

  it('dynamic quantization: a scale that broadcasts along W (not per channel) is left unfused and still agrees', async () => {
    const build = dynamicConvStack({ layers: 1, channels: 8, size: 8, weightType: 'int8', scaleShape: 'lastAxis' });
    const r = await compareLevels(build, { x: tensor([1, 8, 8, 8], 3) }, { tol: 0 });
    expect(r.ops).toContain('ConvInteger');
    expect(r.ops).not.toContain('com.switchyard::DynamicQuantizedConv');
  });

  it('dynamic quantization: MatMulInteger with per-column scales and a bias fuses into DynamicQuantizedMatMul, outputs identical', async () => {
    const r = await compareLevels(dynamicLinear([2, 6, 40], 24), { a: tensor([2, 6, 40], 4, -3, 3) }, { tol: 0 });
    expect(r.ops).toEqual(['com.switchyard::DynamicQuantizedMatMul']);
    expect(r.implementations).toEqual(['onednn']);
  });

  it('QDQ: a ResNet block becomes two QuantizedConvs and a QuantizedAdd (Relus folded), within two quantization steps of the unfused graph', async () => {
    for (const type of ['uint8', 'int8'] as const) {
      const build = qdqResNetBlock(16, 12, type, true);
      const x = tensor([1, 16, 12, 12], 5, -1, 1);
      const reference = await runAt(build, { x }, 'disabled');
      for (const level of LEVELS) {
        const r = await runAt(build, { x }, level);
        const d = difference(r.y, reference.y);
        // The block's output goes through two requantized convs and a residual Add: a one-step difference in
        // the first conv can move the second by a step, and the sum's Q by one more.
        expect(d.max, `${type} ${level}`).toBeLessThanOrEqual(2);
        expect(d.count / r.y.size, `${type} ${level}: share of elements that differ`).toBeLessThan(0.05);
        if (level === 'all') {
          expect(r.ops).toEqual(['QuantizeLinear', 'com.switchyard::QuantizedConv', 'com.switchyard::QuantizedConv', 'com.switchyard::QuantizedAdd']);
          const reluAttrs = r.attributes.map((a) => a.get('relu')).filter(Boolean);
          // conv1 (Relu folded), conv2 (none), the residual add (its Relu folded).
          expect(reluAttrs.map((a) => (a as { value: number }).value)).toEqual([1, 0, 1]);
        }
      }
    }
  });

  it('QDQ: MatMul + bias Add and Gemm (transB, C) become QuantizedMatMul, each output within one step', async () => {
    for (const [kind, relu] of [['matmul', false], ['matmul', true], ['gemm', false], ['gemm', true]] as const) {
      const build = qdqLinear(kind, 20, 48, 36, relu);
      const x = tensor([20, 48], 6, -2, 2);
      const reference = await runAt(build, { x }, 'disabled');
      const fused = await runAt(build, { x }, 'all');
      expect(fused.ops).toEqual(['QuantizeLinear', 'com.switchyard::QuantizedMatMul']);
      const d = difference(fused.y, reference.y);
      expect(d.max, `${kind} relu=${relu}`).toBeLessThanOrEqual(1);
      expect(d.count / fused.y.size).toBeLessThan(0.05);
    }
  });

  it('QDQ residual: DQ + DQ → Add → Relu → Q becomes QuantizedAdd with outputs identical to the unfused graph', async () => {
    const build = () =>
      buildModel({
        inputs: [['a', 'uint8', [1, 8, 6, 6]], ['b', 'int8', [1, 8, 6, 6]]],
        outputs: [['y', 'uint8', [1, 8, 6, 6]]],
        initializers: { as: f32([0.031], []), az: new Tensor('uint8', Uint8Array.of(120), []), bs: f32([0.017], []), bz: new Tensor('int8', Int8Array.of(-4), []), ys: f32([0.05], []), yz: new Tensor('uint8', Uint8Array.of(0), []) },
        nodes: [
          { op: 'DequantizeLinear', inputs: ['a', 'as', 'az'], outputs: ['af'] },
          { op: 'DequantizeLinear', inputs: ['b', 'bs', 'bz'], outputs: ['bf'] },
          { op: 'Add', inputs: ['af', 'bf'], outputs: ['s'] },
          { op: 'Relu', inputs: ['s'], outputs: ['r'] },
          { op: 'QuantizeLinear', inputs: ['r', 'ys', 'yz'], outputs: ['y'] },
        ],
        opset: 13,
      });
    const feeds = { a: ints('uint8', [1, 8, 6, 6], 1, 0, 255), b: ints('int8', [1, 8, 6, 6], 2, -128, 127) };
    const reference = await runAt(build, feeds, 'disabled');
    const fused = await runAt(build, feeds, 'all');
    expect(fused.ops).toEqual(['com.switchyard::QuantizedAdd']);
    expect(fused.implementations).toEqual(['onednn']);
    expect(difference(fused.y, reference.y).max).toBe(0);
  });

  it('QDQ with a float output: the fused block stays within a few output steps of the unfused graph', async () => {
    const build = qdqResNetBlock(8, 10, 'uint8', false);
    const x = tensor([1, 8, 10, 10], 7, -1, 1);
    const reference = await runAt(build, { x }, 'disabled');
    const fused = await runAt(build, { x }, 'all');
    expect(difference(fused.y, reference.y).max).toBeLessThanOrEqual(2 * 0.04 + 1e-6);
  });
});
