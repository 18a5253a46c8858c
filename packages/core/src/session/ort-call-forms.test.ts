/**
 * onnxruntime-node's call forms on a session (run arguments, create forms, options, env, logging), on
 * core's host test EP. The same usage against onnxruntime-node itself is in
 * packages/ep-cpu/src/ort-compat/ort-compat.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { InferenceSession } from './inference-session.js';
import { Tensor } from '../tensor/tensor.js';
import { SwitchyardError } from '../errors.js';
import { env } from '../env.js';
import type { RunOptions } from './session-options.js';
import { encodeModel } from '../onnx/index.js';
import { buildModel } from '../testing/build-model.js';
import { hostTestProvider } from '../testing/host-test-ep.js';

const f32 = (data: number[], dims: number[]) => new Tensor('float32', Float32Array.from(data), dims);
const host = { executionProviders: [hostTestProvider()], disableCpuFallback: true };

/** x → Relu → relu; x → Neg → neg (dims given, or symbolic 'n'). */
function twoOutputs(dim: number | string = 3) {
  return buildModel({
    inputs: [['x', 'float32', [dim]]],
    outputs: [
      ['relu', 'float32', [dim]],
      ['neg', 'float32', [dim]],
    ],
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: ['relu'] },
      { op: 'Neg', inputs: ['x'], outputs: ['neg'] },
    ],
  });
}

const x = () => f32([1, -2, 3], [3]);
const values = (t: unknown) => Array.from((t as Tensor).data as Float32Array);

async function failure(p: Promise<unknown>): Promise<SwitchyardError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(SwitchyardError);
  return e as SwitchyardError;
}

async function stderrOf(body: () => Promise<unknown>): Promise<string> {
  let text = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  });
  try {
    await body();
  } finally {
    spy.mockRestore();
  }
  return text;
}

afterEach(() => {
  env.logLevel = 'warning';
});

describe('run(feeds, options) and run(feeds, fetches, options)', () => {
  it('reads an object without output names as options, and one with them as fetches', async () => {
    const s = await InferenceSession.fromModel(twoOutputs(), host);
    expect(Object.keys(await s.run({ x: x() }, { logSeverityLevel: 3 }))).toEqual(['relu', 'neg']);
    // Run cancellation's options are options too (typed where cancellation is implemented).
    const cancellation = { tag: 'a', terminate: false, timeoutMs: 1000 } as RunOptions;
    expect(Object.keys(await s.run({ x: x() }, cancellation))).toEqual(['relu', 'neg']);
    expect(Object.keys(await s.run({ x: x() }, { neg: null }))).toEqual(['neg']);
    expect(Object.keys(await s.run({ x: x() }, { neg: null }, { logSeverityLevel: 3 }))).toEqual(['neg']);
    expect(Object.keys(await s.run({ x: x() }, ['relu'], { tag: 'b' }))).toEqual(['relu']);
    // {} before options: no particular outputs, so all of them.
    expect(Object.keys(await s.run({ x: x() }, {}, { tag: 'c' }))).toEqual(['relu', 'neg']);
    expect(Object.keys(await s.run({ x: x() }, undefined as never, { tag: 'd' }))).toEqual(['relu', 'neg']);
  });

  it('refuses what is neither fetches nor options, saying what each takes', async () => {
    const s = await InferenceSession.fromModel(twoOutputs(), host);
    const run = (a: unknown, b?: unknown) => failure(s.run({ x: x() }, a as never, b as never));
    expect((await run({ bogus: 1 })).message).toMatch(/run: unknown option 'bogus' \(nor is it an output: the model's outputs are 'relu', 'neg'\); the options are logSeverityLevel, tag/);
    expect((await run({ logSeverityLvel: 3 })).message).toContain("did you mean 'logSeverityLevel'?");
    expect((await run({ logSeverityLevel: 7 })).message).toMatch(/logSeverityLevel must be one of 0 \(verbose\)/);
    expect((await run({ tag: 5 })).message).toContain('tag must be a string, got 5');
    expect((await run([])).message).toContain('fetches cannot be an empty array');
    expect((await run(['relu', 'nope'])).message).toMatch(/unknown output 'nope'; the model's outputs are 'relu', 'neg'/);
    expect((await run([1])).message).toContain('fetches must be output names');
    expect((await run({ relu: null, nope: null })).message).toContain("fetches names unknown output 'nope'");
    expect((await run({ relu: 5 })).message).toContain("fetches['relu'] must be null or a Tensor");
    expect((await run(x())).message).toContain('cannot be a Tensor');
    expect((await run('relu')).message).toContain('must be fetches');
    expect((await run({ logSeverityLevel: 3 }, { tag: 'x' })).message).toMatch(/fetches names no output \('logSeverityLevel'\)/);
    expect((await run(['relu'], 5)).message).toContain('options must be an object');
  });

  it('writes outputs into tensors given in fetches, checking dtype and shape', async () => {
    const s = await InferenceSession.fromModel(twoOutputs(), host);
    const into = f32([0, 0, 0], [3]);
    const out = await s.run({ x: x() }, { relu: into, neg: null });
    expect(out.relu).toBe(into);
    expect(values(into)).toEqual([1, 0, 3]);
    expect(values(out.neg)).toEqual([-1, 2, -3]);
    const wrongType = new Tensor('int32', new Int32Array(3), [3]);
    expect((await failure(s.run({ x: x() }, { relu: wrongType }))).message).toBe("run: fetches['relu'] is int32, but output 'relu' is float32");
    expect((await failure(s.run({ x: x() }, { relu: f32([0, 0], [2]) }))).message).toBe("run: fetches['relu'] has shape [2], but output 'relu' has shape [3]");
    expect((await failure(s.run({ x: x() }, { relu: f32([0, 0, 0], [1, 3]) }))).message).toContain('has shape [1, 3]');
  });

  it("checks a pre-allocated tensor against the run's shape where the model's is symbolic", async () => {
    const s = await InferenceSession.fromModel(twoOutputs('n'), host);
    const into = f32([9, 9], [2]);
    const err = await failure(s.run({ x: x() }, { neg: into }));
    expect(err.message).toBe("run: fetches['neg'] has shape [2], but this run's output 'neg' has shape [3]");
    expect(values(into)).toEqual([9, 9]);
    await s.run({ x: f32([4, -5], [2]) }, { neg: into });
    expect(values(into)).toEqual([-4, 5]);
  });
});

describe('InferenceSession.create forms', () => {
  const bytes = encodeModel(twoOutputs());

  it('takes a path, a Uint8Array, an ArrayBuffer, a SharedArrayBuffer, and a segment of a buffer', async () => {
    const padded = new Uint8Array(bytes.length + 13);
    padded.set(bytes, 5);
    const shared = new SharedArrayBuffer(bytes.length);
    new Uint8Array(shared).set(bytes);
    const exact = bytes.slice().buffer;
    const tail = new Uint8Array(bytes.length + 5);
    tail.set(bytes, 5);
    const forms: Array<() => Promise<InferenceSession>> = [
      () => InferenceSession.create(bytes, host),
      () => InferenceSession.create(exact, host),
      () => InferenceSession.create(shared, host),
      () => InferenceSession.create(padded.buffer, 5, bytes.length, host),
      () => InferenceSession.create(tail.buffer, 5, undefined as never, host),
      // byteLength left out: to the end of the buffer; the options may take its place.
      () => InferenceSession.create(tail.buffer, 5, host as never),
    ];
    for (const make of forms) {
      const s = await make();
      expect(values((await s.run({ x: x() })).neg)).toEqual([-1, 2, -3]);
      await s.release();
    }
  });

  it('refuses segments outside the buffer and offsets on a Uint8Array', async () => {
    const buf = bytes.slice().buffer;
    expect((await failure(InferenceSession.create(buf, bytes.length, undefined, host))).message).toMatch(/byteOffset \d+ is outside the buffer/);
    expect((await failure(InferenceSession.create(buf, -1, undefined, host))).message).toContain('byteOffset -1 is outside');
    expect((await failure(InferenceSession.create(buf, 1.5, undefined, host))).message).toContain('byteOffset must be an integer');
    expect((await failure(InferenceSession.create(buf, 0, bytes.length + 1, host))).message).toMatch(/byteLength \d+ from byteOffset 0 does not fit/);
    expect((await failure(InferenceSession.create(buf, 0, 0, host))).message).toContain('byteLength 0');
    expect((await failure(InferenceSession.create(bytes as never, 0 as never))).message).toContain('for a Uint8Array pass a subarray');
  });
});

describe('session options', () => {
  it('refuses unknown options, naming the valid ones and the near miss', async () => {
    const err = await failure(InferenceSession.fromModel(twoOutputs(), { ...host, intraOpNumThread: 2 } as never));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toMatch(/unknown option 'intraOpNumThread' \(did you mean 'intraOpNumThreads'\?\); the options are executionProviders, disableCpuFallback, /);
    expect((await failure(InferenceSession.fromModel(twoOutputs(), { ...host, cudaGraph: true } as never))).message).toMatch(/unknown option 'cudaGraph'; the options/);
    expect((await failure(InferenceSession.fromModel(twoOutputs(), { ...host, executionMode: 'fast' } as never))).message).toContain(
      "executionMode must be one of 'sequential', 'parallel', got \"fast\"",
    );
    expect((await failure(InferenceSession.fromModel(twoOutputs(), { ...host, logSeverityLevel: 5 } as never))).message).toContain('logSeverityLevel must be one of 0');
    // Past the team size the CPU EP's addon accepts (an OpenMP team of 100,000 crashed it before it checked).
    for (const threads of [1025, 100_000]) {
      const err = await failure(InferenceSession.fromModel(twoOutputs(), { ...host, intraOpNumThreads: threads }));
      expect(err.code).toBe('INVALID_ARGUMENT');
      expect(err.message).toContain(`intraOpNumThreads must be an integer in [0, 1024], got ${threads}`);
    }
    expect((await failure(InferenceSession.fromModel(twoOutputs(), { ...host, externalData: [] } as never))).code).toBe('UNSUPPORTED');
    expect((await failure(InferenceSession.create(encodeModel(twoOutputs()), 'fast' as never))).message).toContain('options must be an object');
  });

  it('accepts the onnxruntime options that change nothing here, and says so at verbose level', async () => {
    const inert = { interOpNumThreads: 2, executionMode: 'parallel', enableCpuMemArena: false, logVerbosityLevel: 1, enableGraphCapture: false, extra: {} } as const;
    const quiet = await stderrOf(() => InferenceSession.fromModel(twoOutputs(), { ...host, ...inert }));
    expect(quiet).toBe('');
    const verbose = await stderrOf(() => InferenceSession.fromModel(twoOutputs(), { ...host, ...inert, logSeverityLevel: 0 }));
    for (const name of Object.keys(inert)) expect(verbose).toContain(`VERBOSE: option ${name} is accepted but has no effect: `);
  });

  it("takes onnxruntime's 'layout' level as 'all'", async () => {
    const s = await InferenceSession.fromModel(twoOutputs(), { ...host, graphOptimizationLevel: 'layout' });
    expect(s.optimization.report.level).toBe('all');
  });

  it('fixes symbolic dimensions with freeDimensionOverrides', async () => {
    const s = await InferenceSession.fromModel(twoOutputs('n'), { ...host, freeDimensionOverrides: { n: 3 } });
    // Metadata stays as the model declares it, as onnxruntime reports it; feeds must have the size.
    expect(s.inputMetadata[0].shape).toEqual(['n']);
    expect(s.outputMetadata[1].shape).toEqual(['n']);
    expect(values((await s.run({ x: x() })).neg)).toEqual([-1, 2, -3]);
    expect((await failure(s.run({ x: f32([1, 2], [2]) }))).message).toBe("run(feeds): input 'x' expects shape [3], got [2]");
    const warned = await stderrOf(() => InferenceSession.fromModel(twoOutputs('n'), { ...host, freeDimensionOverrides: { batch: 1 } }));
    expect(warned).toContain("WARNING: freeDimensionOverrides: the model has no dimension named 'batch'");
    expect((await failure(InferenceSession.fromModel(twoOutputs('n'), { ...host, freeDimensionOverrides: { n: 0 } }))).message).toContain(
      'freeDimensionOverrides.n must be a positive integer, got 0',
    );
  });
});

describe('env and log severity', () => {
  it('reports the version of core', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(env.versions.core).toBe(pkg.version);
    expect(() => {
      env.logLevel = 'loud' as never;
    }).toThrow(/env.logLevel must be one of 'verbose', 'info', 'warning', 'error', 'fatal'/);
  });

  it("filters lines by the run's, the session's, then env's severity", async () => {
    const quiet = await InferenceSession.fromModel(twoOutputs(), host);
    expect(await stderrOf(() => quiet.run({ x: x() }))).toBe('');
    expect(await stderrOf(() => quiet.run({ x: x() }, { logSeverityLevel: 0, tag: 'r1' }))).toMatch(/^\[switchyard:r1\] VERBOSE: run took [\d.]+ ms\n$/);
    expect(await stderrOf(() => quiet.run({ x: x() }, { logSeverityLevel: 0, extra: {} }))).toContain('option extra is accepted but has no effect');
    env.logLevel = 'verbose';
    expect(await stderrOf(() => quiet.run({ x: x() }))).toMatch(/VERBOSE: run took/);
    expect(await stderrOf(() => quiet.run({ x: x() }, { logSeverityLevel: 1 }))).toBe('');
    const pinned = await InferenceSession.fromModel(twoOutputs(), { ...host, logSeverityLevel: 2, logId: 'mine' });
    expect(await stderrOf(() => pinned.run({ x: x() }))).toBe('');
    env.logLevel = 'warning';
    const loud = await InferenceSession.fromModel(twoOutputs(), { ...host, logSeverityLevel: 0, logId: 'mine' });
    expect(await stderrOf(() => loud.run({ x: x() }))).toMatch(/^\[mine\] VERBOSE: run took/);
  });
});
