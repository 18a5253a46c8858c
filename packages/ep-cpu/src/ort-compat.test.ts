/**
 * The compatibility suite: onnxruntime-node's documented usage (its README and API: create from a path
 * and from bytes, run with feeds / fetches / options, the Tensor constructors, names and metadata,
 * profiling, env, release), written once against a `Runtime` and run on onnxruntime-node 1.30 and on
 * `@switchyard/core` with nothing but the module changed. Each scenario returns plain data; the two
 * runtimes must return the same (float outputs within float32 rounding of each other). Switchyard gets
 * its CPU EP the way a user's project does: core imports @switchyard/ep-cpu on first use of 'cpu'.
 * Where the two differ on purpose, docs/using-sessions.md says so.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import * as switchyard from '@switchyard/core';

// The slice of the API the suite uses, which both modules must provide.
type TypedData = Float32Array | Int32Array | BigInt64Array | Uint8Array | string[];
interface TensorLike {
  readonly type: string;
  readonly dims: readonly number[];
  readonly size: number;
  readonly data: TypedData;
  readonly location: string;
  getData(): Promise<TypedData>;
  reshape(dims: readonly number[]): TensorLike;
  dispose(): void;
}
type TensorCtor = {
  new (type: string, data: unknown, dims?: readonly number[]): TensorLike;
  new (data: unknown, dims?: readonly number[]): TensorLike;
};
type Outputs = Record<string, TensorLike>;
interface SessionLike {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly inputMetadata: readonly unknown[];
  readonly outputMetadata: readonly unknown[];
  run(feeds: Record<string, TensorLike>, optionsOrFetches?: unknown, options?: unknown): Promise<Outputs>;
  startProfiling(): void;
  endProfiling(): unknown;
  release(): Promise<void>;
}
interface Runtime {
  InferenceSession: { create(...args: unknown[]): Promise<SessionLike> };
  Tensor: TensorCtor;
  env: { logLevel?: string; versions: Record<string, string | undefined> };
}

const runtimes: Array<[string, Runtime]> = [
  ['onnxruntime-node', ort as unknown as Runtime],
  ['switchyard', switchyard as unknown as Runtime],
];

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const TINY_CNN = join(repo, 'examples/models/tiny-cnn.onnx');
const SQUEEZENET = join(repo, 'models/squeezenet1_1/model.onnx');
const LSTM = join(repo, 'models/lstm2/model.onnx');
const node = (name: string) => `/usr/share/libonnx-testdata/data/node/${name}/model.onnx`;

/** Deterministic inputs: a fixed pseudo-random sequence in [-1, 1). */
function pattern(n: number, seed = 1): Float32Array {
  const out = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    out[i] = s / 2 ** 30 - 1;
  }
  return out;
}

interface Plain {
  type: string;
  dims: number[];
  data: Array<number | string | boolean>;
}

function plain(t: TensorLike): Plain {
  return { type: t.type, dims: [...t.dims], data: Array.from(t.data as ArrayLike<number | bigint | string>, (v) => (typeof v === 'bigint' ? Number(v) : v)) };
}

function plainAll(outputs: Outputs): Record<string, Plain> {
  return Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, plain(v)]));
}

/** Same keys, types and dims; float data equal within float32 rounding of a different summation order. */
function expectSame(actual: unknown, expected: unknown, path = 'result'): void {
  if (Array.isArray(expected) && expected.every((v) => typeof v === 'number') && Array.isArray(actual)) {
    expect(actual.length, `${path}.length`).toBe(expected.length);
    const scale = Math.max(1e-6, ...expected.map((v) => Math.abs(v as number)));
    for (let i = 0; i < expected.length; i++) {
      const a = actual[i] as number;
      const b = expected[i] as number;
      if (Number.isInteger(b) && Number.isInteger(a) && Math.abs(b) > 1) expect(a, `${path}[${i}]`).toBe(b);
      else expect(Math.abs(a - b), `${path}[${i}]: ${a} vs ${b}`).toBeLessThanOrEqual(1e-5 * scale + 1e-4 * Math.abs(b));
    }
    return;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    expect(actual.length, `${path}.length`).toBe(expected.length);
    expected.forEach((e, i) => expectSame(actual[i], e, `${path}[${i}]`));
    return;
  }
  if (typeof expected === 'object' && expected !== null && !Array.isArray(expected)) {
    expect(Object.keys(actual as object).sort(), `${path} keys`).toEqual(Object.keys(expected).sort());
    for (const k of Object.keys(expected)) expectSame((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${path}.${k}`);
    return;
  }
  expect(actual, path).toEqual(expected);
}

/** Runs a scenario on both runtimes and checks they agree; returns onnxruntime's result for further checks. */
function compatible(title: string, scenario: (rt: Runtime) => Promise<unknown>): void {
  it(title, async () => {
    const results: unknown[] = [];
    for (const [, rt] of runtimes) results.push(await scenario(rt));
    expectSame(results[1], results[0]);
  });
}

/** Runs a scenario on each runtime separately, for behaviour both must show but with runtime-specific details. */
const eachRuntime = describe.each(runtimes);

describe('onnxruntime-node compatibility: same code, same outputs', () => {
  compatible('create from a path, run with feeds, read names and metadata', async (rt) => {
    const session = await rt.InferenceSession.create(TINY_CNN);
    const input = new rt.Tensor('float32', pattern(3 * 32 * 32), [1, 3, 32, 32]);
    const outputs = await session.run({ [session.inputNames[0]]: input });
    const result = { inputNames: session.inputNames, outputNames: session.outputNames, inputMetadata: session.inputMetadata, outputMetadata: session.outputMetadata, outputs: plainAll(outputs) };
    await session.release();
    return result;
  });

  compatible('create from a Uint8Array, an ArrayBuffer, and a segment of an ArrayBuffer with options', async (rt) => {
    const bytes = readFileSync(TINY_CNN);
    const padded = new Uint8Array(bytes.length + 24);
    padded.set(bytes, 16);
    const exact = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const input = new rt.Tensor(pattern(3 * 32 * 32, 7), [1, 3, 32, 32]);
    const sessions = [
      await rt.InferenceSession.create(new Uint8Array(bytes)),
      await rt.InferenceSession.create(exact, { graphOptimizationLevel: 'basic' }),
      await rt.InferenceSession.create(padded.buffer, 16, bytes.length, { executionProviders: ['cpu'], intraOpNumThreads: 1 }),
    ];
    const results = [];
    for (const s of sessions) {
      results.push(plainAll(await s.run({ input })));
      await s.release();
    }
    return results;
  });

  compatible('run with a fetches array, a fetches object, options, and fetches with options', async (rt) => {
    const session = await rt.InferenceSession.create(LSTM);
    const feeds = {
      input: new rt.Tensor('float32', pattern(32 * 64, 2), [32, 1, 64]),
      h0: new rt.Tensor('float32', pattern(2 * 128, 3), [2, 1, 128]),
      c0: new rt.Tensor('float32', pattern(2 * 128, 4), [2, 1, 128]),
    };
    const result = {
      all: plainAll(await session.run(feeds)),
      optionsOnly: Object.keys(await session.run(feeds, { logSeverityLevel: 3, tag: 'compat' })),
      array: plainAll(await session.run(feeds, ['h_n'])),
      object: Object.keys(await session.run(feeds, { c_n: null, h_n: null })),
      arrayAndOptions: Object.keys(await session.run(feeds, ['output'], { logSeverityLevel: 3 })),
      objectAndOptions: Object.keys(await session.run(feeds, { c_n: null }, { tag: 'compat' })),
    };
    await session.release();
    return result;
  });

  compatible('write outputs into pre-allocated tensors given in fetches', async (rt) => {
    const session = await rt.InferenceSession.create(LSTM);
    const feeds = {
      input: new rt.Tensor('float32', pattern(32 * 64, 5), [32, 1, 64]),
      h0: new rt.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]),
      c0: new rt.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]),
    };
    const hN = new rt.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
    const out = await session.run(feeds, { h_n: hN, c_n: null });
    const result = { written: plain(hN), returned: plain(out.h_n), keys: Object.keys(out).sort() };
    await session.release();
    return result;
  });

  compatible('construct tensors in every documented form', async (rt) => {
    const T = rt.Tensor;
    const forms = [
      new T('float32', new Float32Array([1, 2, 3, 4]), [2, 2]),
      new T('float32', [1, 2, 3, 4], [2, 2]),
      new T(new Float32Array([1, 2, 3, 4]), [4]),
      new T(new Float32Array([1, 2, 3])),
      new T('int32', [1, -2, 3]),
      new T(new Int32Array([5, 6]), [2, 1]),
      new T('int64', [1, 2, 3], [3]),
      new T(new BigInt64Array([1n, -2n]), [2]),
      new T('bool', [true, false, true], [3]),
      new T([true, false]),
      new T('uint8', new Uint8Array([7, 8]), [2]),
      new T(['a', 'bc'], [2]),
      new T('string', ['x'], [1]),
    ];
    const shapes = forms.map((t) => ({ ...plain(t), size: t.size, location: t.location }));
    const reshaped = plain(forms[0].reshape([4]));
    const fetched = Array.from((await forms[2].getData()) as Float32Array);
    return { shapes, reshaped, fetched, dataKinds: forms.map((t) => Object.prototype.toString.call(t.data)) };
  });

  compatible('feed and fetch int64, bool and mixed inputs', async (rt) => {
    const gather = await rt.InferenceSession.create(node('test_gather_0'));
    const argmax = await rt.InferenceSession.create(node('test_argmax_default_axis_example'));
    const and = await rt.InferenceSession.create(node('test_and2d'));
    const where = await rt.InferenceSession.create(node('test_where_example'));
    const bools = (n: number, k: number) => Array.from({ length: n }, (_, i) => (i * k) % 3 === 0);
    const result = {
      gather: plainAll(await gather.run({ data: new rt.Tensor('float32', pattern(120), [5, 4, 3, 2]), indices: new rt.Tensor('int64', [0, 4, 2], [3]) })),
      argmax: plainAll(await argmax.run({ data: new rt.Tensor('float32', [2, 1, 3, 10], [2, 2]) })),
      and: plainAll(await and.run({ x: new rt.Tensor('bool', bools(12, 1), [3, 4]), y: new rt.Tensor('bool', bools(12, 2), [3, 4]) })),
      where: plainAll(await where.run({ condition: new rt.Tensor('bool', [true, false, false, true], [2, 2]), x: new rt.Tensor('float32', [1, 2, 3, 4], [2, 2]), y: new rt.Tensor('float32', [9, 8, 7, 6], [2, 2]) })),
    };
    for (const s of [gather, argmax, and, where]) await s.release();
    return result;
  });

  compatible('fix a symbolic batch with freeDimensionOverrides', async (rt) => {
    const session = await rt.InferenceSession.create(SQUEEZENET, { freeDimensionOverrides: { batch: 1 } });
    const out = await session.run({ input: new rt.Tensor('float32', pattern(3 * 224 * 224, 9), [1, 3, 224, 224]) });
    const result = { inputMetadata: session.inputMetadata, logits: plain(out.logits) };
    await session.release();
    return result;
  });

  compatible("accept onnxruntime's session options", async (rt) => {
    const session = await rt.InferenceSession.create(TINY_CNN, {
      executionProviders: [{ name: 'cpu', useArena: false }],
      graphOptimizationLevel: 'layout',
      executionMode: 'sequential',
      interOpNumThreads: 1,
      intraOpNumThreads: 2,
      enableCpuMemArena: true,
      enableMemPattern: true,
      logId: 'compat',
      logSeverityLevel: 3,
    });
    const out = await session.run({ input: new rt.Tensor('float32', pattern(3 * 32 * 32, 11), [1, 3, 32, 32]) });
    await session.release();
    return plainAll(out);
  });
});

eachRuntime('onnxruntime-node usage on %s', (_name, rt) => {
  it('profiles runs into a Chrome trace named by profileFilePrefix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-compat-profile-'));
    try {
      const session = await rt.InferenceSession.create(TINY_CNN, { enableProfiling: true, profileFilePrefix: join(dir, 'trace') });
      session.startProfiling();
      await session.run({ input: new rt.Tensor('float32', pattern(3 * 32 * 32), [1, 3, 32, 32]) });
      session.endProfiling();
      const files = readdirSync(dir).filter((f) => f.startsWith('trace') && f.endsWith('.json'));
      expect(files).toHaveLength(1);
      const events = JSON.parse(readFileSync(join(dir, files[0]), 'utf8')) as Array<{ cat: string; ph: string; dur: number; args: { op_name?: string } }>;
      const nodes = events.filter((e) => e.cat === 'Node');
      expect(nodes.length).toBeGreaterThan(0);
      expect(nodes.every((e) => e.ph === 'X' && e.dur >= 0)).toBe(true);
      // Switchyard names fused nodes by what they became (a Conv with its activation, say).
      expect(nodes.some((e) => /Conv/.test(e.args.op_name ?? ''))).toBe(true);
      await session.release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has env.logLevel (default warning) and env.versions', () => {
    expect(rt.env.logLevel).toBe('warning');
    rt.env.logLevel = 'error';
    expect(rt.env.logLevel).toBe('error');
    rt.env.logLevel = 'warning';
    const versions = Object.values(rt.env.versions);
    expect(versions.length).toBeGreaterThan(0);
    expect(versions.every((v) => typeof v === 'string' && /^\d+\.\d+\.\d+/.test(v))).toBe(true);
  });

  it('rejects unknown inputs and outputs, and runs after release', async () => {
    const session = await rt.InferenceSession.create(TINY_CNN);
    const input = new rt.Tensor('float32', pattern(3 * 32 * 32), [1, 3, 32, 32]);
    await expect(session.run({ nope: input })).rejects.toThrow();
    await expect(session.run({ input }, ['nope'])).rejects.toThrow(/nope/);
    await expect(session.run({ input }, [])).rejects.toThrow(/empty/);
    await expect(session.run({ input }, { probabilities: new rt.Tensor('float32', new Float32Array(3), [3]) })).rejects.toThrow();
    await session.release();
    await expect(session.run({ input })).rejects.toThrow();
  });
});
