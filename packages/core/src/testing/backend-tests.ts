/**
 * Runs ONNX backend test folders (`model.onnx` plus `test_data_set_N` folders of `input_K.pb` / `output_K.pb`) on a session
 * configuration, and checks the outcome against an EP's expectation file.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { SwitchyardError } from '../errors.js';
import { decodeOptional, decodeSequence, decodeTensor } from '../onnx/index.js';
import type { ValueType } from '../ir/graph.js';
import type { RuntimeValue } from '../registry/kernel-def.js';
import { Tensor } from '../tensor/tensor.js';
import { InferenceSession } from '../session/inference-session.js';
import type { SessionOptions } from '../session/session-options.js';
import { compareValues, ONNX_TOLERANCE, type Tolerance } from './compare.js';

/**
 * `random`: the test's expected values are random draws (numpy's generator; Bernoulli, training-mode Dropout),
 * which no other generator reproduces, so only the outputs' dtypes and shapes are compared. A test gets this
 * outcome only when its expectation file lists it so; comparing the values would pass or fail by chance.
 */
export type BackendOutcome = 'passed' | 'failed' | 'unsupported' | 'random';

export interface BackendTestResult {
  /** `<suite>/<test>`, e.g. `node/test_abs`. */
  id: string;
  outcome: BackendOutcome;
  /** Why it failed or is unsupported. */
  detail?: string;
  ms: number;
}

/** Debian's libonnx-testdata (ONNX 1.12): the four suites of the backend test data. */
export const DEFAULT_BACKEND_TEST_ROOT = '/usr/share/libonnx-testdata/data';
export const BACKEND_SUITES = ['node', 'pytorch-converted', 'pytorch-operator', 'simple'] as const;

/** Every test folder under `root/<suite>/`, as `{ id, dir }`, sorted. */
export function listBackendTests(root = DEFAULT_BACKEND_TEST_ROOT, suites: readonly string[] = BACKEND_SUITES): Array<{ id: string; dir: string }> {
  const out: Array<{ id: string; dir: string }> = [];
  for (const suite of suites) {
    const base = join(root, suite);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base).sort()) {
      const dir = join(base, name);
      if (statSync(dir).isDirectory() && existsSync(join(dir, 'model.onnx'))) out.push({ id: `${suite}/${name}`, dir });
    }
  }
  return out;
}

function decodeValue(bytes: Uint8Array, type: ValueType | undefined): RuntimeValue {
  if (type?.kind === 'sequence') return decodeSequence(bytes);
  if (type?.kind === 'optional') return decodeOptional(bytes);
  const t = decodeTensor(bytes);
  // ONNX 1.12 stored bfloat16 test data with the uint16 element type; the bits are bfloat16.
  if (type?.kind === 'tensor' && type.elemType === 'bfloat16' && t.type === 'uint16') return new Tensor('bfloat16', t.data as Uint16Array, t.dims);
  return t;
}

function numbered(dir: string, prefix: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith('.pb'))
    .sort((a, b) => Number(a.slice(prefix.length, -3)) - Number(b.slice(prefix.length, -3)))
    .map((f) => join(dir, f));
}

/** Runs one backend test folder. Never throws: errors become `failed`/`unsupported` outcomes. */
export async function runBackendTest(
  test: { id: string; dir: string },
  options: SessionOptions,
  tolerance: Tolerance = ONNX_TOLERANCE,
  valuesAreRandom = false,
): Promise<BackendTestResult> {
  const t0 = performance.now();
  const done = (outcome: BackendOutcome, detail?: string): BackendTestResult => ({ id: test.id, outcome, detail, ms: performance.now() - t0 });
  let session: InferenceSession;
  try {
    session = await InferenceSession.create(join(test.dir, 'model.onnx'), options);
  } catch (err) {
    const e = err as Error;
    const unsupported = err instanceof SwitchyardError && (err.code === 'NO_PROVIDER' || err.code === 'UNSUPPORTED');
    return done(unsupported ? 'unsupported' : 'failed', firstLine(e.message, unsupported));
  }
  try {
    const graph = session.model.graph;
    const inputs = graph.inputs.filter((i) => !graph.initializers.has(i.name));
    const sets = readdirSync(test.dir).filter((d) => d.startsWith('test_data_set_')).sort();
    for (const set of sets) {
      const setDir = join(test.dir, set);
      const feeds: Record<string, RuntimeValue> = {};
      numbered(setDir, 'input_').forEach((file, i) => {
        const info = inputs[i];
        if (info) feeds[info.name] = decodeValue(readFileSync(file), info.type);
      });
      const expected = numbered(setDir, 'output_').map((file, i) => decodeValue(readFileSync(file), graph.outputs[i]?.type));
      const result = await session.run(feeds as Parameters<InferenceSession['run']>[0]);
      for (let i = 0; i < expected.length; i++) {
        const name = session.outputNames[i];
        const mismatch = compareValues(result[name], expected[i], tolerance, !valuesAreRandom);
        if (mismatch) return done('failed', `${set} output '${name}': ${mismatch}`);
      }
    }
    return valuesAreRandom ? done('random', 'dtypes and shapes match; values are random draws, not compared') : done('passed');
  } catch (err) {
    return done('failed', firstLine((err as Error).message, false));
  } finally {
    await session.release();
  }
}

function firstLine(msg: string, keepSecond: boolean): string {
  const lines = msg.split('\n');
  // NO_PROVIDER errors put the useful part (the node and reasons) on the second line.
  return (keepSecond && lines[1] ? `${lines[0]} ${lines[1].trim()}` : lines[0]).slice(0, 400);
}

/** An EP's list of tests it does not pass, each with the outcome it has and why. */
export interface Expectations {
  ep: string;
  suite: string;
  tests: Record<string, { outcome: Exclude<BackendOutcome, 'passed'>; reason: string }>;
}

export function readExpectations(path: string): Expectations {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as Expectations;
  if (!parsed || typeof parsed.tests !== 'object') throw new SwitchyardError('INVALID_ARGUMENT', `${basename(path)} is not an expectation file`);
  return parsed;
}

export interface BackendSummary {
  total: number;
  passed: number;
  failed: number;
  unsupported: number;
  /** Listed as `random` and matching in dtype and shape. */
  random: number;
  /** Tests that did not pass and are not listed (or are listed with another outcome). */
  unexpectedFailures: BackendTestResult[];
  /** Tests listed as not passing that passed. */
  unexpectedPasses: BackendTestResult[];
  /** Listed tests missing from the suite. */
  staleEntries: string[];
  results: BackendTestResult[];
}

export interface BackendRunOptions {
  session: SessionOptions;
  expectations?: Expectations;
  root?: string;
  suites?: readonly string[];
  /** Only tests whose id matches. */
  filter?: RegExp;
  tolerance?: Tolerance;
  onResult?: (r: BackendTestResult, index: number, total: number) => void;
}

export async function runBackendSuite(opts: BackendRunOptions): Promise<BackendSummary> {
  let tests = listBackendTests(opts.root, opts.suites);
  if (opts.filter) tests = tests.filter((t) => opts.filter!.test(t.id));
  const results: BackendTestResult[] = [];
  const listed = opts.expectations?.tests ?? {};
  for (const [i, t] of tests.entries()) {
    const r = await runBackendTest(t, opts.session, opts.tolerance, listed[t.id]?.outcome === 'random');
    results.push(r);
    opts.onResult?.(r, i, tests.length);
  }
  const ids = new Set(tests.map((t) => t.id));
  return {
    total: results.length,
    passed: results.filter((r) => r.outcome === 'passed').length,
    failed: results.filter((r) => r.outcome === 'failed').length,
    unsupported: results.filter((r) => r.outcome === 'unsupported').length,
    random: results.filter((r) => r.outcome === 'random').length,
    unexpectedFailures: results.filter((r) => r.outcome !== 'passed' && listed[r.id]?.outcome !== r.outcome),
    unexpectedPasses: results.filter((r) => r.outcome === 'passed' && listed[r.id] !== undefined),
    staleEntries: opts.filter ? [] : Object.keys(listed).filter((id) => !ids.has(id)),
    results,
  };
}

/** An expectation file that records the current outcomes (for `switchyard conformance --update`). */
export function expectationsFrom(ep: string, summary: BackendSummary, previous?: Expectations): Expectations {
  const tests: Expectations['tests'] = {};
  for (const r of summary.results) {
    if (r.outcome === 'passed') continue;
    const old = previous?.tests[r.id];
    // Keep a hand-written reason when the outcome did not change.
    tests[r.id] = { outcome: r.outcome, reason: old && old.outcome === r.outcome ? old.reason : r.detail ?? '' };
  }
  return { ep, suite: previous?.suite ?? 'onnx-1.12-backend', tests };
}
