// Against a real MIGraphX, on its reference target (no GPU needed). Enabled only when
// SWITCHYARD_MIGRAPHX_LIB names a libmigraphx_c.so (a build from source finds its siblings through its
// RUNPATH; a copied one needs its folder on LD_LIBRARY_PATH); skipped everywhere else, CI included.
// Small models only: `ref` is slow. README.md says how MIGraphX was built for it and what it measured.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, float16BitsToFloat32, float32ToFloat16Bits, loadModel, registerExecutionProvider, type Model } from '@switchyard/core';
import { compareTensors } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { MigraphxExecutionProvider } from '../migraphx-provider.js';
import type { MigraphxProviderOptions } from '../migraphx-options.js';
import type { CacheEvent } from '../cache/program-cache.js';
import { encoderFeeds, seededRandom, tinyEncoder } from '../testing/tiny-encoder.js';

registerExecutionProvider(cpuFactory);

const LIB = process.env.SWITCHYARD_MIGRAPHX_LIB;
const tinyCnn = join(import.meta.dirname, '..', '..', '..', '..', 'examples', 'models', 'tiny-cnn.onnx');

function image(seed: number): Tensor {
  const random = seededRandom(seed);
  return new Tensor('float32', Float32Array.from({ length: 3 * 32 * 32 }, () => random() * 2 - 1), [1, 3, 32, 32]);
}

async function onMigraphx(model: () => Promise<Model>, options: MigraphxProviderOptions, events: CacheEvent[] = []) {
  const ep = new MigraphxExecutionProvider({ target: 'ref', cacheDir: false, ...options }, { onCacheEvent: (e) => events.push(e) });
  const session = await InferenceSession.fromModel(await model(), { executionProviders: [ep, 'cpu'] });
  return { ep, session };
}

async function expectClose(a: Record<string, unknown>, b: Record<string, unknown>, names: readonly string[], tolerance: { atol: number; rtol: number }) {
  for (const name of names) expect(compareTensors(a[name] as Tensor, b[name] as Tensor, tolerance), name).toBeUndefined();
}

describe.skipIf(!LIB)(`MIGraphX (${LIB ?? 'SWITCHYARD_MIGRAPHX_LIB unset'}) on the ref target`, () => {
  it('runs the demo model (tiny-cnn) like ep-cpu', async () => {
    const { ep, session } = await onMigraphx(() => loadModel(tinyCnn), {});
    const cpu = await InferenceSession.create(tinyCnn, { executionProviders: ['cpu'] });
    // Every operator of the demo model is in the real parser's registry: the whole graph is one partition.
    expect(session.placement.nodes.every((n) => n.ep === 'migraphx')).toBe(true);
    expect(ep.library?.operators).toEqual(expect.arrayContaining(['Conv', 'Relu', 'MaxPool', 'GlobalAveragePool', 'Flatten', 'Gemm', 'Softmax']));
    expect(ep.describe()).toMatch(/^MIGraphX .*target ref$/);
    for (const seed of [1, 2]) {
      const feeds = { [session.inputNames[0]]: image(seed) };
      await expectClose(await session.run(feeds), await cpu.run(feeds), session.outputNames, { atol: 1e-5, rtol: 1e-4 });
    }
    await session.release();
    await cpu.release();
  });

  it('gives each of several concurrent run() calls on one session its own correct result', async () => {
    const { session } = await onMigraphx(() => loadModel(tinyCnn), {});
    const cpu = await InferenceSession.create(tinyCnn, { executionProviders: ['cpu'] });
    const feeds = [3, 4, 5, 6, 7, 8].map((seed) => ({ [session.inputNames[0]]: image(seed) }));
    const [together, expected] = await Promise.all([Promise.all(feeds.map((f) => session.run(f))), Promise.all(feeds.map((f) => cpu.run(f)))]);
    for (let i = 0; i < feeds.length; i++) await expectClose(together[i], expected[i], session.outputNames, { atol: 1e-5, rtol: 1e-4 });
    await session.release();
    await cpu.release();
  });

  it('runs a BERT-style encoder like ep-cpu, batch buckets included', async () => {
    const { ep, session } = await onMigraphx(async () => tinyEncoder('batch'), { dynamicBatch: { max: 4 } });
    const cpu = await InferenceSession.fromModel(tinyEncoder('batch'), { executionProviders: ['cpu'] });
    // Gather, LayerNormalization, Erf, the int64 mask's Cast…: all parsed by MIGraphX, one partition.
    expect(session.placement.nodes.every((n) => n.ep === 'migraphx')).toBe(true);
    expect(ep.partitions.length).toBe(1);
    for (const batch of [1, 3, 4]) {
      const feeds = encoderFeeds(batch);
      await expectClose(await session.run(feeds), await cpu.run(feeds), ['last_hidden_state', 'pooler_output'], { atol: 1e-4, rtol: 1e-3 });
    }
    // Batches 3 and 4 share the bucket of 4: two programs, not three.
    expect(ep.partitions[0].compiles).toBe(2);
    await session.release();
    await cpu.release();
  });

  it('saves compiled programs to the cache and reloads them, with identical outputs', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'sy-mgx-ref-cache-'));
    const events: CacheEvent[] = [];
    const feeds = { input: image(3) };
    const first = await onMigraphx(() => loadModel(tinyCnn), { cacheDir }, events);
    const a = await first.session.run({ [first.session.inputNames[0]]: feeds.input });
    expect(events.filter((e) => e.kind === 'stored').length).toBeGreaterThan(0);
    const second = await onMigraphx(() => loadModel(tinyCnn), { cacheDir }, events);
    const b = await second.session.run({ [second.session.inputNames[0]]: feeds.input });
    expect(second.ep.partitions.reduce((s, p) => s + p.compiles, 0)).toBe(0);
    expect(second.ep.partitions.reduce((s, p) => s + p.cacheLoads, 0)).toBeGreaterThan(0);
    for (const name of first.session.outputNames) expect(Array.from((b[name] as Tensor).data as Float32Array)).toEqual(Array.from((a[name] as Tensor).data as Float32Array));
    await first.session.release();
    await second.session.release();
  });

  it('runs fp16-quantized programs close to float32', async () => {
    const fp32 = await onMigraphx(() => loadModel(tinyCnn), {});
    const fp16 = await onMigraphx(() => loadModel(tinyCnn), { fp16: true });
    const feeds = { [fp32.session.inputNames[0]]: image(4) };
    const [a, b] = [await fp32.session.run(feeds), await fp16.session.run(feeds)];
    for (const name of fp32.session.outputNames) {
      const x = (a[name] as Tensor).data as Float32Array;
      const y = (b[name] as Tensor).data as Float32Array;
      expect((b[name] as Tensor).type).toBe('float32');
      for (let i = 0; i < x.length; i++) expect(Math.abs(x[i] - y[i])).toBeLessThan(0.02);
      expect(y.indexOf(Math.max(...y))).toBe(x.indexOf(Math.max(...x)));
      // Evidence the program really computed in half precision: its float32 results are float16
      // values converted back (each survives a round trip through float16), and differ from fp32's.
      for (const v of y) expect(float16BitsToFloat32(float32ToFloat16Bits(v))).toBe(v);
      expect(Array.from(y)).not.toEqual(Array.from(x));
    }
    await fp32.session.release();
    await fp16.session.release();
  });

  it('refuses deviceId on the host target, and leaves a partition whose weights pass memLimit to ep-cpu', async () => {
    await expect(onMigraphx(() => loadModel(tinyCnn), { deviceId: 1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining("needs the 'gpu' target") });
    const { session } = await onMigraphx(() => loadModel(tinyCnn), { memLimit: 1 });
    expect(session.placement.nodes.some((n) => n.ep === 'migraphx')).toBe(false);
    const reasons = session.placement.nodes.flatMap((n) => n.declined ?? []).filter((d) => d.ep === 'migraphx').map((d) => d.reason.message);
    expect(reasons.some((m) => /weights need \d+ bytes of device memory, past memLimit \(1 bytes\)/.test(m))).toBe(true);
    await session.release();
  });
});
