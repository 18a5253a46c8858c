import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Tensor, registerExecutionProvider, type FusedPartition } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import type { CompileRequest, CompiledProgram, ProgramSerializer } from '../program/program-compiler.js';
import { CpuProgramCompiler, CpuProgramSerializer } from '../testing/cpu-program-compiler.js';
import { MigraphxPartition } from '../migraphx-partition.js';
import { resolveMigraphxOptions } from '../migraphx-options.js';
import { cacheKey, cacheKeyParts, type CacheKeyParts } from './cache-key.js';
import { CACHE_MAGIC, decodeCacheFile, encodeCacheFile } from './cache-file.js';
import { ProgramCache, type CacheEvent } from './program-cache.js';

registerExecutionProvider(cpuFactory);

const request = (over: Partial<CompileRequest> = {}): CompileRequest => ({
  name: 'p',
  onnx: Uint8Array.of(1, 2, 3),
  inputShapes: new Map([['x', [1, 3]], ['y', [2]]]),
  defaultDimValue: 1,
  quantization: 'none',
  calibration: [],
  target: 'gpu',
  offloadCopy: true,
  exhaustiveTune: false,
  fastMath: false,
  ...over,
});
const identity = { version: '2.16.0', target: 'gpu', deviceArch: 'gfx90a' };

describe('cacheKey', () => {
  const base = cacheKeyParts(identity, request());

  it('is a stable 64-hex-digit digest that ignores the order shapes were given in', () => {
    expect(cacheKey(base)).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKey(cacheKeyParts(identity, request({ inputShapes: new Map([['y', [2]], ['x', [1, 3]]]) })))).toBe(cacheKey(base));
  });

  it('changes with every field it depends on', () => {
    const variants: Array<[string, CacheKeyParts]> = [
      ['version', { ...base, identity: { ...identity, version: '2.15.0' } }],
      ['target', { ...base, identity: { ...identity, target: 'ref' } }],
      ['device arch', { ...base, identity: { ...identity, deviceArch: 'gfx942' } }],
      ['onnx bytes', cacheKeyParts(identity, request({ onnx: Uint8Array.of(1, 2, 4) }))],
      ['an input shape', cacheKeyParts(identity, request({ inputShapes: new Map([['x', [2, 3]], ['y', [2]]]) }))],
      ['an input name', cacheKeyParts(identity, request({ inputShapes: new Map([['x', [1, 3]], ['z', [2]]]) }))],
      ['fp16', cacheKeyParts(identity, request({ quantization: 'fp16' }))],
      ['bf16', cacheKeyParts(identity, request({ quantization: 'bf16' }))],
      ['int8', cacheKeyParts(identity, request({ quantization: 'int8' }))],
      ['calibration data', cacheKeyParts(identity, request({ quantization: 'int8', calibration: [{ x: new Tensor('float32', Float32Array.of(1, 2, 3), [1, 3]) }] }))],
      ['offloadCopy', cacheKeyParts(identity, request({ offloadCopy: false }))],
      ['exhaustiveTune', cacheKeyParts(identity, request({ exhaustiveTune: true }))],
      ['fastMath', cacheKeyParts(identity, request({ fastMath: true }))],
      ['defaultDimValue', cacheKeyParts(identity, request({ defaultDimValue: 4 }))],
    ];
    const keys = new Map<string, string>([[cacheKey(base), 'base']]);
    for (const [what, parts] of variants) {
      const key = cacheKey(parts);
      expect(keys.get(key), `changing ${what} gave the key of ${keys.get(key)}`).toBeUndefined();
      keys.set(key, what);
    }
    // Calibration values matter, not just their presence.
    const cal = (v: number) => cacheKey(cacheKeyParts(identity, request({ quantization: 'int8', calibration: [{ x: new Tensor('float32', Float32Array.of(v, 2, 3), [1, 3]) }] })));
    expect(cal(1)).not.toBe(cal(1.5));
  });
});

describe('cache file', () => {
  const key = 'a'.repeat(64);
  const payload = Uint8Array.from({ length: 100 }, (_, i) => i);

  it('round-trips a payload', () => {
    const file = encodeCacheFile(key, payload);
    expect(new TextDecoder().decode(file.subarray(0, 8))).toBe(CACHE_MAGIC);
    expect(decodeCacheFile(file, key)).toEqual({ ok: true, payload });
  });

  it('detects every kind of damage', () => {
    const file = encodeCacheFile(key, payload);
    const flipped = file.slice();
    flipped[flipped.length - 7] ^= 1;
    const reason = (bytes: Uint8Array, k = key) => {
      const r = decodeCacheFile(bytes, k);
      return r.ok ? 'accepted' : r.reason;
    };
    expect(reason(flipped)).toBe('checksum mismatch (corrupt)');
    expect(reason(file.subarray(0, file.length - 1))).toMatch(/payload is 99 bytes, header says 100/);
    expect(reason(file.subarray(0, 10))).toMatch(/truncated header/);
    expect(reason(file.subarray(0, 40))).toMatch(/truncated header/);
    expect(reason(file, 'b'.repeat(64))).toMatch(/holds the program for key aaaaaaaaaaaa…, not bbbbbbbbbbbb… \(stale\)/);
    const badMagic = file.slice();
    badMagic[0] = 0x41;
    expect(reason(badMagic)).toMatch(/bad magic/);
    const oldVersion = file.slice();
    new DataView(oldVersion.buffer).setUint32(8, 0, true);
    expect(reason(oldVersion)).toMatch(/format version 0, expected 1 \(stale\)/);
    const grown = new Uint8Array(file.length + 1);
    grown.set(file);
    expect(reason(grown)).toMatch(/payload is 101 bytes, header says 100/);
  });
});

/** A program serializer that writes a fixed payload, counting loads, to exercise the cache alone. */
class FakeSerializer implements ProgramSerializer {
  loads = 0;
  failLoad = false;
  async save(): Promise<Uint8Array> {
    return new TextEncoder().encode('program-bytes');
  }
  async load(bytes: Uint8Array): Promise<CompiledProgram> {
    if (this.failLoad) throw new Error('msgpack: unexpected end of data');
    this.loads++;
    expect(new TextDecoder().decode(bytes)).toBe('program-bytes');
    return { run: async () => [], dispose: () => {} };
  }
}

describe('ProgramCache', () => {
  const program: CompiledProgram = { run: async () => [], dispose: () => {} };

  it('stores atomically, loads, and removes corrupt, stale or unloadable files instead of using them', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'sy-mgx-cache-')), 'nested');
    const events: CacheEvent[] = [];
    const serializer = new FakeSerializer();
    const cache = new ProgramCache(dir, serializer, (e) => events.push(e));
    const key = 'c'.repeat(64);
    expect(await cache.load(key)).toBeUndefined();
    await cache.store(key, program);
    expect(readdirSync(dir)).toEqual([`${key}.mxprog`]); // no temporary left behind
    expect(await cache.load(key)).toBeDefined();
    expect(serializer.loads).toBe(1);

    const bytes = readFileSync(cache.pathOf(key));
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(cache.pathOf(key), bytes);
    expect(await cache.load(key)).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
    expect(serializer.loads).toBe(1);

    // A file copied under another key's name is stale.
    await cache.store(key, program);
    writeFileSync(cache.pathOf('d'.repeat(64)), readFileSync(cache.pathOf(key)));
    expect(await cache.load('d'.repeat(64))).toBeUndefined();

    serializer.failLoad = true;
    expect(await cache.load(key)).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
    expect(events.map((e) => (e.kind === 'rejected' ? `rejected: ${e.reason}` : e.kind))).toEqual([
      'miss', 'stored', 'hit',
      'rejected: checksum mismatch (corrupt)',
      'stored',
      expect.stringMatching(/^rejected: holds the program for key cccc/),
      'rejected: the library could not load it: msgpack: unexpected end of data',
    ]);
  });

  it('reports a failed store without throwing', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sy-mgx-cache-')), 'a-file');
    writeFileSync(file, '');
    const events: CacheEvent[] = [];
    await new ProgramCache(join(file, 'sub'), new FakeSerializer(), (e) => events.push(e)).store('e'.repeat(64), program);
    expect(events).toEqual([{ kind: 'store-failed', key: 'e'.repeat(64), reason: expect.stringMatching(/ENOTDIR|EEXIST/) }]);
  });
});

describe('a partition with a cache directory', () => {
  const model = () =>
    buildModel({
      inputs: [['x', 'float32', [2, 3]]],
      outputs: [['y', 'float32', [2, 3]]],
      nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['r'] }, { op: 'Neg', inputs: ['r'], outputs: ['y'] }],
    });
  const partitionOf = (): FusedPartition => {
    const graph = model().graph;
    return { name: 'p0', graph, nodes: graph.nodes, inputNames: ['x'], outputNames: ['y'] };
  };
  const x = new Tensor('float32', Float32Array.of(-1, 2, -3, 4, -5, 6), [2, 3]);
  // -0 and 0 are the same answer here.
  const values = (out: unknown[]) => Array.from((out[0] as Tensor).data as Float32Array, (v) => v + 0);

  it('compiles once, reloads in a new session, and rebuilds over a corrupted file', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'sy-mgx-pcache-'));
    const options = resolveMigraphxOptions({ cacheDir, target: 'ref' });
    const compiler = new CpuProgramCompiler();
    const serializer = new CpuProgramSerializer(compiler);
    const open = () => MigraphxPartition.create(partitionOf(), { compiler, cache: new ProgramCache(cacheDir, serializer), options });
    const expected = [0, -2, 0, -4, 0, -6];

    const first = await open();
    expect(values(await first.run([x]))).toEqual(expected);
    expect([first.compiles, first.cacheLoads, serializer.saves]).toEqual([1, 0, 1]);

    const second = await open();
    expect(values(await second.run([x]))).toEqual(expected);
    expect([second.compiles, second.cacheLoads, serializer.loads]).toEqual([0, 1, 1]);

    const [file] = readdirSync(cacheDir);
    const bytes = readFileSync(join(cacheDir, file));
    bytes[bytes.length - 3] ^= 0x20;
    writeFileSync(join(cacheDir, file), bytes);
    const third = await open();
    expect(values(await third.run([x]))).toEqual(expected);
    expect([third.compiles, third.cacheLoads, serializer.loads]).toEqual([1, 0, 1]);
    // The rebuilt program was written back, intact.
    const fourth = await open();
    await fourth.run([x]);
    expect([fourth.compiles, fourth.cacheLoads]).toEqual([0, 1]);
    for (const p of [first, second, third, fourth]) p.dispose();
  });
});
