// The demo model end to end: Switchyard's output for the committed input must match PyTorch's
// output (tiny-cnn.expected.npy, written by generate.py), whichever providers take the nodes.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { readNpy, registerBundledProviders } from '@switchyard/cli';

const here = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));
const modelPath = here('tiny-cnn.onnx');
const input = readNpy(here('tiny-cnn.input.npy'));
const expected = readNpy(here('tiny-cnn.expected.npy'));

// float32 through different summation orders (oneDNN, GPU kernels) vs PyTorch: agreement to a few
// ulps is expected; a wrong kernel is off by far more (the probabilities spread from 0.003 to 0.76).
const ATOL = 1e-5;
const RTOL = 1e-4;

function expectClose(actual: Tensor, reference: Tensor): void {
  expect(actual.type).toBe('float32');
  expect(actual.dims).toEqual(reference.dims);
  const a = actual.data as Float32Array;
  const r = reference.data as Float32Array;
  for (let i = 0; i < r.length; i++) {
    const limit = ATOL + RTOL * Math.abs(r[i]);
    if (!(Math.abs(a[i] - r[i]) <= limit)) {
      throw new Error(`probabilities[${i}] = ${a[i]}, PyTorch gave ${r[i]} (allowed difference ${limit})`);
    }
  }
}

describe('examples/models reference data', () => {
  it('has the documented shapes and a distribution as the expected output', () => {
    expect(input.type).toBe('float32');
    expect(input.dims).toEqual([1, 3, 32, 32]);
    expect(expected.type).toBe('float32');
    expect(expected.dims).toEqual([1, 10]);
    const p = Array.from(expected.data as Float32Array);
    expect(p.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 5);
    // Far from uniform, so the comparison below can tell kernels apart.
    expect(Math.max(...p)).toBeGreaterThan(0.5);
  });
});

describe.each([
  ['cpu only', ['cpu']],
  ['the demo order', ['rocm', 'migraphx', 'cpu']],
])('tiny-cnn.onnx with %s', (_label, executionProviders) => {
  let session: InferenceSession;

  beforeAll(async () => {
    registerBundledProviders();
    session = await InferenceSession.create(modelPath, { executionProviders });
  });
  afterAll(async () => {
    await session?.release();
  });

  it('names its input and output as the generator does', () => {
    expect(session.inputNames).toEqual(['input']);
    expect(session.outputNames).toEqual(['probabilities']);
  });

  it("matches PyTorch's output for the committed input", async () => {
    const outputs = await session.run({ input });
    const probabilities = outputs.probabilities;
    expect(probabilities).toBeInstanceOf(Tensor);
    expectClose(probabilities as Tensor, expected);
  });
});
