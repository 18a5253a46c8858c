/**
 * The native Softmax (softmax-native.ts), LayerNormalization (oneDNN, and group-norm-native.ts) and RMSNormalization
 * (rms-norm-native.ts) against the TS kernels, one-node models through a session.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel, type NodeSpec } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const hasNative =
  native.ok && typeof native.binding.softmax === 'function' && typeof native.binding.layerNormRows === 'function' &&
  new CpuExecutionProvider().nativeUnavailable === undefined;

const data = (n: number, seed: number, scale: number, offset = 0) => seededFloats(n, seed, scale, offset);
const t = (dims: number[], seed: number, scale = 1, offset = 0) => new Tensor('float32', data(dims.reduce((a, b) => a * b, 1), seed, scale, offset), dims);

interface Case {
  node: NodeSpec;
  inputs: Record<string, Tensor>;
  opset?: number;
  outputs?: string[];
}

async function run(c: Case, useNative: boolean) {
  const outputs = c.outputs ?? ['y'];
  const model = buildModel({
    opset: c.opset,
    inputs: Object.entries(c.inputs).map(([n, v]) => [n, 'float32', [...v.dims]]),
    outputs: outputs.map((n) => [n, 'float32']),
    nodes: [c.node],
  });
  const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider({ useNative, smallOpsInTs: false })], graphOptimizationLevel: 'disabled' });
  const implementation = s.placement.nodes[0].implementation;
  const result = (await s.run(c.inputs)) as Record<string, Tensor>;
  await s.release();
  return { implementation, result };
}

function expectSame(a: Tensor, b: Tensor, tol: number): void {
  expect(a.dims).toEqual(b.dims);
  const x = a.data as Float32Array;
  const y = b.data as Float32Array;
  for (let i = 0; i < y.length; i++) {
    if (!(Math.abs(x[i] - y[i]) <= tol * (1 + Math.abs(y[i])))) throw new Error(`element ${i}: onednn ${x[i]}, ts ${y[i]}`);
  }
}

async function compare(c: Case, expectImplementation: string, tol = 2e-6) {
  const fast = await run(c, true);
  const slow = await run(c, false);
  expect(fast.implementation).toBe(expectImplementation);
  expect(slow.implementation).toBe('ts');
  for (const name of Object.keys(slow.result)) expectSame(fast.result[name], slow.result[name], tol);
}

describe.skipIf(!hasNative)('native Softmax vs the TS kernel', () => {
  const x = t([2, 3, 17], 1, 8);
  it.each([
    { opset: 13, axis: -1 },
    { opset: 13, axis: 2 },
    { opset: 13, axis: 1 }, // not the last axis: a strided one
    { opset: 11, axis: 1 }, // flattens [3, 17] into one row
    { opset: 11, axis: -1 },
    { opset: 11, axis: 0 },
  ])('opset $opset axis $axis', async ({ opset, axis }) => {
    await compare({ opset, node: { op: 'Softmax', inputs: ['x'], outputs: ['y'], attributes: { axis } }, inputs: { x } }, 'native');
  });

  it('handles large logits without overflow', async () => {
    await compare({ node: { op: 'Softmax', inputs: ['x'], outputs: ['y'] }, inputs: { x: t([4, 64], 2, 80, 40) } }, 'native');
  });
});

describe.skipIf(!hasNative)('native LayerNormalization vs the TS kernel', () => {
  const x = t([2, 5, 48], 3, 2, 7); // an offset mean, as real activations have
  const scale = t([48], 4);
  const bias = t([48], 5);
  it('normalizes the last axis with Scale and B', async () => {
    await compare({ node: { op: 'LayerNormalization', inputs: ['x', 's', 'b'], outputs: ['y'], attributes: { epsilon: 1e-5 } }, inputs: { x, s: scale, b: bias } }, 'onednn', 1e-5);
  });

  it('normalizes from axis 1 (two dims at once), without B', async () => {
    const s2 = t([5, 48], 6);
    await compare({ node: { op: 'LayerNormalization', inputs: ['x', 's'], outputs: ['y'], attributes: { axis: 1 } }, inputs: { x, s: s2 } }, 'onednn', 1e-5);
  });

  it('leaves broadcast Scale and Mean/InvStdDev outputs to the native normalization (group-norm-native.ts) at creation', async () => {
    const s2 = t([48], 7);
    await compare({ node: { op: 'LayerNormalization', inputs: ['x', 's'], outputs: ['y'], attributes: { axis: 1 } }, inputs: { x, s: s2 } }, 'native', 1e-5);
    await compare(
      { node: { op: 'LayerNormalization', inputs: ['x', 's', 'b'], outputs: ['y', 'mean', 'inv'] }, inputs: { x, s: scale, b: bias }, outputs: ['y', 'mean', 'inv'] },
      'native',
      1e-5,
    );
  });
});

describe.skipIf(!hasNative || typeof native.binding.rmsNormRows !== 'function')('native RMSNormalization vs the TS kernel', () => {
  const x = t([2, 5, 48], 13, 2, 1);
  it('normalizes the last axis (ai.onnx, opset 23)', async () => {
    await compare({ opset: 23, node: { op: 'RMSNormalization', inputs: ['x', 's'], outputs: ['y'], attributes: { epsilon: 1e-6 } }, inputs: { x, s: t([48], 14) } }, 'native', 1e-5);
  });

  it('normalizes from axis 1 (two dims at once)', async () => {
    await compare({ opset: 23, node: { op: 'RMSNormalization', inputs: ['x', 's'], outputs: ['y'], attributes: { axis: 1 } }, inputs: { x, s: t([5, 48], 15) } }, 'native', 1e-5);
  });

  it('leaves a Scale that broadcasts along the normalized axes to the TS kernel at run time', async () => {
    const fast = await run({ opset: 23, node: { op: 'RMSNormalization', inputs: ['x', 's'], outputs: ['y'], attributes: { axis: 1 } }, inputs: { x, s: t([48], 16) } }, true);
    const slow = await run({ opset: 23, node: { op: 'RMSNormalization', inputs: ['x', 's'], outputs: ['y'], attributes: { axis: 1 } }, inputs: { x, s: t([48], 16) } }, false);
    expectSame(fast.result.y, slow.result.y, 1e-6);
  });
});

/** Plain-JS references, computed in float64, for the direct calls below. */
function softmaxRef(x: Float32Array, rows: number, cols: number): Float64Array {
  const y = new Float64Array(x.length);
  for (let r = 0; r < rows; r++) {
    const row = x.subarray(r * cols, (r + 1) * cols);
    const max = Math.max(...row);
    let sum = 0;
    for (let c = 0; c < cols; c++) sum += y[r * cols + c] = Math.exp(row[c] - max);
    for (let c = 0; c < cols; c++) y[r * cols + c] /= sum;
  }
  return y;
}

function layerNormRef(x: Float32Array, scale: Float32Array, bias: Float32Array | null, rows: number, cols: number, epsilon: number): Float64Array {
  const y = new Float64Array(x.length);
  for (let r = 0; r < rows; r++) {
    const row = x.subarray(r * cols, (r + 1) * cols);
    const mean = row.reduce((a, v) => a + v, 0) / cols;
    const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / cols;
    for (let c = 0; c < cols; c++) y[r * cols + c] = ((row[c] - mean) / Math.sqrt(variance + epsilon)) * scale[c] + (bias ? bias[c] : 0);
  }
  return y;
}

function rmsNormRef(x: Float32Array, scale: Float32Array, rows: number, cols: number, epsilon: number): Float64Array {
  const y = new Float64Array(x.length);
  for (let r = 0; r < rows; r++) {
    const row = x.subarray(r * cols, (r + 1) * cols);
    const inv = 1 / Math.sqrt(row.reduce((a, v) => a + v * v, 0) / cols + epsilon);
    for (let c = 0; c < cols; c++) y[r * cols + c] = row[c] * inv * scale[c];
  }
  return y;
}

function expectClose(actual: Float32Array, expected: Float64Array, tol: number, what: string): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    if (!(Math.abs(actual[i] - expected[i]) <= tol * (1 + Math.abs(expected[i])))) throw new Error(`${what} element ${i}: ${actual[i]} vs ${expected[i]}`);
  }
}

// The addon caches built primitives per (rows, cols, threads, epsilon, bias): calls that alternate
// between them must each get their own primitive, never the previous call's.
describe.skipIf(!hasNative)('native row functions with alternating shapes (primitive cache)', () => {
  const b = native.ok ? native.binding : undefined;
  // Same element count with different splits, a different width, and more shapes than the cache keeps.
  const shapes: [number, number][] = [[2, 12], [12, 2], [4, 6], [1, 24], [3, 5], [24, 1], [6, 4], [8, 3], [2, 7], [1, 10]];

  it('softmax over rows', () => {
    for (let round = 0; round < 3; round++) {
      shapes.forEach(([rows, cols], i) => {
        const x = seededFloats(rows * cols, 10 + i, 6);
        const y = new Float32Array(rows * cols);
        b!.softmax!(x, y, rows, cols, 1, 'softmax', (i + round) % 2 ? 2 : 1);
        expectClose(y, softmaxRef(x, rows, cols), 1e-5, `[${rows}, ${cols}]`);
      });
    }
  });

  it('layerNormRows and skipLayerNormRows, alternating epsilon and bias', () => {
    const epsilons = [1e-5, 0.5, 3];
    for (let round = 0; round < 2; round++) {
      shapes.forEach(([rows, cols], i) => {
        const a = seededFloats(rows * cols, 30 + i, 2, 1);
        const a2 = seededFloats(rows * cols, 60 + i, 1);
        const scale = seededFloats(cols, 40 + i, 1, 1);
        const bias = (i + round) % 2 ? seededFloats(cols, 50 + i, 1) : null;
        const epsilon = epsilons[(i + round) % 3];
        const threads = round % 2 ? 2 : 1;
        const y = new Float32Array(rows * cols);
        b!.layerNormRows!(a, scale, bias, y, rows, cols, epsilon, threads);
        expectClose(y, layerNormRef(a, scale, bias, rows, cols, epsilon), 1e-4, `layerNorm [${rows}, ${cols}] eps ${epsilon}`);
        if (!b!.skipLayerNormRows) return;
        const sum = new Float32Array(rows * cols);
        b!.skipLayerNormRows(a, a2, scale, bias, y, sum, rows, cols, epsilon, threads);
        const s = a.map((v, k) => v + a2[k]);
        expectClose(sum, Float64Array.from(s), 1e-6, `skip sum [${rows}, ${cols}]`);
        expectClose(y, layerNormRef(s, scale, bias, rows, cols, epsilon), 1e-4, `skipLayerNorm [${rows}, ${cols}] eps ${epsilon}`);
      });
    }
  });

  it('rmsNormRows, alternating epsilon and threads, in place too', () => {
    shapes.forEach(([rows, cols], i) => {
      const x = seededFloats(rows * cols, 70 + i, 3, 1);
      const scale = seededFloats(cols, 80 + i, 1, 1);
      const epsilon = [1e-6, 0.5, 0][i % 3];
      const expected = rmsNormRef(x, scale, rows, cols, epsilon);
      const y = new Float32Array(rows * cols);
      b!.rmsNormRows!(x, scale, y, rows, cols, epsilon, i % 2 ? 2 : 1);
      expectClose(y, expected, 1e-5, `rmsNorm [${rows}, ${cols}] eps ${epsilon}`);
      b!.rmsNormRows!(x, scale, x, rows, cols, epsilon, 1);
      expectClose(x, expected, 1e-5, `rmsNorm in place [${rows}, ${cols}]`);
    });
  });

  it('keeps its argument errors', () => {
    const z = new Float32Array(6);
    expect(() => b!.rmsNormRows!(z, new Float32Array(3), z, 2, 3, -1)).toThrow('rmsNormRows: epsilon must be >= 0');
    expect(() => b!.rmsNormRows!(z, new Float32Array(2), z, 2, 3, 1e-6)).toThrow(/rmsNormRows: scale/);
    expect(() => b!.rmsNormRows!(z, new Float32Array(3), new Float32Array(5), 2, 3, 1e-6)).toThrow(/rmsNormRows: y/);
    const x = new Float32Array(6);
    expect(() => b!.softmax!(x, x, 2.5, 3, 1, 'softmax')).toThrow(/softmax: outer must be an integer/);
    expect(() => b!.softmax!(x, new Float32Array(5), 2, 3, 1, 'softmax')).toThrow(/softmax: y must have 6 elements/);
    expect(() => b!.layerNormRows!(x, new Float32Array(3), null, x, 2, 3, -1)).toThrow('layerNormRows: epsilon must be >= 0');
    expect(() => b!.layerNormRows!(x, new Float32Array(2), null, x, 2, 3, 1e-5)).toThrow(/layerNormRows: scale/);
  });
});
