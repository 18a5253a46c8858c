import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, registerExecutionProvider, type FusedPartition, type Model } from '@switchyard/core';
import { buildModel, compareTensors } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { MigraphxPartition } from './migraphx-partition.js';
import { resolveMigraphxOptions, type MigraphxProviderOptions } from './migraphx-options.js';
import { CpuProgramCompiler } from './testing/cpu-program-compiler.js';
import { encoderFeeds, seededRandom, tinyEncoder } from './testing/tiny-encoder.js';
import { bucketFor, padRows, sliceRows } from './dynamic/batch-buckets.js';

registerExecutionProvider(cpuFactory);

/** The whole model's graph as one partition. */
function wholeGraph(model: Model): FusedPartition {
  const g = model.graph;
  return { name: 'p0', graph: g, nodes: g.nodes, inputNames: g.inputs.map((i) => i.name), outputNames: g.outputs.map((o) => o.name) };
}

async function partition(model: Model, options: MigraphxProviderOptions, compiler = new CpuProgramCompiler()) {
  const p = await MigraphxPartition.create(wholeGraph(model), { compiler, options: resolveMigraphxOptions({ cacheDir: false, target: 'ref', ...options }) });
  return { p, compiler };
}

const rowsModel = () =>
  buildModel({
    inputs: [['x', 'float32', ['n', 'm']]],
    outputs: [['y', 'float32', ['n', 'm']]],
    nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['r'] }, { op: 'Neg', inputs: ['r'], outputs: ['y'] }],
  });
const matrix = (rows: number, cols: number, seed = rows * 31 + cols) => {
  const random = seededRandom(seed);
  return new Tensor('float32', Float32Array.from({ length: rows * cols }, () => random() * 2 - 1), [rows, cols]);
};

describe('batch buckets', () => {
  it('picks the smallest bucket that fits, and refuses batches above max', () => {
    expect([1, 2, 3, 5, 8, 9, 12].map((b) => bucketFor(b, [1, 2, 4, 8, 12]))).toEqual([1, 2, 4, 8, 8, 12, 12]);
    expect(() => bucketFor(13, [1, 2, 4, 8, 12])).toThrow('batch 13 exceeds dynamicBatch.max (12)');
  });

  it('pads with copies of the last row and slices back, for every element size', () => {
    const cases = [
      new Tensor('float32', Float32Array.of(1, 2, 3, 4), [2, 2]),
      new Tensor('int64', BigInt64Array.of(1n, 2n, 3n), [3, 1]),
      new Tensor('uint8', Uint8Array.of(7, 8), [2]),
      new Tensor('float16', Uint16Array.of(1, 2, 3, 4, 5, 6), [2, 1, 3]),
    ];
    for (const t of cases) {
      const padded = padRows(t, 5);
      expect(padded.dims).toEqual([5, ...t.dims.slice(1)]);
      const row = t.size / t.dims[0];
      const data = Array.from(padded.data as ArrayLike<number | bigint>);
      const lastRow = Array.from(t.data as ArrayLike<number | bigint>).slice(-row);
      for (let r = t.dims[0]; r < 5; r++) expect(data.slice(r * row, (r + 1) * row)).toEqual(lastRow);
      expect(sliceRows(padded, t.dims[0])).toEqual(t);
    }
  });
});

describe('dynamicBatch', () => {
  it('serves 100 random batch sizes with at most one compile per bucket, each result equal to an exact-batch run', async () => {
    const { p, compiler } = await partition(tinyEncoder('batch'), { dynamicBatch: { max: 32 } });
    const reference = await InferenceSession.fromModel(tinyEncoder('batch'), { executionProviders: ['cpu'] });
    const random = seededRandom(99);
    const seen = new Set<number>();
    for (let i = 0; i < 100; i++) {
      const batch = 1 + Math.floor(random() * 32);
      seen.add(bucketFor(batch, [1, 2, 4, 8, 16, 32]));
      const feeds = encoderFeeds(batch, i % 4, i);
      const [hidden, pooled] = (await p.run([feeds.input_ids, feeds.attention_mask])) as Tensor[];
      const expected = await reference.run(feeds);
      expect(hidden.dims).toEqual([batch, 8, 16]);
      expect(pooled.dims).toEqual([batch, 16]);
      expect(compareTensors(hidden, expected.last_hidden_state as Tensor, { atol: 1e-5, rtol: 1e-4 })).toBeUndefined();
      expect(compareTensors(pooled, expected.pooler_output as Tensor, { atol: 1e-5, rtol: 1e-4 })).toBeUndefined();
    }
    expect(compiler.compiles).toBe(seen.size);
    expect(compiler.compiles).toBeLessThanOrEqual(6);
    expect(compiler.requests.map((r) => r.inputShapes.get('input_ids')![0]).sort((a, b) => a - b)).toEqual([...seen].sort((a, b) => a - b));
    p.dispose();
    await reference.release();
  });

  it('compiles every bucket up front with eager, and none later', async () => {
    const { p, compiler } = await partition(tinyEncoder('batch'), { dynamicBatch: { max: 6, buckets: [2, 6], eager: true } });
    expect(compiler.requests.map((r) => [...r.inputShapes])).toEqual([
      [['input_ids', [2, 8]], ['attention_mask', [2, 8]]],
      [['input_ids', [6, 8]], ['attention_mask', [6, 8]]],
    ]);
    for (const batch of [1, 2, 3, 5, 6]) {
      const feeds = encoderFeeds(batch);
      await p.run([feeds.input_ids, feeds.attention_mask]);
    }
    expect(compiler.compiles).toBe(2);
    await expect(p.run([encoderFeeds(7).input_ids, encoderFeeds(7).attention_mask])).rejects.toThrow('batch 7 exceeds dynamicBatch.max (6)');
    await expect(p.run([encoderFeeds(2).input_ids, encoderFeeds(3).attention_mask])).rejects.toThrow('inputs disagree on the batch size (2, 3)');
    p.dispose();
  });

  it('leaves partitions with a fixed leading dim alone', async () => {
    const { p, compiler } = await partition(tinyEncoder(2), { dynamicBatch: { max: 8 } });
    expect(p.batched).toBe(false);
    const feeds = encoderFeeds(2);
    await p.run([feeds.input_ids, feeds.attention_mask]);
    expect(compiler.requests[0].inputShapes.get('input_ids')).toEqual([2, 8]);
  });
});

describe('programs per input shape', () => {
  it('compiles once per distinct shape while they fit, and again after eviction (LRU)', async () => {
    const { p, compiler } = await partition(rowsModel(), { maxCompiledPrograms: 2 });
    const run = async (rows: number, cols: number) => {
      const x = matrix(rows, cols);
      const [y] = (await p.run([x])) as Tensor[];
      const data = x.data as Float32Array;
      expect(Array.from(y.data as Float32Array, (v) => v + 0)).toEqual(Array.from(data, (v) => -Math.max(v, 0) + 0));
    };
    await run(2, 3);
    await run(4, 3);
    await run(2, 3);
    await run(4, 3);
    expect(compiler.compiles).toBe(2);
    await run(1, 7); // evicts [4,3]? no: [2,3] was used least recently
    expect(p.programSignatures).toEqual(['x:4x3', 'x:1x7']);
    await run(4, 3);
    expect(compiler.compiles).toBe(3);
    await run(2, 3);
    expect(compiler.compiles).toBe(4);
    // Evicted programs are released.
    expect(compiler.programs.filter((x) => x.disposed).length).toBeGreaterThanOrEqual(1);
    p.dispose();
  });

  it('compiles a shape once when first runs arrive together', async () => {
    const { p, compiler } = await partition(rowsModel(), {}, new CpuProgramCompiler(undefined, { compileDelayMs: 20 }));
    await Promise.all(Array.from({ length: 8 }, () => p.run([matrix(3, 3)])));
    expect(compiler.compiles).toBe(1);
  });
});

describe('concurrent runs', () => {
  it('are all correct, with runs of one program never overlapping', async () => {
    const { p, compiler } = await partition(tinyEncoder('batch'), {}, new CpuProgramCompiler(undefined, { runDelayMs: 3 }));
    const reference = await InferenceSession.fromModel(tinyEncoder('batch'), { executionProviders: ['cpu'] });
    const jobs = Array.from({ length: 24 }, (_, i) => encoderFeeds(1 + (i % 3), i % 3, i));
    const results = await Promise.all(jobs.map((f) => p.run([f.input_ids, f.attention_mask])));
    for (let i = 0; i < jobs.length; i++) {
      const expected = await reference.run(jobs[i]);
      expect(compareTensors(results[i][0] as Tensor, expected.last_hidden_state as Tensor, { atol: 1e-5, rtol: 1e-4 })).toBeUndefined();
    }
    expect(compiler.programs).toHaveLength(3);
    for (const program of compiler.programs) {
      expect(program.runs).toBe(8);
      expect(program.maxConcurrentRuns).toBe(1);
    }
    p.dispose();
    await reference.release();
  });
});

describe('quantization requests', () => {
  it('asks for fp16 and bf16 as options say', async () => {
    for (const [options, expected] of [[{ fp16: true }, 'fp16'], [{ bf16: true }, 'bf16'], [{}, 'none']] as const) {
      const { p, compiler } = await partition(rowsModel(), options);
      await p.run([matrix(2, 2)]);
      expect(compiler.requests[0]).toMatchObject({ quantization: expected, calibration: [], target: 'ref', offloadCopy: true });
    }
  });

  it('calibrates int8 with the sets that fit, else with the run that triggered the compile', async () => {
    const fitting = { x: matrix(2, 2, 5) };
    const { p, compiler } = await partition(rowsModel(), { int8: true, int8Calibration: [fitting, { x: matrix(3, 2) }, { other: matrix(2, 2) }] });
    await p.run([matrix(2, 2)]);
    expect(compiler.requests[0].calibration).toEqual([fitting]);
    const sample = matrix(5, 2);
    await p.run([sample]);
    expect(compiler.requests[1].calibration).toEqual([{ x: sample }]);
  });
});

describe('bad input', () => {
  it('says what is wrong with the inputs it is given', async () => {
    const { p } = await partition(rowsModel(), {});
    await expect(p.run([])).rejects.toThrow("migraphx partition 'p0': got 0 inputs, expected 1");
    await expect(p.run([null])).rejects.toThrow("input 'x' is not a tensor");
    await expect(p.run([matrix(2, 2)])).resolves.toHaveLength(1);
  });
});
