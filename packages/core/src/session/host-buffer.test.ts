/**
 * ExecutionProvider.hostBuffer: the session asks the first provider that offers it for outputs of at
 * least HOST_BUFFER_MIN_BYTES that no arena slot holds, zeroed unless the kernel asked otherwise, and
 * allocates as usual when the provider declines; smaller outputs and arena values never ask.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession } from './inference-session.js';
import { HOST_BUFFER_MIN_BYTES } from './run-context.js';
import { Tensor } from '../tensor/tensor.js';
import { buildModel } from '../testing/build-model.js';
import { hostTestProvider } from '../testing/host-test-ep.js';
import type { ExecutionProvider } from '../ep/execution-provider.js';
import { defineKernel } from '../registry/kernel-def.js';

/** x [rows, 1024] → Relu → Neg → out: one intermediate (arena), one graph output (never the arena). */
const model = () =>
  buildModel({
    inputs: [['x', 'float32', ['rows', 1024]]],
    outputs: [['out', 'float32', ['rows', 1024]]],
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: ['a'] },
      { op: 'Neg', inputs: ['a'], outputs: ['out'] },
    ],
  });

/** The host test EP plus a hostBuffer that records its requests and hands out (or declines) buffers. */
function recordingProvider(decline = false) {
  const requests: Array<{ bytes: number; zeroed: boolean }> = [];
  const given: ArrayBuffer[] = [];
  const provider: ExecutionProvider = {
    ...hostTestProvider(),
    hostBuffer(bytes, zeroed) {
      requests.push({ bytes, zeroed });
      if (decline) return undefined;
      // Not zero-filled when the caller says it need not be: the session must pass `zeroed` on.
      const buffer = new ArrayBuffer(bytes);
      if (!zeroed) new Uint8Array(buffer).fill(0xff);
      given.push(buffer);
      return buffer;
    },
  };
  return { provider, requests, given };
}

const input = (rows: number) => new Tensor('float32', Float32Array.from({ length: rows * 1024 }, (_, i) => (i % 7) - 3), [rows, 1024]);
const expected = (rows: number) => Array.from({ length: rows * 1024 }, (_, i) => -Math.max(0, (i % 7) - 3));

describe('ExecutionProvider.hostBuffer', () => {
  it('serves large graph outputs and leaves small ones and arena values alone', async () => {
    const { provider, requests, given } = recordingProvider();
    const session = await InferenceSession.fromModel(model(), { executionProviders: [provider], disableCpuFallback: true });
    const bigRows = HOST_BUFFER_MIN_BYTES / 4096; // rows x 1024 floats = exactly the threshold
    const big = (await session.run({ x: input(bigRows) })).out as Tensor<'float32'>;
    expect(Array.from(big.data)).toEqual(expected(bigRows));
    expect(requests).toEqual([{ bytes: HOST_BUFFER_MIN_BYTES, zeroed: true }]);
    expect(big.data.buffer).toBe(given[0]);
    const small = (await session.run({ x: input(bigRows - 1) })).out as Tensor<'float32'>;
    expect(Array.from(small.data)).toEqual(expected(bigRows - 1));
    expect(requests).toHaveLength(1);
    await session.release();
  });

  it('allocates as usual when the provider declines', async () => {
    const { provider, requests } = recordingProvider(true);
    const session = await InferenceSession.fromModel(model(), { executionProviders: [provider], disableCpuFallback: true });
    const out = (await session.run({ x: input(32) })).out as Tensor<'float32'>;
    expect(Array.from(out.data)).toEqual(expected(32));
    expect(requests.length).toBeGreaterThan(0);
    await session.release();
  });
});

describe('ExecutionProvider.releaseHostBuffer', () => {
  // Symbolic rows and no memory pattern: no arena slot, every large value comes from hostBuffer.
  // Identity here returns its input tensor itself (a view, as Reshape's output is): `out2` and `b`
  // share one buffer, which must outlive `b`'s slot.
  const aliasing = () =>
    buildModel({
      inputs: [['x', 'float32', ['rows', 1024]]],
      outputs: [['out1', 'float32', ['rows', 1024]], ['out2', 'float32', ['rows', 1024]]],
      nodes: [
        { op: 'Relu', inputs: ['x'], outputs: ['a'] },
        { op: 'Neg', inputs: ['a'], outputs: ['b'] },
        { op: 'Identity', inputs: ['b'], outputs: ['out2'] },
        { op: 'Sigmoid', inputs: ['b'], outputs: ['c'] },
        { op: 'Neg', inputs: ['c'], outputs: ['out1'] },
      ],
    });

  /** hostTestProvider with a view-returning Identity, and a pool that hands released buffers out again. */
  function recyclingProvider() {
    const base = hostTestProvider('hosttest', ['Relu', 'Neg', 'Sigmoid']);
    const given: ArrayBuffer[] = [];
    const released: ArrayBuffer[] = [];
    const idle: ArrayBuffer[] = [];
    const provider: ExecutionProvider = {
      ...base,
      kernels: [
        ...base.kernels!,
        defineKernel({ ep: 'hosttest', domain: '', opType: 'Identity', sinceVersion: 1, typeConstraints: { T: ['float32'] }, create: () => ({ run: (ctx) => [ctx.input(0)] }) }),
      ],
      hostBuffer(bytes, zeroed) {
        const i = idle.findIndex((b) => b.byteLength === bytes);
        const buffer = i >= 0 ? idle.splice(i, 1)[0] : new ArrayBuffer(bytes);
        new Float32Array(buffer).fill(zeroed ? 0 : Number.NaN); // a reused block holds old data
        given.push(buffer);
        return buffer;
      },
      releaseHostBuffer(buffer) {
        released.push(buffer);
        idle.push(buffer);
        return true;
      },
    };
    return { provider, given, released };
  }

  const rows = 16;
  const x = input(rows);
  const relu = Array.from(x.data as Float32Array, (v) => Math.max(0, v));
  const b = relu.map((v) => -v);
  const out1 = b.map((v) => -1 / (1 + Math.exp(-v)));

  it("takes back intermediates after their last reader, never a graph output's buffer", async () => {
    const { provider, given, released } = recyclingProvider();
    const session = await InferenceSession.fromModel(aliasing(), { executionProviders: [provider], disableCpuFallback: true, enableMemPattern: false });
    const first = await session.run({ x });
    // Handed out in node order: a, b, c, out1. `a` goes back once Neg has read it, `c` once the last Neg has;
    // `b` is still held by `out2`.
    expect(given).toHaveLength(4);
    expect(released).toEqual([given[0], given[2]]);
    expect((first.out2 as Tensor<'float32'>).data.buffer).toBe(given[1]);
    const kept = [Array.from((first.out1 as Tensor<'float32'>).data), Array.from((first.out2 as Tensor<'float32'>).data)];
    for (const [k, v] of kept[0].entries()) expect(v).toBeCloseTo(out1[k], 6);
    expect(kept[1]).toEqual(b);
    // Later runs reuse the released blocks; the first run's outputs stay as they were.
    for (let run = 0; run < 3; run++) {
      const r = await session.run({ x });
      expect(Array.from((r.out2 as Tensor<'float32'>).data)).toEqual(b);
      for (const [k, v] of (r.out1 as Tensor<'float32'>).data.entries()) expect(v).toBeCloseTo(out1[k], 6);
    }
    expect(given.length - new Set(given).size).toBeGreaterThan(0);
    expect(Array.from((first.out1 as Tensor<'float32'>).data)).toEqual(kept[0]);
    expect(Array.from((first.out2 as Tensor<'float32'>).data)).toEqual(kept[1]);
    await session.release();
  });
});
