import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import type { NativeHipBinding } from '@switchyard/native-hip';
import { RocmDeviceMemory, allocateForCopy } from './device-memory.js';

/** A host-memory stand-in for the addon's arena: enough for the bookkeeping under test. */
function fakeBinding(log: string[]): NativeHipBinding {
  class FakeArena {
    allocate(byteLength: number) {
      const bytes = new Uint8Array(byteLength);
      return {
        byteLength,
        upload: (src: ArrayBufferView) => {
          log.push('upload');
          bytes.set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
        },
        download: (dst: ArrayBufferView) => {
          log.push('download');
          new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength).set(bytes);
        },
        free: () => log.push('free'),
      };
    }
    shrink() {
      log.push('shrink');
      return 0;
    }
  }
  return { DeviceArena: FakeArena } as unknown as NativeHipBinding;
}

describe('allocateForCopy', () => {
  it('gives the array type and length of each data type, over its own buffer', () => {
    const f = allocateForCopy('float32', 5);
    expect(f).toBeInstanceOf(Float32Array);
    expect(f.length).toBe(5);
    expect(allocateForCopy('int64', 3)).toBeInstanceOf(BigInt64Array);
    expect(allocateForCopy('float16', 4)).toBeInstanceOf(Uint16Array);
    const a = allocateForCopy('uint8', 100);
    const b = allocateForCopy('uint8', 100);
    expect(a.buffer).not.toBe(b.buffer); // never a slice of Node's shared Buffer pool
    expect(a.byteLength).toBe(100);
    expect(allocateForCopy('float32', 0).length).toBe(0);
  });
});

describe('RocmDeviceMemory placement hints', () => {
  it('a host result downloads without a copy and tells when a device consumer uploads it', async () => {
    const log: string[] = [];
    const memory = new RocmDeviceMemory(fakeBinding(log), 0, 1 << 20);
    let deviceUses = 0;
    const host = new Tensor('float32', Float32Array.from([1, 2, 3]), [3]);
    const t = memory.hostResult(host, () => deviceUses++);
    expect(t.location).toBe('rocm:0');
    expect(memory.owns(t)).toBe(true);
    expect((await memory.download(t)).data).toBe(host.data);
    expect(deviceUses).toBe(0);
    expect(memory.stagedSource(t)).toBe(host); // a look, not a use
    expect(deviceUses).toBe(0);
    expect(memory.stagedSource(t, true)).toBe(host); // a plan reads it as an input
    expect(deviceUses).toBe(1);
    memory.bufferOf(t, 'test'); // a per-node consumer needs its buffer: uploaded once
    expect(deviceUses).toBe(2);
    expect(log).toEqual(['upload']);
    const back = await memory.download(t); // now buffer-backed: a real download, no further hint
    expect(Array.from(back.data as Float32Array)).toEqual([1, 2, 3]);
    expect(deviceUses).toBe(2);
    t.dispose();
    expect(memory.liveBytes).toBe(0);
  });

  it('a device output tells when it is copied to the host, through the EP or its own handle', async () => {
    const log: string[] = [];
    const memory = new RocmDeviceMemory(fakeBinding(log), 0, 1 << 20);
    let hostReads = 0;
    const { tensor, buffer } = memory.allocate('int32', [2], () => hostReads++);
    buffer.upload(Int32Array.from([7, -7]));
    expect(Array.from((await memory.download(tensor)).data as Int32Array)).toEqual([7, -7]);
    expect(Array.from((await tensor.getData()) as Int32Array)).toEqual([7, -7]);
    expect(hostReads).toBe(2);
    tensor.dispose();
    expect(memory.liveBytes).toBe(0);
  });
});

describe('RocmDeviceMemory.dispose', () => {
  it("hands the arena's cached chunks back and starts a new arena for a later allocation", () => {
    const log: string[] = [];
    const memory = new RocmDeviceMemory(fakeBinding(log), 0, 1 << 20);
    memory.dispose(); // no arena yet: nothing to give back
    expect(log).toEqual([]);
    const first = memory.allocate('float32', [4]);
    memory.dispose();
    expect(log).toEqual(['shrink']);
    // A tensor allocated before stays usable; the next allocation makes a fresh arena.
    first.buffer.free();
    memory.allocate('float32', [4]);
    memory.dispose();
    expect(log).toEqual(['shrink', 'free', 'shrink']);
  });
});

describe('RocmDeviceMemory uploaded tensors (uploadTensor)', () => {
  it('copies once, passes through staging without another copy, and refuses use after dispose', () => {
    const log: string[] = [];
    const memory = new RocmDeviceMemory(fakeBinding(log), 0, 1 << 20);
    const t = memory.upload(new Tensor('float32', Float32Array.from([1, 2, 3, 4]), [4]));
    expect(log).toEqual(['upload']);
    const bound = memory.stage(t);
    expect(memory.bufferOf(bound, 'test')).toBe(memory.bufferOf(t, 'test'));
    expect(log).toEqual(['upload']);
    t.dispose();
    expect(log).toEqual(['upload', 'free']);
    expect(() => memory.stage(t)).toThrow(/used after its dispose/);
    expect(() => memory.bufferOf(t, 'test')).toThrow(/used after its dispose/);
    t.dispose(); // twice is harmless
    expect(log).toEqual(['upload', 'free']);
  });
});
