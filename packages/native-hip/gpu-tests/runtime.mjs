// GPU test: the real DeviceArena over hipMalloc/cudaMalloc (limits, OOM and recovery, caching,
// shrink), async copies through pinned staging (large, offset, concurrent, deferred free), streams
// and events. Skips without a device.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BINARY_OPS, UNARY_OPS } from '@switchyard/native-hip';
import { gpu, rng, randomF32, skip } from './lib/runtime-harness.mjs';

const MiB = 2 ** 20;

describe('native enums', { skip }, () => {
  it('the addon built here numbers its ops as native-enums.generated.ts does', () => {
    assert.deepEqual(gpu.binding.nativeEnums(), { unaryOps: { ...UNARY_OPS }, binaryOps: { ...BINARY_OPS } });
  });
});

describe('DeviceArena', { skip }, () => {
  const { binding } = gpu;

  it('serves blocks from cached chunks and counts', () => {
    const arena = new binding.DeviceArena(0, { initialChunkBytes: 4 * MiB });
    const a = arena.allocate(1000);
    const b = arena.allocate(3000);
    assert.equal(a.fromArena, true);
    assert.deepEqual({ ...arena.stats(), largestFree: 0 }, { inUse: 1024 + 3072, reserved: 4 * MiB, peak: 4096, allocations: 2, frees: 0, chunks: 1, largestFree: 0 });
    // Data written through one block is not disturbed by another.
    const data = Float32Array.from({ length: 250 }, (_, i) => i * 0.5);
    a.upload(data);
    b.upload(new Uint8Array(3000).fill(7));
    const back = new Float32Array(250);
    a.download(back);
    assert.deepEqual(back, data);
    a.free();
    b.free();
    assert.equal(arena.stats().inUse, 0);
    assert.equal(arena.stats().frees, 2);
    assert.equal(arena.stats().reserved, 4 * MiB, 'freed blocks stay cached');
    assert.equal(arena.shrink(), 4 * MiB);
    assert.equal(arena.stats().reserved, 0);
  });

  it('over gpuMemLimit: OUT_OF_MEMORY with the sizes, then recovers', () => {
    const arena = new binding.DeviceArena(0, { gpuMemLimit: 64 * MiB, arenaExtendStrategy: 'sameAsRequested' });
    const big = arena.allocate(48 * MiB);
    assert.throws(() => arena.allocate(32 * MiB), (error) => {
      assert.equal(error.code, 'OUT_OF_MEMORY');
      assert.equal(error.requestedBytes, 32 * MiB);
      assert.equal(error.limitBytes, 64 * MiB);
      assert.match(error.message, /cannot allocate 33554432 bytes.*gpuMemLimit 67108864 bytes/);
      return true;
    });
    const small = arena.allocate(8 * MiB);
    small.upload(new Float32Array([1, 2, 3]));
    big.free();
    const again = arena.allocate(32 * MiB);
    assert.equal(again.byteLength, 32 * MiB);
    small.free();
    again.free();
  });

  it("the driver's out-of-memory is an OUT_OF_MEMORY error too, and the arena stays usable", () => {
    const props = binding.deviceProperties(0);
    const arena = new binding.DeviceArena(0, { arenaExtendStrategy: 'sameAsRequested' });
    assert.throws(() => arena.allocate(props.totalMemory * 2), (error) => error.code === 'OUT_OF_MEMORY' && error.reason === 'device');
    const ok = arena.allocate(MiB);
    ok.upload(new Uint8Array(16));
    ok.free();
  });
});

describe('copies', { skip }, () => {
  const { binding } = gpu;

  it('uploadAsync/downloadAsync round-trip large data through staging (several chunks)', async () => {
    const rand = rng(5);
    const data = randomF32(5 * MiB + 123, rand); // ~20 MiB: > 4 staging chunks, odd tail
    const buffer = new binding.DeviceBuffer(0, data.byteLength);
    await buffer.uploadAsync(data);
    const back = new Float32Array(data.length);
    await buffer.downloadAsync(back);
    assert.ok(back.every((v, i) => v === data[i]), 'round trip is exact');
    assert.ok(binding.stagingBuffersCached(0) >= 2, 'staging buffers are kept for reuse');
    buffer.free();
  });

  it('honours byteOffset and rejects copies that do not fit', async () => {
    const buffer = new binding.DeviceBuffer(0, 64);
    buffer.upload(new Uint8Array(64));
    await buffer.uploadAsync(Uint8Array.from([1, 2, 3, 4]), 60);
    const back = new Uint8Array(8);
    buffer.download(back, 56);
    assert.deepEqual([...back], [0, 0, 0, 0, 1, 2, 3, 4]);
    assert.throws(() => buffer.upload(new Uint8Array(8), 60), RangeError);
    assert.throws(() => buffer.uploadAsync(new Uint8Array(65)), RangeError);
    buffer.free();
  });

  it('runs concurrent async copies and defers free() until they settle', async () => {
    const arena = new binding.DeviceArena(0);
    const inputs = [1, 2, 3, 4].map((seed) => randomF32(MiB + seed, rng(seed)));
    const buffers = inputs.map((input) => arena.allocate(input.byteLength));
    await Promise.all(buffers.map((buffer, i) => buffer.uploadAsync(inputs[i])));
    const outputs = inputs.map((input) => new Float32Array(input.length));
    const pending = buffers.map((buffer, i) => buffer.downloadAsync(outputs[i]));
    buffers[0].free(); // deferred: the download still completes
    assert.equal(buffers[0].freed, true);
    await Promise.all(pending);
    outputs.forEach((output, i) => assert.ok(output.every((v, j) => v === inputs[i][j]), `buffer ${i}`));
    for (const buffer of buffers.slice(1)) buffer.free();
    assert.equal(arena.stats().inUse, 0);
  });
});

describe('streams and events', { skip }, () => {
  const { binding } = gpu;

  it('synchronizes and times work on the device stream', async () => {
    const stream = binding.getStream(0);
    assert.equal(stream.deviceId, 0);
    const start = new binding.Event(0);
    const end = new binding.Event(0);
    const buffer = new binding.DeviceBuffer(0, 64 * MiB);
    start.record();
    const pending = buffer.uploadAsync(new Uint8Array(64 * MiB));
    await pending;
    end.record();
    end.synchronize();
    assert.equal(end.query(), true);
    const ms = binding.Event.elapsedMs(start, end);
    assert.ok(ms >= 0 && ms < 60_000, `elapsed ${ms} ms`);
    await stream.synchronizeAsync();
    stream.synchronize();
    assert.equal(stream.query(), true);
    assert.throws(() => binding.Event.elapsedMs(start, {}), TypeError);
    buffer.free();
  });
});
