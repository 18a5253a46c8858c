/**
 * The scheduler on real sessions of a small model built in code (Softmax over the last axis of
 * [batch, len], both dims dynamic): what stacks, what must not, and how a failing instance is
 * taken out while the others keep serving.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, SwitchyardError, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { registerCpu, seededFloats } from '../testing/fixtures.js';
import { ModelInstance, type Runner } from './model-instance.js';
import { ModelScheduler, type SchedulerObserver } from './model-scheduler.js';
import { stackKeyOf } from './stacking.js';

registerCpu();

function softmaxModel() {
  return buildModel({
    inputs: [['x', 'float32', ['batch', 'len']]],
    outputs: [['y', 'float32', ['batch', 'len']]],
    nodes: [{ op: 'Softmax', inputs: ['x'], outputs: ['y'], attributes: { axis: 1 } }],
  });
}

async function session(): Promise<InferenceSession> {
  return InferenceSession.fromModel(softmaxModel(), { executionProviders: ['cpu'] });
}

function recorder() {
  const runs: Array<{ rows: number; requests: number }> = [];
  const observer: SchedulerObserver = { queueDepth: () => undefined, batchRun: (rows, requests) => runs.push({ rows, requests }), instancesChanged: () => undefined };
  return { runs, observer };
}

const feed = (rows: number, len: number, seed: number) => ({ x: new Tensor('float32', seededFloats(rows * len, seed), [rows, len]) });

describe('stacking', () => {
  it('keys: equal for equal trailing dims and types, different otherwise; none when inputs disagree on rows', () => {
    const a = stackKeyOf(feed(1, 3, 1));
    expect(a).toEqual({ key: 'x:float32:3', rows: 1 });
    expect(stackKeyOf(feed(4, 3, 1))?.key).toBe(a!.key);
    expect(stackKeyOf(feed(1, 5, 1))?.key).not.toBe(a!.key);
    expect(stackKeyOf({ x: new Tensor('float64', new Float64Array(3), [1, 3]) })?.key).not.toBe(a!.key);
    expect(stackKeyOf({ a: new Tensor('float32', new Float32Array(3), [1, 3]), b: new Tensor('float32', new Float32Array(6), [2, 3]) })).toBeUndefined();
  });
});

describe('ModelScheduler', () => {
  it('stacks requests of one shape, never mixes shapes that cannot stack, and splits results equal to lone runs', async () => {
    const s = await session();
    const { runs, observer } = recorder();
    const scheduler = new ModelScheduler([new ModelInstance(0, s, undefined, [])], { batching: { maxBatchSize: 8, maxQueueDelayMs: 50 }, maxQueueLength: 16, observer });
    const requests = [feed(1, 3, 1), feed(2, 5, 2), feed(2, 3, 3), feed(1, 5, 4), feed(1, 3, 5)];
    const results = await Promise.all(requests.map((r) => scheduler.submit(r)));
    // Two runs: the len-3 requests (1+2+1 rows) together, the len-5 ones (2+1 rows) together.
    expect(runs.sort((a, b) => a.rows - b.rows)).toEqual([{ rows: 3, requests: 2 }, { rows: 4, requests: 3 }]);
    for (const [i, r] of requests.entries()) {
      const alone = await s.run(r);
      expect(results[i].y.dims).toEqual(r.x.dims);
      expect(Array.from(results[i].y.data as Float32Array)).toEqual(Array.from((alone.y as Tensor).data as Float32Array));
    }
    await s.release();
  });

  it('maxBatchSize bounds the rows of one run; without batching every request runs alone', async () => {
    const s = await session();
    const bounded = recorder();
    const scheduler = new ModelScheduler([new ModelInstance(0, s, undefined, [])], { batching: { maxBatchSize: 3, maxQueueDelayMs: 50 }, maxQueueLength: 16, observer: bounded.observer });
    await Promise.all([1, 2, 3, 4, 5].map((seed) => scheduler.submit(feed(1, 4, seed))));
    expect(bounded.runs.map((r) => r.rows).sort()).toEqual([2, 3]);
    const off = recorder();
    const plain = new ModelScheduler([new ModelInstance(0, s, undefined, [])], { batching: undefined, maxQueueLength: 16, observer: off.observer });
    await Promise.all([1, 2, 3].map((seed) => plain.submit(feed(1, 4, seed))));
    expect(off.runs).toEqual([{ rows: 1, requests: 1 }, { rows: 1, requests: 1 }, { rows: 1, requests: 1 }]);
    await s.release();
  });

  it('refuses with 503 past maxQueueLength', async () => {
    const s = await session();
    const scheduler = new ModelScheduler([new ModelInstance(0, s, undefined, [])], { batching: { maxBatchSize: 8, maxQueueDelayMs: 30 }, maxQueueLength: 2, observer: recorder().observer });
    const settled = await Promise.allSettled([1, 2, 3, 4].map((seed) => scheduler.submit(feed(1, 4, seed))));
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected']);
    expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ status: 503, message: expect.stringMatching(/queue is full \(2 requests waiting\)/) });
    await s.release();
  });

  it('spreads work over idle instances; one whose runs fail with a device error is taken out, its batch rerun elsewhere', async () => {
    const good = await session();
    const bad = await session();
    // Fault injection: the second instance's device "fails" on every run.
    let badCalls = 0;
    const broken: Runner = { run: async () => { badCalls++; throw new SwitchyardError('EP_FAILED', 'rocm: device lost'); }, release: () => bad.release() };
    const { runs, observer } = recorder();
    const instances = [new ModelInstance(0, good, undefined, []), new ModelInstance(1, broken, 0, [])];
    const scheduler = new ModelScheduler(instances, { batching: undefined, maxQueueLength: 16, observer });
    const requests = [1, 2, 3, 4, 5, 6].map((seed) => feed(1, 4, seed));
    const results = await Promise.all(requests.map((r) => scheduler.submit(r)));
    expect(badCalls).toBe(1);
    expect(instances[1].healthy).toBe(false);
    expect(instances[1].failure).toMatch(/device 0 failed: rocm: device lost/);
    expect(scheduler.healthyInstances).toBe(1);
    for (const [i, r] of requests.entries()) expect(Array.from(results[i].y.data as Float32Array)).toEqual(Array.from(((await good.run(r)).y as Tensor).data as Float32Array));
    expect(runs.length).toBe(7);
    await good.release();
  });

  it('with every instance out, queued and new requests get 503 saying why', async () => {
    const s = await session();
    const broken: Runner = { run: async () => { throw new SwitchyardError('EP_FAILED', 'device 1 fell off the bus'); }, release: () => s.release() };
    const scheduler = new ModelScheduler([new ModelInstance(0, broken, 1, [])], { batching: undefined, maxQueueLength: 16, observer: recorder().observer });
    const settled = await Promise.allSettled([1, 2, 3].map((seed) => scheduler.submit(feed(1, 4, seed))));
    for (const r of settled) expect((r as PromiseRejectedResult).reason).toMatchObject({ status: 503, message: expect.stringMatching(/fell off the bus/) });
    await expect(scheduler.submit(feed(1, 4, 9))).rejects.toMatchObject({ status: 503, message: expect.stringMatching(/no healthy instance/) });
  });

  it('an error that is the request\'s, not the device\'s, is answered and leaves the instance in', async () => {
    const s = await session();
    const scheduler = new ModelScheduler([new ModelInstance(0, s, undefined, [])], { batching: undefined, maxQueueLength: 16, observer: recorder().observer });
    await expect(scheduler.submit({ x: new Tensor('float64', new Float64Array(4), [1, 4]) })).rejects.toMatchObject({ name: 'SwitchyardError' });
    expect(scheduler.healthyInstances).toBe(1);
    expect((await scheduler.submit(feed(1, 4, 1))).y.dims).toEqual([1, 4]);
    await s.release();
  });

  it('drain answers what is queued without waiting for batches to fill, and later arrivals too', async () => {
    const s = await session();
    const scheduler = new ModelScheduler([new ModelInstance(0, s, undefined, [])], { batching: { maxBatchSize: 64, maxQueueDelayMs: 10_000 }, maxQueueLength: 16, observer: recorder().observer });
    const pending = [1, 2, 3].map((seed) => scheduler.submit(feed(1, 4, seed)));
    const started = performance.now();
    await scheduler.drain();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect((await Promise.all(pending)).length).toBe(3);
    // A request still arriving while the server closes is run at once, not held for a batch.
    const late = performance.now();
    expect((await scheduler.submit(feed(1, 4, 4))).y.dims).toEqual([1, 4]);
    expect(performance.now() - late).toBeLessThan(5_000);
    await s.release();
  });
});
