/**
 * The runtime half of the addon on a machine without a GPU: the arena's real bookkeeping
 * (arena_core.h, through the FakeArena test hook and a pretend driver), the seams' "built without"
 * reasons, and clear errors from device entry points. The same class runs over hipMalloc on a GPU
 * host (gpu-tests/runtime.mjs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { NativeHipBinding } from './binding.js';
import { loadNativeHip } from './load-native.js';

const packageRoot = join(import.meta.dirname, '..');
const onPath = (name: string) => (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, name)));
const hasCompiler = onPath('hipcc') || onPath('nvcc') || existsSync('/opt/rocm/bin/hipcc');
const gpuHost = existsSync('/dev/kfd') || existsSync('/dev/nvidia0');
const MiB = 2 ** 20;

describe.skipIf(!hasCompiler)('runtime (switchyard_hip.node built here)', () => {
  let binding: NativeHipBinding;

  beforeAll(() => {
    // Up to date first, unless SWITCHYARD_HIP_ADDON names another build (scripts/sanitize.sh's), which is the one tested.
    if (!process.env.SWITCHYARD_HIP_ADDON) execFileSync(process.execPath, [join(packageRoot, 'scripts', 'build-native.mjs')], { stdio: 'pipe' });
    const loaded = loadNativeHip();
    if (!loaded.ok) throw new Error(`addon did not load: ${loaded.reason}`);
    binding = loaded.binding;
  });

  const fake = (options: ConstructorParameters<NativeHipBinding['testing']['FakeArena']>[0] = {}) => new binding.testing.FakeArena(options);

  describe('arena bookkeeping', () => {
    it('rounds to 256 bytes, carves blocks out of one chunk, and counts', () => {
      const arena = fake({ initialChunkBytes: MiB });
      const a = arena.allocate(1);
      const b = arena.allocate(300);
      const c = arena.allocate(0);
      expect(new Set([a, b, c]).size).toBe(3);
      expect(b - a).toBe(256); // best fit from the front of the chunk, no gaps
      expect(c - b).toBe(512);
      expect(arena.stats()).toEqual({ inUse: 1024, reserved: MiB, peak: 1024, allocations: 3, frees: 0, chunks: 1, largestFree: MiB - 1024 });
      expect(arena.backingStats().reserves).toBe(1);
    });

    it('reuses freed blocks instead of asking the driver, and merges neighbours back', () => {
      const arena = fake({ initialChunkBytes: MiB });
      const blocks = [1, 2, 3, 4].map(() => arena.allocate(1000));
      expect(arena.free(blocks[1])).toBe(true);
      expect(arena.free(blocks[2])).toBe(true);
      // The two freed neighbours merged: a 2048-byte request fits exactly there (best fit).
      expect(arena.allocate(2048)).toBe(blocks[1]);
      expect(arena.free(blocks[1])).toBe(true);
      for (const block of [blocks[0], blocks[3]]) arena.free(block);
      expect(arena.stats()).toMatchObject({ inUse: 0, chunks: 1, largestFree: MiB, allocations: 5, frees: 5 });
      expect(arena.backingStats()).toMatchObject({ reserves: 1, releases: 0 });
    });

    it('picks the smallest free block that fits', () => {
      const arena = fake({ initialChunkBytes: MiB });
      const small = arena.allocate(512);
      arena.allocate(256); // separator
      const large = arena.allocate(4096);
      arena.allocate(256);
      arena.free(large);
      arena.free(small);
      expect(arena.allocate(400)).toBe(small);
      expect(arena.allocate(3000)).toBe(large);
    });

    it('rejects double and foreign frees without changing the counts', () => {
      const arena = fake();
      const a = arena.allocate(100);
      expect(arena.free(a)).toBe(true);
      expect(arena.free(a)).toBe(false);
      expect(arena.free(a + 256)).toBe(false);
      expect(arena.free(12345)).toBe(false);
      expect(arena.stats().frees).toBe(1);
    });

    it("'nextPowerOfTwo' doubles each new chunk; 'sameAsRequested' reserves just the request", () => {
      const doubling = fake({ initialChunkBytes: MiB });
      doubling.allocate(MiB); // fills chunk 1 (1 MiB)
      doubling.allocate(1); // chunk 2 is 2 MiB
      doubling.allocate(2 * MiB); // chunk 3: 4 MiB (the 2 MiB chunk has 2 MiB - 256 left)
      expect(doubling.stats()).toMatchObject({ chunks: 3, reserved: 7 * MiB });

      const exact = fake({ arenaExtendStrategy: 'sameAsRequested' });
      exact.allocate(1000);
      exact.allocate(5000);
      expect(exact.stats()).toMatchObject({ chunks: 2, reserved: 1024 + 5120 });
    });

    it('shrink() hands entirely free chunks back to the driver, and only those', () => {
      const arena = fake({ arenaExtendStrategy: 'sameAsRequested' });
      const a = arena.allocate(MiB);
      arena.allocate(MiB);
      arena.free(a);
      expect(arena.shrink()).toBe(MiB);
      expect(arena.stats()).toMatchObject({ reserved: MiB, chunks: 1, inUse: MiB });
      expect(arena.backingStats()).toMatchObject({ releases: 1, liveBytes: MiB, liveChunks: 1 });
      expect(arena.shrink()).toBe(0);
    });

    it('over gpuMemLimit: OUT_OF_MEMORY naming the request and the limit, and the arena stays usable', () => {
      const arena = fake({ gpuMemLimit: 4 * MiB, initialChunkBytes: MiB });
      const a = arena.allocate(3 * MiB);
      let error: unknown;
      try {
        arena.allocate(2 * MiB);
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({ code: 'OUT_OF_MEMORY', requestedBytes: 2 * MiB, limitBytes: 4 * MiB, reason: 'limit' });
      expect(String(error)).toMatch(/cannot allocate 2097152 bytes.*gpuMemLimit 4194304 bytes/);
      expect(arena.stats()).toMatchObject({ inUse: 3 * MiB, reserved: 3 * MiB });
      // Still usable: what fits under the limit is served, and after a free the big request fits.
      expect(() => arena.allocate(MiB)).not.toThrow();
      arena.free(a);
      expect(() => arena.allocate(2 * MiB)).not.toThrow();
    });

    it('clamps a doubling chunk to the limit rather than failing', () => {
      const arena = fake({ gpuMemLimit: 3 * MiB, initialChunkBytes: 2 * MiB });
      arena.allocate(2 * MiB);
      arena.allocate(MiB); // doubling wants 4 MiB; 1 MiB is all the limit leaves
      expect(arena.stats()).toMatchObject({ reserved: 3 * MiB, chunks: 2 });
    });

    it("the driver's out-of-memory: retries smaller, then after releasing cached chunks, then reports", () => {
      const arena = fake({ deviceCapacity: 3 * MiB, initialChunkBytes: 2 * MiB, arenaExtendStrategy: 'nextPowerOfTwo' });
      const a = arena.allocate(2 * MiB);
      // Next chunk would be 4 MiB; the driver has 1 MiB left, so the arena falls back to the request.
      const b = arena.allocate(MiB);
      arena.free(a);
      // 2 MiB cached in chunk 1 is not enough for 3 MiB; releasing it lets the driver serve... not 3 MiB (1 MiB is still in use).
      expect(() => arena.allocate(3 * MiB)).toThrow(expect.objectContaining({ code: 'OUT_OF_MEMORY', reason: 'device' }));
      expect(arena.backingStats()).toMatchObject({ liveBytes: MiB });
      arena.free(b);
      expect(() => arena.allocate(3 * MiB)).not.toThrow();
      expect(arena.stats()).toMatchObject({ reserved: 3 * MiB, chunks: 1 });
    });

    it('validates options and sizes', () => {
      expect(() => fake({ arenaExtendStrategy: 'double' as 'nextPowerOfTwo' })).toThrow(/arenaExtendStrategy must be 'nextPowerOfTwo' or 'sameAsRequested'/);
      expect(() => fake({ gpuMemLimit: -1 })).toThrow(/gpuMemLimit must be a non-negative integer/);
      expect(() => fake().allocate(1.5)).toThrow(/byteLength must be a non-negative integer/);
      expect(() => fake().allocate(2 ** 50)).toThrow(/below 2\^48/);
    });
  });

  it('reports why the BLAS and DNN seams are off in this build', () => {
    const platform = binding.runtimeInfo().platform;
    const blas = binding.blasInfo();
    const dnn = binding.dnnInfo();
    // Debian has no rocBLAS/MIOpen headers and this machine no cuBLAS/cuDNN: both must say so.
    if (!blas.available) expect(blas.reason).toMatch(platform === 'amd' ? /built without <rocblas\/rocblas.h> headers/ : /built without <cublas_v2.h> headers/);
    if (!dnn.available) expect(dnn.reason).toMatch(platform === 'amd' ? /<miopen\/miopen.h>|MIOpen backend is not written/ : /built without <cudnn.h> headers/);
    if (!existsSync('/opt/rocm/include/rocblas') && platform === 'amd') expect(blas).toMatchObject({ available: false, backend: 'none' });
    expect(binding.dnnAlgoCacheStats()).toMatchObject({ searches: 0, diskHits: 0 });
    expect(binding.dnnAlgoCacheStats('gemm')).toEqual({ searches: 0, memoryHits: 0, diskHits: 0, file: '' });
    expect(binding.dnnAlgoCacheStats('convform')).toEqual({ searches: 0, memoryHits: 0, diskHits: 0, file: '' });
    expect(() => binding.dnnAlgoCacheStats('blas' as 'gemm')).toThrow(/kind must be 'conv', 'gemm' or 'convform'/);
  });

  it.skipIf(gpuHost)('device entry points throw coded errors without a device', () => {
    expect(() => new binding.DeviceArena(0)).toThrow(expect.objectContaining({ code: expect.stringMatching(/ErrorNoDevice|ErrorInsufficientDriver/) }));
    expect(() => binding.getStream(0)).toThrow(/GetDeviceCount/);
    expect(() => new binding.Event(0)).toThrow(/GetDeviceCount/);
    expect(binding.stagingBuffersCached(0)).toBe(0);
    expect(binding.idlePlanStreams(0)).toBe(0);
    expect(binding.libraryHandleBytes(0)).toEqual({ dnn: 0, blas: 0, created: 0 });
  });

  it.skipIf(gpuHost)("reads the default arena's stats (the library workspaces) without a device: nothing reserved", () => {
    expect(binding.defaultArenaStats!(0)).toEqual({ inUse: 0, reserved: 0, peak: 0, allocations: 0, frees: 0, chunks: 0, largestFree: 0 });
    expect(() => binding.defaultArenaStats!(-1)).toThrow(/defaultArenaStats: deviceId must be a non-negative integer/);
  });

  it('rejects bad arguments before touching a device', () => {
    expect(() => new binding.DeviceArena(-1)).toThrow(/deviceId must be a non-negative integer/);
    expect(() => new binding.DeviceArena(0, { arenaExtendStrategy: 'x' as 'sameAsRequested' })).toThrow(/arenaExtendStrategy/);
    const notABuffer = {} as never;
    expect(() => binding.blasGemm({ a: notABuffer, b: notABuffer, c: notABuffer, m: 1, n: 1, k: 1 })).toThrow(/a must be a DeviceBuffer/);
    expect(() => binding.blasPreparedGemm({ a: notABuffer, b: notABuffer, c: notABuffer, m: 1, n: 1, k: 1 })).toThrow(/blasPreparedGemm: a must be a DeviceBuffer/);
    expect(() => binding.dnnConv2d({} as never)).toThrow(/inputShape must be \[n, c, h, w\]/);
    expect(() => binding.dnnPool2d({ inputShape: [1, 1, 4, 4], mode: 'min' as 'max' } as never)).toThrow(/mode must be 'max' or 'average'/);
  });
});
