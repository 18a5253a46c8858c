/**
 * Concurrent runs equal sequential runs on the CPU EP (oneDNN addon included): many `run()` calls in
 * flight on one session (shared kernels, pooled arenas, async native kernels interleaving) and across
 * sessions of different models, with different feeds per run and, for a symbolic batch axis,
 * different shapes per run (different arena layouts in flight at once). Outputs must be bit-identical.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, type InferenceSessionReturnType } from '@switchyard/core';
import { buildModel, randomModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { readNpy } from '../real-models/npy.js';
import { fileOf, modelPath, readManifest } from '../real-models/reference-models.js';

type Feeds = Record<string, Tensor>;

/** A variant of `feeds` with the same shapes and other values (float inputs scaled and shifted by `k`). */
function variant(feeds: Feeds, k: number): Feeds {
  const out: Feeds = {};
  for (const [name, t] of Object.entries(feeds)) {
    if (t.type !== 'float32') {
      out[name] = t;
      continue;
    }
    const data = (t.data as Float32Array).map((v, i) => v * (1 + 0.25 * k) + 0.01 * k * ((i % 7) - 3));
    out[name] = new Tensor('float32', data, t.dims);
  }
  return out;
}

function bits(result: InferenceSessionReturnType): Record<string, { dims: readonly number[]; bytes: Uint8Array }> {
  const out: Record<string, { dims: readonly number[]; bytes: Uint8Array }> = {};
  for (const [name, v] of Object.entries(result)) {
    const t = v as Tensor;
    const data = t.data as Float32Array;
    out[name] = { dims: t.dims, bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice() };
  }
  return out;
}

/** Runs every feed set one after another, then all at once (twice over); the two must agree bit for bit. */
async function expectConcurrentEqualsSequential(jobs: Array<{ session: InferenceSession; feeds: Feeds }>): Promise<void> {
  const sequential: Array<ReturnType<typeof bits>> = [];
  for (const j of jobs) sequential.push(bits(await j.session.run(j.feeds)));
  const concurrent = await Promise.all([...jobs, ...jobs].map((j) => j.session.run(j.feeds)));
  // Compared only once every run has ended: a later run reusing an arena must not have changed an earlier output.
  concurrent.forEach((result, i) => expect(bits(result), `job ${i % jobs.length}`).toEqual(sequential[i % jobs.length]));
}

const cpu = () => new CpuExecutionProvider();

describe('concurrent runs equal sequential runs (CPU EP)', () => {
  it('on one session: a real CNN with four feed sets in flight', async () => {
    const entry = readManifest().find((e) => e.name === 'squeezenet1_1')!;
    const session = await InferenceSession.create(modelPath(entry), { executionProviders: [cpu()] });
    const input = readNpy(fileOf(entry, entry.cases.b1.inputs.input));
    const jobs = Array.from({ length: 4 }, (_, k) => ({ session, feeds: variant({ input }, k) }));
    await expectConcurrentEqualsSequential(jobs);
    await session.release();
  });

  it('on one session: a symbolic batch axis with different batch sizes in flight (different arena layouts)', async () => {
    const w = new Tensor('float32', Float32Array.from({ length: 8 * 16 }, (_, i) => Math.sin(i)), [8, 16]);
    const model = buildModel({
      inputs: [['x', 'float32', ['N', 8]]],
      outputs: [['y', 'float32', ['N', 16]]],
      nodes: [
        { op: 'MatMul', inputs: ['x', 'w'], outputs: ['m'] },
        { op: 'Relu', inputs: ['m'], outputs: ['r'] },
        { op: 'Mul', inputs: ['r', 'm'], outputs: ['p'] },
        { op: 'Softmax', inputs: ['p'], outputs: ['y'], attributes: { axis: -1 } },
      ],
      initializers: { w },
    });
    const session = await InferenceSession.fromModel(model, { executionProviders: [cpu()] });
    const jobs = [1, 3, 2, 7, 1, 5].map((n, k) => ({ session, feeds: { x: new Tensor('float32', Float32Array.from({ length: n * 8 }, (_, i) => Math.cos(i + k)), [n, 8]) } }));
    await expectConcurrentEqualsSequential(jobs);
    await session.release();
  });

  it('across sessions: a CNN, an LSTM and random graphs, all in flight together', async () => {
    const manifest = readManifest();
    const squeeze = manifest.find((e) => e.name === 'squeezenet1_1')!;
    const lstm = manifest.find((e) => e.name === 'lstm2')!;
    const jobs: Array<{ session: InferenceSession; feeds: Feeds }> = [];
    const sessions: InferenceSession[] = [];
    const add = (session: InferenceSession, feeds: Feeds, variants: number) => {
      sessions.push(session);
      for (let k = 0; k < variants; k++) jobs.push({ session, feeds: variant(feeds, k) });
    };
    add(await InferenceSession.create(modelPath(squeeze), { executionProviders: [cpu()] }), { input: readNpy(fileOf(squeeze, squeeze.cases.b1.inputs.input)) }, 2);
    const lstmFeeds: Feeds = {};
    for (const [name, file] of Object.entries(lstm.cases.s32.inputs)) lstmFeeds[name] = readNpy(fileOf(lstm, file));
    add(await InferenceSession.create(modelPath(lstm), { executionProviders: [cpu()] }), lstmFeeds, 3);
    for (const seed of [11, 12, 13, 14]) {
      const rm = randomModel(seed);
      add(await InferenceSession.fromModel(rm.model, { executionProviders: [cpu()] }), rm.feeds, 2);
    }
    // Interleave the sessions' jobs so runs of different sessions overlap.
    jobs.sort((a, b) => jobs.indexOf(a) % 3 - jobs.indexOf(b) % 3);
    await expectConcurrentEqualsSequential(jobs);
    for (const s of sessions) await s.release();
  });
});
