import { describe, expect, it } from 'vitest';
import { AbortError, SwitchyardError } from '../errors.js';
import type { ExecutionProvider } from '../ep/execution-provider.js';
import { defineKernel } from '../registry/kernel-def.js';
import { Tensor } from '../tensor/tensor.js';
import { buildModel } from '../testing/build-model.js';
import { InferenceSession } from './inference-session.js';

/** A host EP whose `Slow` kernel adds 1 after holding the thread (sync) or awaiting a timer (async) for `ms`. */
function slowProvider(ms: number, mode: 'sync' | 'async'): ExecutionProvider & { calls: number } {
  const ep = {
    name: 'slow',
    calls: 0,
    kernels: [
      defineKernel({
        ep: 'slow',
        domain: 'test.slow',
        opType: 'Slow',
        sinceVersion: 1,
        create: () => ({
          run: (ctx) => {
            ep.calls++;
            const x = ctx.input(0);
            const out = ctx.output(0, 'float32', x.dims);
            const finish = () => {
              (out.data as Float32Array).forEach((_, i, o) => (o[i] = (x.data as Float32Array)[i] + 1));
              return [out];
            };
            if (mode === 'async') return new Promise((resolve) => setTimeout(() => resolve(finish()), ms));
            const until = performance.now() + ms;
            while (performance.now() < until);
            return finish();
          },
        }),
      }),
    ],
  };
  return ep;
}

/** x → Slow → … → Slow (n nodes) → y: y = x + n. */
function chain(n: number) {
  const model = buildModel({
    inputs: [['x', 'float32', [4]]],
    outputs: [['y', 'float32', [4]]],
    nodes: Array.from({ length: n }, (_, i) => ({ op: 'Slow', domain: 'test.slow', inputs: [i === 0 ? 'x' : `v${i}`], outputs: [i === n - 1 ? 'y' : `v${i + 1}`] })),
  });
  model.graph.opsetImports.set('test.slow', 1);
  return model;
}

const x = () => new Tensor('float32', Float32Array.of(0, 1, 2, 3), [4]);

async function session(n: number, ms: number, mode: 'sync' | 'async') {
  const ep = slowProvider(ms, mode);
  const s = await InferenceSession.fromModel(chain(n), { executionProviders: [ep], disableCpuFallback: true, graphOptimizationLevel: 'disabled' });
  return { s, ep };
}

async function expectAbort(p: Promise<unknown>): Promise<AbortError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AbortError);
  expect(err).toBeInstanceOf(SwitchyardError);
  expect(err).toMatchObject({ name: 'AbortError', code: 'ABORTED' });
  return err as AbortError;
}

describe.each(['sync', 'async'] as const)('run cancellation (%s kernels)', (mode) => {
  it('an AbortSignal stops a long run between kernels, soon after it fires; the session stays usable', async () => {
    // 150 nodes of 4 ms: about 0.6 s uncancelled.
    const { s, ep } = await session(150, 4, mode);
    const controller = new AbortController();
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = performance.now();
      controller.abort(new Error('user pressed stop'));
    }, 60);
    const err = await expectAbort(s.run({ x: x() }, undefined, { signal: controller.signal }));
    const latency = performance.now() - abortedAt;
    expect(err.message).toContain('user pressed stop');
    expect(ep.calls).toBeLessThan(150);
    // A kernel boundary comes every 4 ms; a shared machine gets generous slack.
    expect(latency).toBeLessThan(250);
    ep.calls = 0;
    const out = await s.run({ x: x() });
    expect(Array.from((out.y as Tensor).data as Float32Array)).toEqual([150, 151, 152, 153]);
    expect(ep.calls).toBe(150);
    await s.release();
  });

  it('runOptions.terminate set while the run is in flight stops it', async () => {
    const { s, ep } = await session(150, 4, mode);
    const options: { terminate?: boolean } = {};
    setTimeout(() => (options.terminate = true), 40);
    const err = await expectAbort(s.run({ x: x() }, undefined, options));
    expect(err.message).toContain('terminate');
    expect(ep.calls).toBeLessThan(150);
    const out = await s.run({ x: x() }, undefined, { terminate: false });
    expect(Array.from((out.y as Tensor).data as Float32Array)).toEqual([150, 151, 152, 153]);
    await s.release();
  });

  it('runOptions.timeoutMs stops a run that takes longer', async () => {
    const { s, ep } = await session(150, 4, mode);
    const started = performance.now();
    const err = await expectAbort(s.run({ x: x() }, undefined, { timeoutMs: 60 }));
    expect(err.message).toContain('timeoutMs');
    expect(performance.now() - started).toBeLessThan(300);
    expect(ep.calls).toBeLessThan(150);
    // A generous timeout lets the run finish.
    const out = await s.run({ x: x() }, undefined, { timeoutMs: 60_000 });
    expect(Array.from((out.y as Tensor).data as Float32Array)).toEqual([150, 151, 152, 153]);
    await s.release();
  });
});

describe('run cancellation', () => {
  it('an already-aborted signal rejects before any kernel runs', async () => {
    const { s, ep } = await session(3, 0, 'sync');
    await expectAbort(s.run({ x: x() }, undefined, { signal: AbortSignal.abort() }));
    expect(ep.calls).toBe(0);
    // So does a terminate flag that is already set.
    await expectAbort(s.run({ x: x() }, undefined, { terminate: true }));
    expect(ep.calls).toBe(0);
    await s.release();
  });

  it('aborting one run leaves concurrent runs of the same session alone', async () => {
    const { s } = await session(40, 2, 'async');
    const controller = new AbortController();
    const runs = [s.run({ x: x() }), s.run({ x: x() }, undefined, { signal: controller.signal }), s.run({ x: x() })];
    setTimeout(() => controller.abort(), 20);
    const [a, b, c] = await Promise.allSettled(runs);
    expect(b.status).toBe('rejected');
    for (const r of [a, c]) {
      expect(r.status).toBe('fulfilled');
      expect(Array.from(((r as PromiseFulfilledResult<Record<string, Tensor>>).value.y.data as Float32Array))).toEqual([40, 41, 42, 43]);
    }
    await s.release();
  });

  it('refuses malformed cancellation options', async () => {
    const { s } = await session(1, 0, 'sync');
    await expect(s.run({ x: x() }, undefined, { signal: {} as AbortSignal })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(s.run({ x: x() }, undefined, { timeoutMs: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(s.run({ x: x() }, undefined, { terminate: 'yes' as unknown as boolean })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await s.release();
  });
});
