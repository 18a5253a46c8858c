/**
 * Small quantized CNNs built in the test, run by onnxruntime-node 1.30 and by the CPU EP (native int8 paths and
 * fusions at 'all'), compared output for output:
 *   - quantize_dynamic's form: both engines compute the same int32 convolutions and the same float steps,
 *     so the outputs must be identical (they are, on this machine at AVX-512 VNNI and at AVX2);
 *   - quantize_static's QDQ form: onnxruntime runs its own QDQ → QLinearConv transform with its own
 *     requantization; 8-bit outputs must agree within one step (measured identical here).
 */
import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor, encodeModel, type Model } from '@switchyard/core';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { tensor } from './test-models.test-util.js';
import { dynamicConvStack, dynamicLinear, qdqLinear, qdqResNetBlock } from './quantized-models.test-util.js';

const hasNative = new CpuExecutionProvider().nativeUnavailable === undefined;

async function both(build: () => Model, feeds: Record<string, Tensor>) {
  const session = await InferenceSession.fromModel(build(), { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: 'all' });
  const ours = (await session.run(feeds)).y as Tensor;
  const ops = session.placement.nodes.map((n) => n.opType);
  await session.release();
  const reference = await ort.InferenceSession.create(encodeModel(build()), { graphOptimizationLevel: 'all', intraOpNumThreads: 2, logSeverityLevel: 3 });
  const ortFeeds = Object.fromEntries(Object.entries(feeds).map(([k, v]) => [k, new ort.Tensor(v.type as 'float32', v.data as Float32Array, v.dims)]));
  const theirs = (await reference.run(ortFeeds)).y;
  await reference.release();
  expect(ours.dims).toEqual(theirs.dims);
  const a = ours.data as ArrayLike<number>;
  const b = theirs.data as ArrayLike<number>;
  let max = 0;
  let count = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (d > 0) count++;
    max = Math.max(max, d);
  }
  return { max, count, size: a.length, ops };
}

describe.skipIf(!hasNative)('quantized CNNs: the CPU EP vs onnxruntime-node', () => {
  it('quantize_dynamic conv stack (uint8 weights): identical to onnxruntime', async () => {
    const build = dynamicConvStack({ layers: 3, channels: 16, size: 16, weightType: 'uint8', scaleShape: 'tensor' });
    const r = await both(build, { x: tensor([1, 16, 16, 16], 11, -2, 3) });
    expect(r.ops.filter((o) => o === 'DynamicQuantizedConv')).toHaveLength(3);
    expect(r.max).toBe(0);
  });

  it('quantize_dynamic Linear (MatMulInteger, per-column scales, bias): identical to onnxruntime', async () => {
    const r = await both(dynamicLinear([3, 7, 64], 32), { a: tensor([3, 7, 64], 12, -3, 3) });
    expect(r.ops).toEqual(['DynamicQuantizedMatMul']);
    expect(r.max).toBe(0);
  });

  it('quantize_static QDQ ResNet block: 8-bit outputs within one step of onnxruntime (its own QDQ fusion)', async () => {
    const r = await both(qdqResNetBlock(16, 12, 'uint8', true), { x: tensor([1, 16, 12, 12], 13, -1, 1) });
    expect(r.ops.filter((o) => o === 'QuantizedConv')).toHaveLength(2);
    expect(r.max).toBeLessThanOrEqual(2);
    expect(r.count / r.size).toBeLessThan(0.05);
  });

  it('quantize_static QDQ Linear layers (MatMul + Add, Gemm transB): 8-bit outputs within one step', async () => {
    for (const kind of ['matmul', 'gemm'] as const) {
      const r = await both(qdqLinear(kind, 16, 64, 40, true), { x: tensor([16, 64], 14, -2, 2) });
      expect(r.ops).toContain('QuantizedMatMul');
      expect(r.max, kind).toBeLessThanOrEqual(1);
      expect(r.count / r.size).toBeLessThan(0.05);
    }
  });
});
