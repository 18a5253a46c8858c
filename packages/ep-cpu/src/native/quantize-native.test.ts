/**
 * The native QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear against the TS kernels: the
 * outputs must be identical bit for bit (ties rounded to even, saturation, NaN, per-axis parameters),
 * on both dispatch paths (inline and the oneDNN thread), and bad arguments must give coded errors.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, type KernelDef } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';
import { nativeQuantizeKernels } from './quantize-native.js';
import { quantizeLinearKernel } from '../kernels/QuantizeLinear.js';
import { dequantizeLinearKernel } from '../kernels/DequantizeLinear.js';
import { dynamicQuantizeLinearKernel } from '../kernels/DynamicQuantizeLinear.js';
import { quantizedAddKernel } from '../kernels/QuantizedAdd.js';
import { firstDifference, randomFloats, randomInts, rng, runDef, scalarTensor, type HarnessOptions } from './int8-harness.test-util.js';
import { SYNC_ELEMENT_LIMIT } from './native-support.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok ? native.binding : undefined;
const defs = binding ? nativeQuantizeKernels(binding) : [];
const def = (op: string) => defs.find((d) => d.opType === op)!;

async function expectSame(nativeDef: KernelDef, tsDef: KernelDef, inputs: Array<Tensor | undefined>, opts: HarnessOptions = {}) {
  const fast = await runDef(nativeDef, inputs, opts);
  const slow = await runDef(tsDef, inputs, opts);
  expect(fast.implementation).toBe('onednn');
  expect(fast.outputs.length).toBe(slow.outputs.length);
  for (let i = 0; i < fast.outputs.length; i++) {
    const at = firstDifference(fast.outputs[i], slow.outputs[i]);
    if (at >= 0) throw new Error(`output ${i}[${at}]: native ${(fast.outputs[i].data as ArrayLike<number>)[at]}, ts ${(slow.outputs[i].data as ArrayLike<number>)[at]}`);
  }
  return fast.outputs;
}

/** Floats that exercise the rounding: exact ties (k + 0.5) · scale, values past saturation, zeros, NaN and ±Inf. */
function trickyFloats(dims: number[], scale: number, seed: number): Tensor<'float32'> {
  const t = randomFloats(dims, seed, -300 * scale, 300 * scale);
  const next = rng(seed + 1);
  const d = t.data;
  for (let i = 0; i < d.length; i++) {
    const r = next();
    if (r < 0.3) d[i] = (Math.floor(next() * 600) - 300 + 0.5) * scale;
    else if (r < 0.32) d[i] = 0;
    else if (r < 0.33) d[i] = [NaN, Infinity, -Infinity, -0][Math.floor(next() * 4)];
  }
  return t;
}

function finite(t: Tensor<'float32'>): Tensor<'float32'> {
  for (let i = 0; i < t.data.length; i++) if (!Number.isFinite(t.data[i])) t.data[i] = 0.25;
  return t;
}

describe.skipIf(!binding)('native quantize ops vs the TS kernels', () => {
  it('QuantizeLinear per tensor, uint8 and int8, zero point absent or not, ties to even, saturation, NaN', async () => {
    for (const [type, zp] of [['uint8', 128], ['int8', -3], ['uint8', undefined], ['int8', 0]] as const) {
      const scale = 0.037;
      const x = trickyFloats([3, 5, 7, 11], scale, 7);
      const z = zp === undefined ? undefined : scalarTensor(type, zp);
      const [y] = await expectSame(def('QuantizeLinear'), quantizeLinearKernel, [x, scalarTensor('float32', scale), z], { opset: 13 });
      expect(y.type).toBe(zp === undefined ? 'uint8' : type);
    }
  });

  it('QuantizeLinear per axis on every axis (opset 13), per-tensor zero point beside per-axis scales', async () => {
    const dims = [2, 6, 5, 9];
    for (let axis = -1; axis < dims.length; axis++) {
      const channels = dims[axis < 0 ? axis + dims.length : axis];
      const scales = randomFloats([channels], 30 + axis, 0.01, 0.2);
      for (const type of ['uint8', 'int8'] as const) {
        const zps = randomInts(type, [channels], 40 + axis, type === 'uint8' ? 0 : -20, type === 'uint8' ? 255 : 20);
        const x = trickyFloats(dims, 0.05, 50 + axis);
        await expectSame(def('QuantizeLinear'), quantizeLinearKernel, [x, scales, zps], { opset: 13, attributes: { axis } });
        await expectSame(def('QuantizeLinear'), quantizeLinearKernel, [x, scales, scalarTensor(type, 7)], { opset: 13, attributes: { axis } });
      }
    }
  });

  it('DequantizeLinear per tensor and per axis for uint8, int8 and int32', async () => {
    const dims = [3, 4, 17];
    for (const type of ['uint8', 'int8', 'int32'] as const) {
      const x = randomInts(type, dims, 3);
      await expectSame(def('DequantizeLinear'), dequantizeLinearKernel, [x, scalarTensor('float32', 0.0123), type === 'int32' ? undefined : randomInts(type, [1], 4)], { opset: 13 });
      for (const axis of [0, 1, 2, -1]) {
        const channels = dims[axis < 0 ? axis + dims.length : axis];
        await expectSame(def('DequantizeLinear'), dequantizeLinearKernel, [x, randomFloats([channels], 5 + axis, 0.001, 3), randomInts(type, [channels], 6 + axis, -100, 100)], { opset: 13, attributes: { axis } });
      }
    }
    // int32 values far from their zero point (differences past 2^24 round once, as in the TS kernel).
    const big = new Tensor('int32', Int32Array.of(2147483647, -2147483648, 16777217, -16777219, 3), [5]);
    await expectSame(def('DequantizeLinear'), dequantizeLinearKernel, [big, scalarTensor('float32', 0.3), new Tensor('int32', Int32Array.of(-5), [])], { opset: 13 });
  });

  it('DynamicQuantizeLinear: scale and zero point from the range, every rounding as the spec computes it', async () => {
    const cases: Tensor<'float32'>[] = [
      randomFloats([2, 3, 50, 50], 1, -1.7, 4.2),
      randomFloats([1000], 2, 0.5, 9), // all positive: min is 0
      randomFloats([999], 3, -9, -0.25), // all negative: max is 0
      new Tensor('float32', new Float32Array(64), [64]), // all zero: scale 0
      new Tensor('float32', Float32Array.of(0, 2, -3, -2.5, 1.34, 0.5), [6]), // the ONNX reference's example
      finite(trickyFloats([4, 33], 0.02, 9)), // ties and zeros (NaN/Inf replaced: they make the whole range infinite)
      trickyFloats([5, 7], 0.02, 10), // NaN and infinities too: the TS kernel's comparisons skip NaN
    ];
    for (const x of cases) await expectSame(def('DynamicQuantizeLinear'), dynamicQuantizeLinearKernel, [x], { outputs: 3 });
  });

  it('serves models of opsets 10, 13 and 19 (QuantizeLinear → DequantizeLinear in a session)', async () => {
    for (const opset of [10, 13, 19]) {
      const model = buildModel({
        inputs: [['x', 'float32', [2, 3, 4]]],
        outputs: [['y', 'float32', [2, 3, 4]]],
        initializers: { s: scalarTensor('float32', 0.05), z: scalarTensor('int8', -3) },
        nodes: [
          { op: 'QuantizeLinear', inputs: ['x', 's', 'z'], outputs: ['q'] },
          { op: 'DequantizeLinear', inputs: ['q', 's', 'z'], outputs: ['y'] },
        ],
        opset,
      });
      const session = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()] });
      expect(session.placement.nodes.map((n) => n.implementation), `opset ${opset}`).toEqual(['onednn', 'onednn']);
      const x = randomFloats([2, 3, 4], opset, -8, 8);
      const y = (await session.run({ x })).y as Tensor;
      await session.release();
      const q = (v: number) => Math.min(127, Math.max(-128, Math.round(v / 0.05) - 3)); // no ties in these values
      expect(Array.from(y.data as Float32Array)).toEqual(Array.from(x.data, (v) => Math.fround((q(v) + 3) * Math.fround(0.05))));
    }
  });

  it('QuantizedAdd (the QDQ residual add): identical bytes for every type mix, with and without Relu, zero points absent', async () => {
    let seed = 60;
    for (const [at, bt, yt] of [['uint8', 'uint8', 'uint8'], ['int8', 'uint8', 'int8'], ['uint8', 'int8', 'int8'], ['int8', 'int8', 'uint8']] as const) {
      const dims = [2, 16, 9, 11];
      const inputs = [
        randomInts(at, dims, seed++), scalarTensor('float32', 0.021), randomInts(at, [], seed++),
        randomInts(bt, dims, seed++), scalarTensor('float32', 0.033), randomInts(bt, [], seed++),
        scalarTensor('float32', 0.04), randomInts(yt, [], seed++),
      ];
      for (const relu of [0, 1]) await expectSame(def('QuantizedAdd'), quantizedAddKernel, inputs, { domain: 'com.switchyard', opset: 1, attributes: { relu } });
      await expectSame(def('QuantizedAdd'), quantizedAddKernel, [inputs[0], inputs[1], undefined, inputs[3], inputs[4], undefined, inputs[6], undefined], { domain: 'com.switchyard', opset: 1 });
    }
    // Past the inline bound: on the oneDNN thread.
    const big = [randomInts('uint8', [SYNC_ELEMENT_LIMIT + 7], 70), scalarTensor('float32', 0.02), scalarTensor('uint8', 3), randomInts('uint8', [SYNC_ELEMENT_LIMIT + 7], 71), scalarTensor('float32', 0.05), scalarTensor('uint8', 200), scalarTensor('float32', 0.07), scalarTensor('uint8', 128)];
    await expectSame(def('QuantizedAdd'), quantizedAddKernel, big, { domain: 'com.switchyard', opset: 1, attributes: { relu: 1 } });
  });

  it('runs tensors past the inline bound on the oneDNN thread with the same results', async () => {
    const n = SYNC_ELEMENT_LIMIT + 4099;
    const x = randomFloats([n], 11, -2, 3);
    await expectSame(def('DynamicQuantizeLinear'), dynamicQuantizeLinearKernel, [x], { outputs: 3 });
    await expectSame(def('QuantizeLinear'), quantizeLinearKernel, [x, scalarTensor('float32', 0.02), scalarTensor('int8', 4)]);
    const q = randomInts('int8', [n], 12);
    await expectSame(def('DequantizeLinear'), dequantizeLinearKernel, [q, scalarTensor('float32', 0.02), scalarTensor('int8', -9)]);
  });

  it('declines what it does not serve, with the reason (the TS kernel takes it)', async () => {
    const f16Scale = new Tensor('float16', Uint16Array.of(0x3c00), []);
    await expect(runDef(def('QuantizeLinear'), [randomFloats([4], 1), f16Scale])).rejects.toThrow(/scale is float16; onednn serves float32 only/);
    await expect(runDef(def('QuantizeLinear'), [randomInts('int32', [4], 1), scalarTensor('float32', 1)])).rejects.toThrow(/x is int32/);
    await expect(runDef(def('DequantizeLinear'), [new Tensor('uint16', Uint16Array.of(1, 2), [2]), scalarTensor('float32', 1)])).rejects.toThrow(/x is uint16/);
  });

  it('bad arguments to the addon give coded errors, never a crash', () => {
    const b = binding!;
    const x = new Float32Array(12);
    const call = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e as { code?: string; message: string };
      }
      throw new Error('expected a throw');
    };
    expect(call(() => b.quantizeLinear!(x, Float32Array.of(1), null, new Uint8Array(11), 1, 12))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('12 elements') });
    expect(call(() => b.quantizeLinear!(x, Float32Array.of(1), Int8Array.of(0), new Uint8Array(12), 1, 12))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('zeroPoints') });
    expect(call(() => b.quantizeLinear!(x, Float32Array.of(1, 2), null, new Int8Array(12), 2, 5))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('whole number') });
    expect(call(() => b.quantizeLinear!(x, Float32Array.of(1), null, new Int8Array(12), 0, 12))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(call(() => b.dequantizeLinear!(new Uint8Array(12) as never, Float32Array.of(1), null, new Float32Array(12), 1, 1e12))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(call(() => b.dequantizeLinear!(new Uint16Array(12) as never, Float32Array.of(1), null, new Float32Array(12), 1, 12))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('Uint8Array or Int8Array or Int32Array') });
    expect(call(() => b.dynamicQuantizeLinear!(x, new Uint8Array(12), new Float32Array(2), new Uint8Array(1)))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('scale') });
    expect(call(() => b.dynamicQuantizeLinearAsync!(x, new Int8Array(12) as never, new Float32Array(1), new Uint8Array(1)))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    const u = new Uint8Array(12);
    const one = Float32Array.of(1);
    expect(call(() => b.quantizedAdd!(u, one, null, new Uint8Array(11), one, null, one, null, u, false))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining("b (a's length)") });
    expect(call(() => b.quantizedAdd!(u, one, Int8Array.of(1), u, one, null, one, null, u, false))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('aZero') });
    expect(call(() => b.quantizedAdd!(u, new Float32Array(2), null, u, one, null, one, null, u, false))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('aScale') });
    expect(call(() => b.quantizedAdd!(u, one, null, u, one, null, one, null, u, 1 as never))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('relu') });
  });
});
