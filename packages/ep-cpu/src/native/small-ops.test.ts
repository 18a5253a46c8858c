import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { SMALL_GEMM_MACS, SMALL_SOFTMAX_ELEMENTS } from './native-support.js';
import { seededFloats } from './test-data.test-util.js';

const hasNative = new CpuExecutionProvider().nativeUnavailable === undefined;

const filled = (dims: number[], seed: number) => new Tensor('float32', seededFloats(dims.reduce((a, b) => a * b, 1), seed), dims);

// x[m,k] → Gemm(W[n,k]ᵀ, b) → Softmax: the demo model's classifier head, at a given size.
function head(m: number, k: number, n: number): ModelSpec {
  return {
    inputs: [['x', 'float32', [m, k]]],
    outputs: [['y', 'float32']],
    initializers: { w: filled([n, k], 1), b: filled([n], 2) },
    nodes: [
      { op: 'Gemm', inputs: ['x', 'w', 'b'], outputs: ['g'], name: 'gemm', attributes: { transB: 1 } },
      { op: 'Softmax', inputs: ['g'], outputs: ['y'], name: 'softmax', attributes: { axis: -1 } },
    ],
    opset: 17,
  };
}

async function run(spec: ModelSpec, options: ConstructorParameters<typeof CpuExecutionProvider>[0]) {
  const s = await InferenceSession.fromModel(buildModel(spec), { executionProviders: [new CpuExecutionProvider(options)], graphOptimizationLevel: 'disabled' });
  const [m, k] = spec.inputs[0][2] as number[];
  const y = (await s.run({ x: filled([m, k], 3) })).y as Tensor;
  const implementations = Object.fromEntries(s.placement.nodes.map((n) => [n.name, n.implementation]));
  await s.release();
  return { y: y.data as Float32Array, implementations };
}

describe.skipIf(!hasNative)('small Gemm and Softmax problems run in TypeScript', () => {
  it('leaves a classifier head below the sizes to the TS kernels, and the same head larger to the addon', async () => {
    expect(1 * 64 * 10).toBeLessThan(SMALL_GEMM_MACS);
    expect(10).toBeLessThan(SMALL_SOFTMAX_ELEMENTS);
    expect((await run(head(1, 64, 10), {})).implementations).toEqual({ gemm: 'ts', softmax: 'ts' });
    // The larger head's 4 static rows go to the addon's skinny Gemm kernel.
    expect((await run(head(4, 256, 128), {})).implementations).toEqual({ gemm: 'skinny', softmax: 'native' });
  });

  it('sends every size to the addon with smallOpsInTs: false, with the same results', async () => {
    const native = await run(head(1, 64, 10), { smallOpsInTs: false });
    expect(native.implementations).toEqual({ gemm: 'skinny', softmax: 'native' });
    const ts = await run(head(1, 64, 10), {});
    native.y.forEach((v, i) => expect(v).toBeCloseTo(ts.y[i], 6));
  });
});
