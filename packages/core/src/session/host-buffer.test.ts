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
