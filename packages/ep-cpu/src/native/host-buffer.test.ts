/**
 * The addon's recycled host memory (host_buffer_pool.h): buffers of the asked size, zeroed when asked,
 * refused (undefined) for sizes it does not serve, and their memory back in the pool once collected;
 * and a session whose outputs use it: each output keeps its values while the caller holds it, however
 * many runs reuse the pool meanwhile.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { HOST_BUFFER_MIN_BYTES, InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && native.binding.hostBuffer && native.binding.hostBufferStats ? native.binding : undefined;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collects until `done()` holds (finalizers of external buffers run on a later turn of the loop). */
async function collectUntil(done: () => boolean, rounds = 50): Promise<boolean> {
  for (let i = 0; i < rounds && !done(); i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return done();
}

const hostBuffer = (bytes: number, zeroed: boolean) => binding!.hostBuffer!(bytes, zeroed);
const stats = () => binding!.hostBufferStats!();

describe.skipIf(!binding)('hostBuffer', () => {
  it('gives an ArrayBuffer of exactly the asked size, zero-filled when asked', () => {
    const buffer = hostBuffer(100_003, true)!;
    expect(buffer).toBeInstanceOf(ArrayBuffer);
    expect(buffer.byteLength).toBe(100_003);
    const bytes = new Uint8Array(buffer);
    expect(bytes.every((b) => b === 0)).toBe(true);
    bytes.fill(7);
    expect(bytes[100_002]).toBe(7);
  });

  it('refuses sizes it does not serve with undefined, and malformed arguments with a coded error', () => {
    for (const bytes of [0, -1, 1.5, Number.NaN, Infinity, 2 ** 40]) expect(hostBuffer(bytes, true)).toBeUndefined();
    expect(() => binding!.hostBuffer!('4096' as never, true)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/bytes must be a number/) }));
    expect(() => binding!.hostBuffer!(4096, 1 as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/zeroed must be a boolean/) }));
  });

  it('takes a collected buffer back and serves it again, zeroed when asked', async () => {
    const size = 3 * 65_536 + 12; // a size class no other test uses
    const before = stats();
    (() => {
      const dropped = new Float32Array(hostBuffer(size, false)!);
      dropped.fill(5);
    })();
    expect(await collectUntil(() => stats().pooledBytes > before.pooledBytes)).toBe(true);
    const reusedBefore = stats().reused;
    const again = new Float32Array(hostBuffer(size, true)!);
    expect(stats().reused).toBe(reusedBefore + 1);
    expect(again.every((v) => v === 0)).toBe(true);
  });
});

describe.skipIf(!binding?.releaseHostBuffer)('releaseHostBuffer', () => {
  const release = (buffer: unknown) => binding!.releaseHostBuffer!(buffer as ArrayBuffer);

  it('takes a live buffer back at once, detaches it, and serves its block to the next request', async () => {
    const size = 5 * 65_536 + 40; // a size class no other test uses
    const buffer = hostBuffer(size, false)!;
    const view = new Float32Array(buffer);
    view.fill(9);
    const before = stats();
    expect(release(buffer)).toBe(true);
    expect(buffer.byteLength).toBe(0); // detached: the old view can no longer reach the block
    expect(view.length).toBe(0);
    expect(stats().pooledBytes).toBeGreaterThan(before.pooledBytes);
    expect(stats().liveBytes).toBeLessThan(before.liveBytes);
    expect(release(buffer)).toBe(false); // already back
    const next = new Float32Array(hostBuffer(size, true)!);
    expect(stats().reused).toBe(before.reused + 1);
    expect(next.every((v) => v === 0)).toBe(true);
    // The released buffer's finalizer, when it runs, must not give the block back a second time (a
    // second buffer would then share `next`'s memory).
    await collectUntil(() => false, 5);
    next.fill(3);
    const other = new Float32Array(hostBuffer(size, false)!);
    other.fill(4);
    expect(next.every((v) => v === 3)).toBe(true);
  });

  it('serves a smaller request from a released larger block', () => {
    const big = hostBuffer(7 * 65_536, false)!;
    expect(release(big)).toBe(true);
    const reused = stats().reused;
    const smaller = hostBuffer(6 * 65_536 + 100, true)!;
    expect(smaller.byteLength).toBe(6 * 65_536 + 100);
    expect(stats().reused).toBe(reused + 1);
    expect(new Uint8Array(smaller).every((v) => v === 0)).toBe(true);
  });

  it('frees idle blocks on trimHostBuffers and leaves live buffers alone', () => {
    const live = new Float32Array(hostBuffer(9 * 65_536, false)!);
    live.fill(6);
    expect(release(hostBuffer(11 * 65_536, false)!)).toBe(true);
    expect(stats().pooledBytes).toBeGreaterThan(0);
    const allocated = stats().allocated;
    binding!.trimHostBuffers!();
    expect(stats().pooledBytes).toBe(0);
    expect(live.every((v) => v === 6)).toBe(true);
    hostBuffer(11 * 65_536, false); // the block is gone: a new one
    expect(stats().allocated).toBe(allocated + 1);
  });

  it('refuses buffers it did not hand out, and non-buffers with a coded error', () => {
    expect(release(new ArrayBuffer(65_536))).toBe(false);
    expect(() => release(new Float32Array(4))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/buffer must be an ArrayBuffer/) }));
  });
});

describe.skipIf(!binding?.releaseHostBuffer)('a session without arena slots', () => {
  // Symbolic rows, no memory pattern: every 256 KiB value comes from the pool. A chain of 12 ops holds
  // two values at a time, so with early release the run takes a few blocks, not one per value.
  const chain = () =>
    buildModel({
      inputs: [['X', 'float32', ['rows', 256]]],
      outputs: [['Y', 'float32', ['rows', 256]]],
      nodes: Array.from({ length: 12 }, (_, i) => ({ op: i % 2 ? 'Neg' : 'Relu', inputs: [i === 0 ? 'X' : `v${i}`], outputs: [i === 11 ? 'Y' : `v${i + 1}`] })),
    });

  it('reuses the blocks of values no later node reads within the same run', async () => {
    const session = await InferenceSession.fromModel(chain(), { executionProviders: [new CpuExecutionProvider()], enableMemPattern: false, graphOptimizationLevel: 'disabled' });
    const x = new Float32Array(256 * 256).map((_, i) => (i % 5) - 2);
    const reused = stats().reused;
    const y = (await session.run({ X: new Tensor('float32', x, [256, 256]) })).Y as Tensor<'float32'>;
    // Relu then Neg, six times: -relu(x) after the first pair, 0 from then on (relu of a value <= 0).
    expect(y.data.every((v) => v === 0)).toBe(true);
    expect(stats().reused - reused).toBeGreaterThanOrEqual(8);
    await session.release();
  });
});

describe.skipIf(!binding)('a session with recycled outputs', () => {
  // Y = X + 1 over 256 x 256 floats: a 256 KiB graph output, above the pooling threshold.
  const model = () =>
    buildModel({
      inputs: [['X', 'float32', [256, 256]]],
      outputs: [['Y', 'float32', [256, 256]]],
      initializers: { one: new Tensor('float32', new Float32Array([1]), []) },
      nodes: [{ op: 'Add', inputs: ['X', 'one'], outputs: ['Y'] }],
    });
  const feed = (value: number) => ({ X: new Tensor('float32', new Float32Array(65_536).fill(value), [256, 256]) });

  it('keeps every held output intact while later runs recycle the pool', async () => {
    expect(256 * 256 * 4).toBeGreaterThanOrEqual(HOST_BUFFER_MIN_BYTES);
    const session = await InferenceSession.fromModel(model(), { executionProviders: [new CpuExecutionProvider()] });
    const live = stats().liveBytes;
    const held = (await session.run(feed(1))).Y as Tensor<'float32'>;
    expect(stats().liveBytes).toBeGreaterThanOrEqual(live + 65_536 * 4);
    for (let r = 0; r < 20; r++) {
      const y = (await session.run(feed(r))).Y as Tensor<'float32'>;
      expect(y.data[0]).toBe(r + 1);
      expect(y.data[65_535]).toBe(r + 1);
      if (r % 5 === 4) await collectUntil(() => false, 3);
    }
    expect(held.data.every((v) => v === 2)).toBe(true);
    expect(stats().reused).toBeGreaterThan(0);
    await session.release();
  });

  it('allocates outputs as usual with recycleOutputs: false', async () => {
    const session = await InferenceSession.fromModel(model(), { executionProviders: [new CpuExecutionProvider({ recycleOutputs: false })] });
    const live = stats().liveBytes;
    const y = (await session.run(feed(3))).Y as Tensor<'float32'>;
    expect(y.data.every((v) => v === 4)).toBe(true);
    expect(stats().liveBytes).toBe(live);
    await session.release();
  });
});
