/** `creationTimings` and `runWithTimings`: where a session's time goes, and that the phases add up. */
import { describe, expect, it } from 'vitest';
import { InferenceSession } from './inference-session.js';
import { Tensor } from '../tensor/tensor.js';
import { buildModel } from '../testing/build-model.js';
import { hostTestProvider } from '../testing/host-test-ep.js';
import { MockDeviceProvider } from '../testing/mock-device-ep.js';
import { encodeModel } from '../onnx/index.js';
import type { ExecutionProvider } from '../ep/execution-provider.js';

/** relu1 (device) → neg (host) → add (device) → relu2 (device): four boundary copies per run. */
function diamond() {
  return buildModel({
    inputs: [['x', 'float32', [2, 2]]],
    outputs: [['out', 'float32', [2, 2]]],
    nodes: [
      { op: 'Relu', name: 'relu1', inputs: ['x'], outputs: ['r1'] },
      { op: 'Neg', name: 'neg', inputs: ['r1'], outputs: ['n'] },
      { op: 'Add', name: 'add', inputs: ['r1', 'n'], outputs: ['r2'] },
      { op: 'Relu', name: 'relu2', inputs: ['r2'], outputs: ['out'] },
    ],
  });
}

const opts = (eps: ExecutionProvider[]) => ({ executionProviders: eps, disableCpuFallback: true });
const x = () => new Tensor('float32', Float32Array.from([1, -2, 3, -4]), [2, 2]);

describe('session timings', () => {
  it('creationTimings: parse time for bytes, none for a model built in code', async () => {
    const fromBytes = await InferenceSession.create(encodeModel(diamond()), opts([hostTestProvider()]));
    const t = fromBytes.creationTimings;
    expect(t.parseMs).toBeGreaterThan(0);
    for (const v of Object.values(t)) expect(v).toBeGreaterThanOrEqual(0);
    const built = await InferenceSession.fromModel(diamond(), opts([hostTestProvider()]));
    expect(built.creationTimings.parseMs).toBe(0);
    await fromBytes.release();
    await built.release();
  });

  it('runWithTimings counts the copies at device boundaries and splits the run into exec, copy and other', async () => {
    const dev = new MockDeviceProvider({ ops: ['Relu', 'Add'] });
    const s = await InferenceSession.fromModel(diamond(), opts([dev, hostTestProvider()]));
    const plain = await s.run({ x: x() });
    const { outputs, timings } = await s.runWithTimings({ x: x() });
    expect((outputs.out as Tensor).data).toEqual((plain.out as Tensor).data);
    expect(timings.copies).toBe(s.placement.copies.length);
    expect(timings.copies).toBe(4);
    expect(timings.execMs).toBeGreaterThan(0);
    expect(timings.copyMs).toBeGreaterThan(0);
    expect(timings.execMs + timings.copyMs + timings.otherMs).toBeCloseTo(timings.totalMs, 9);
    await s.release();
  });

  it('a host-only run copies nothing; a released session refuses', async () => {
    const s = await InferenceSession.fromModel(diamond(), opts([hostTestProvider()]));
    const { timings } = await s.runWithTimings({ x: x() });
    expect(timings).toMatchObject({ copies: 0, copyMs: 0 });
    await expect(s.runWithTimings({ x: new Tensor('int32', Int32Array.from([1, 2, 3, 4]), [2, 2]) })).rejects.toThrow(/float32/);
    await s.release();
    await expect(s.runWithTimings({ x: x() })).rejects.toThrow(/released/);
  });
});
