/**
 * Serving behaviour over real HTTP with the repo's SqueezeNet 1.1 (symbolic batch dim): dynamic
 * batching proven by the metrics and checked against unbatched runs, limits answered with 503,
 * instance failure, and a shutdown that finishes what it accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InferenceSession, SwitchyardError, Tensor } from '@switchyard/core';
import { startServer, type RunningServer } from '../server.js';
import { SQUEEZENET, TINY_CNN, makeRepository, postJson, registerCpu, request, seededFloats } from '../testing/fixtures.js';

const PIXELS = 3 * 224 * 224;
const images = [11, 12, 13, 14].map((seed) => seededFloats(PIXELS, seed));
const squeezeRequest = (rows: Float32Array[]) => ({
  inputs: [{ name: 'input', shape: [rows.length, 3, 224, 224], datatype: 'FP32', data: rows.flatMap((r) => Array.from(r)) }],
});

function metric(text: string, pattern: RegExp): number {
  const m = text.match(pattern);
  return m ? Number(m[1]) : NaN;
}

registerCpu();

describe('dynamic batching over HTTP', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const repository = makeRepository({
      squeeze: { versions: { '1': SQUEEZENET }, config: { dynamicBatching: { maxBatchSize: 5, maxQueueDelayMs: 20_000 }, sessionOptions: { intraOpNumThreads: 1 } } },
    });
    server = await startServer({ repository, port: 0, defaultExecutionProviders: ['cpu'], processMetrics: false });
  });
  afterAll(() => server?.close());

  it('concurrent requests are stacked into one run and each gets what an unbatched run gives', async () => {
    // Three requests of one image and one of two: five rows, maxBatchSize, so one run as soon as all are in.
    const bodies = [squeezeRequest([images[0]]), squeezeRequest([images[1], images[2]]), squeezeRequest([images[3]]), squeezeRequest([images[2]])];
    const replies = await Promise.all(bodies.map((b) => postJson(`${server.url}/v2/models/squeeze/infer`, b)));
    const text = (await request(`${server.url}/metrics`)).body.toString();
    expect(metric(text, /switchyard_batch_size_count\{model="squeeze",version="1"\} (\d+)/)).toBe(1);
    expect(metric(text, /switchyard_batch_size_sum\{model="squeeze",version="1"\} (\d+)/)).toBe(5);
    expect(metric(text, /switchyard_stacked_requests_total\{model="squeeze",version="1"\} (\d+)/)).toBe(4);

    const session = await InferenceSession.create(SQUEEZENET, { executionProviders: ['cpu'], intraOpNumThreads: 1 });
    for (const [i, reply] of replies.entries()) {
      expect(reply.status, reply.body.toString()).toBe(200);
      const out = (reply.json().outputs as Array<{ name: string; shape: number[]; data: number[] }>)[0];
      const rows = bodies[i].inputs[0].shape[0];
      expect(out.shape).toEqual([rows, 1000]);
      const alone = ((await session.run({ input: new Tensor('float32', Float32Array.from(bodies[i].inputs[0].data), [rows, 3, 224, 224]) })).logits as Tensor).data as Float32Array;
      let worst = 0;
      for (let k = 0; k < alone.length; k++) worst = Math.max(worst, Math.abs(out.data[k] - alone[k]) / (1e-4 + Math.abs(alone[k])));
      // Batch size may change the convolution algorithm oneDNN picks: equal within float32 rounding.
      expect(worst).toBeLessThan(1e-3);
    }
    await session.release();
  });
});

describe('limits, failures and shutdown', () => {
  it('a full queue and too many requests in flight get 503 with the error object; what was accepted is answered', async () => {
    // Batch windows longer than the test hold accepted requests in their queues until close() drains them.
    const hold = { dynamicBatching: { maxBatchSize: 8, maxQueueDelayMs: 60_000 }, sessionOptions: { intraOpNumThreads: 1 } };
    const repository = makeRepository({
      short: { versions: { '1': SQUEEZENET }, config: { ...hold, maxQueueLength: 1 } },
      long: { versions: { '1': SQUEEZENET }, config: { ...hold, maxQueueLength: 10 } },
    });
    const server = await startServer({ repository, port: 0, defaultExecutionProviders: ['cpu'], processMetrics: false, maxConcurrentRequests: 3 });
    const body = squeezeRequest([images[0]]);
    const send = (model: string) => postJson(`${server.url}/v2/models/${model}/infer`, body);
    const queued = async (model: string, n: number) => {
      while (server.registry.get(model).scheduler!.queued < n) await new Promise((r) => setTimeout(r, 5));
    };
    const accepted = [send('short')];
    await queued('short', 1);
    const full = await send('short');
    expect(full.status).toBe(503);
    expect(full.json()).toEqual({ error: expect.stringMatching(/the model's queue is full \(1 requests waiting\)/) });

    accepted.push(send('long'), send('long'));
    await queued('long', 2);
    const busy = await send('long');
    expect(busy.status).toBe(503);
    expect(busy.json()).toEqual({ error: expect.stringMatching(/handling 3 requests, its limit/) });
    expect((await request(`${server.url}/v2/health/ready`)).status).toBe(200);

    await server.close();
    expect((await Promise.all(accepted)).map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('instances whose device fails are taken out; the model serves on the rest, and with none left it says not ready while the server lives', async () => {
    const repository = makeRepository({
      tiny: { versions: { '1': TINY_CNN }, config: { instances: { count: 2 } } },
      doomed: { versions: { '1': TINY_CNN } },
    });
    const server = await startServer({
      repository,
      port: 0,
      defaultExecutionProviders: ['cpu'],
      processMetrics: false,
      // Fault injection: instance 1 of 'tiny' and the only instance of 'doomed' fail like a lost device.
      createSession: async (file, options, where) => {
        const session = await InferenceSession.create(file, options);
        if ((where.model === 'tiny' && where.index === 1) || where.model === 'doomed') {
          session.run = async () => {
            throw new SwitchyardError('EP_FAILED', `device of ${where.model}/${where.index} lost`);
          };
        }
        return session;
      },
    });
    try {
      const input = { inputs: [{ name: 'input', shape: [1, 3, 32, 32], datatype: 'FP32', data: Array.from(seededFloats(3072, 1)) }] };
      const replies = await Promise.all([0, 1, 2, 3, 4, 5].map(() => postJson(`${server.url}/v2/models/tiny/infer`, input)));
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      const tiny = server.registry.get('tiny').scheduler!;
      expect(tiny.instances.map((i) => i.healthy)).toEqual([true, false]);
      expect((await request(`${server.url}/v2/models/tiny/ready`)).status).toBe(200);

      const doomed = await postJson(`${server.url}/v2/models/doomed/infer`, input);
      expect(doomed.status).toBe(503);
      expect(doomed.json().error).toMatch(/device of doomed\/0 lost/);
      expect((await request(`${server.url}/v2/models/doomed/ready`)).status).toBe(400);
      expect((await request(`${server.url}/v2/health/ready`)).status).toBe(400);
      expect((await request(`${server.url}/v2/health/live`)).status).toBe(200);
      expect((await postJson(`${server.url}/v2/models/doomed/infer`, input)).json().error).toMatch(/no healthy instance/);
      const text = (await request(`${server.url}/metrics`)).body.toString();
      expect(metric(text, /switchyard_instances\{model="tiny",version="1",state="failed"\} (\d+)/)).toBe(1);
      expect(metric(text, /switchyard_instances\{model="tiny",version="1",state="healthy"\} (\d+)/)).toBe(1);
      expect((await postJson(`${server.url}/v2/models/tiny/infer`, input)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('close() finishes the requests it accepted — even ones waiting for a batch to fill — then refuses connections', async () => {
    // A batch window far longer than the test: the three requests wait in the queue until close() drains it.
    const repository = makeRepository({ squeeze: { versions: { '1': SQUEEZENET }, config: { dynamicBatching: { maxBatchSize: 8, maxQueueDelayMs: 60_000 }, sessionOptions: { intraOpNumThreads: 1 } } } });
    const server = await startServer({ repository, port: 0, defaultExecutionProviders: ['cpu'], processMetrics: false });
    const inFlight = [0, 1, 2].map((i) => postJson(`${server.url}/v2/models/squeeze/infer`, squeezeRequest([images[i]])));
    const scheduler = server.registry.get('squeeze').scheduler!;
    while (scheduler.queued < 3) await new Promise((r) => setTimeout(r, 5));
    const closed = server.close();
    const replies = await Promise.all(inFlight);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(replies.map((r) => (r.json().outputs as Array<{ shape: number[] }>)[0].shape)).toEqual([[1, 1000], [1, 1000], [1, 1000]]);
    await closed;
    await expect(fetch(`${server.url}/v2/health/live`)).rejects.toThrow();
  });

  it('a bad config file is a clear error naming the file and the key', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ dynamicBatching: { maxBatchSize: 0 } }, /dynamicBatching\.maxBatchSize must be an integer ≥ 1/],
      [{ instance: { count: 2 } }, /unknown key 'instance'/],
      [{ maxQueueLength: 0 }, /maxQueueLength must be an integer ≥ 1/],
      [{ executionProviders: [42] }, /executionProviders\[0\] must be a name or an object with a 'name'/],
      [{ sessionOptions: { optimizedModelFilePath: '/tmp/x.onnx' } }, /sessionOptions\.optimizedModelFilePath is not supported here/],
      [{ instances: { deviceIds: [-1] } }, /deviceIds must be a non-empty array/],
      ['{ not json', /config\.json: not valid JSON/],
    ];
    for (const [config, pattern] of cases) {
      const repository = makeRepository({ tiny: { versions: { '1': TINY_CNN }, config } });
      await expect(startServer({ repository, port: 0, processMetrics: false })).rejects.toThrow(pattern);
    }
    await expect(startServer({ repository: '/nonexistent/repo', port: 0 })).rejects.toThrow(/not a folder/);
  });

  it('batching asked of a model whose batch dim is fixed: that version is unavailable with the reason, the rest serve', async () => {
    const repository = makeRepository({
      tiny: { versions: { '1': TINY_CNN }, config: { dynamicBatching: { maxBatchSize: 4 } } },
      squeeze: { versions: { '1': SQUEEZENET } },
    });
    const server = await startServer({ repository, port: 0, defaultExecutionProviders: ['cpu'], processMetrics: false });
    try {
      const ready = await request(`${server.url}/v2/models/tiny/ready`);
      expect(ready.status).toBe(400);
      expect(ready.json().error).toMatch(/cannot be batched: the first input's first dim is 1/);
      expect((await request(`${server.url}/v2/models/squeeze/ready`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
