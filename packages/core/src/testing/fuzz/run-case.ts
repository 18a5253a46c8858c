/**
 * Runs one fuzz case in this process and judges it. Allowed endings: a SwitchyardError with a code
 * (its causes free of JavaScript's own TypeError/RangeError, which mean an input went unvalidated),
 * or a run whose outputs are well formed — and equal to what the case expects, where it knows.
 * Anything else is a failure the report names with its seed and index.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SwitchyardError } from '../../errors.js';
import type { ExecutionProvider } from '../../ep/execution-provider.js';
import type { ValueType } from '../../ir/graph.js';
import { decodeValue } from '../../onnx/data-files.js';
import type { RuntimeValue } from '../../registry/kernel-def.js';
import { InferenceSession } from '../../session/inference-session.js';
import { allocateData, slotsPerElement, type DataType } from '../../tensor/data-type.js';
import { Tensor } from '../../tensor/tensor.js';
import { compareTensors } from '../compare.js';
import type { Random } from '../random-graph/random.js';
import { FLOAT16_TOLERANCE, compareOutput } from '../random-graph/differential.js';
import type { FuzzCase } from './fuzz-case.js';

export interface FuzzRunOptions {
  /** Execution providers for each session (the same instances may serve every case). */
  providers: () => ExecutionProvider[];
  /** SessionOptions.maxTensorBytes for every session. */
  maxTensorBytes: number;
  /** runOptions.timeoutMs of each run: a model that loops for long is stopped, not a hang. */
  runTimeoutMs: number;
  /** Where cases that need files lay them out (one sub-folder, emptied after each case). */
  workDir: string;
  /** Sees every error a case ends in (for tallying messages when tuning the generator). */
  onError?: (err: unknown) => void;
}

export type Verdict = 'ok' | 'error' | 'failure';

export interface CaseResult {
  verdict: Verdict;
  /** The error code for 'error'; the kind of failure for 'failure'. */
  code?: string;
  detail?: string;
}

/** JavaScript's own errors: when one surfaces, some input reached code that never checked it. */
const UNCHECKED = [TypeError, RangeError, ReferenceError, SyntaxError];

function uncheckedCause(err: unknown): Error | undefined {
  for (let e = err, depth = 0; e && depth < 10; e = (e as { cause?: unknown }).cause, depth++) {
    if (UNCHECKED.some((c) => e instanceof c)) return e as Error;
  }
  return undefined;
}

/** Judges an exception: a typed SwitchyardError, or a failure. */
export function judgeError(err: unknown): CaseResult {
  if (!(err instanceof SwitchyardError) || typeof err.code !== 'string') {
    return { verdict: 'failure', code: 'untyped', detail: err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err) };
  }
  const cause = uncheckedCause(err);
  if (cause) return { verdict: 'failure', code: 'unchecked', detail: `${err.message}\n${cause.stack ?? ''}` };
  if (err.code === 'INTERNAL') return { verdict: 'failure', code: 'internal', detail: err.message };
  return { verdict: 'error', code: err.code };
}

function wellFormed(name: string, v: RuntimeValue): string | undefined {
  if (v === null) return undefined;
  if (Array.isArray(v)) return v.map((t, i) => wellFormed(`${name}[${i}]`, t)).find((p) => p);
  if (!(v instanceof Tensor)) return `output '${name}' is not a tensor, sequence or empty optional`;
  if (v.location !== 'cpu') return undefined;
  const expected = v.dims.reduce((a, b) => a * b, 1) * slotsPerElement(v.type);
  if (!v.dims.every((d) => Number.isSafeInteger(d) && d >= 0)) return `output '${name}' has dims [${v.dims}]`;
  if (v.data.length !== expected) return `output '${name}' has ${v.data.length} data slots for dims [${v.dims}]`;
  return undefined;
}

function randomTensor(rng: Random, type: DataType, dims: number[]): Tensor {
  const size = dims.reduce((a, b) => a * b, 1);
  if (type === 'string') return new Tensor('string', Array.from({ length: size }, () => rng.pick(['', 'a', 'bc'])), dims);
  const data = allocateData(type, size) as unknown as { length: number; [i: number]: number | bigint };
  const big = data instanceof BigInt64Array || data instanceof BigUint64Array;
  for (let i = 0; i < data.length; i++) {
    const v = type === 'bool' ? rng.int(0, 1) : rng.int(-8, 8);
    data[i] = big ? BigInt(Math.abs(v)) : type.startsWith('uint') || type === 'float16' ? Math.abs(v) : v;
  }
  return new Tensor(type, data as never, dims);
}

/** A feed for `type`: symbolic and unknown dims become 1 to 4; absurd static dims are kept small (the run must refuse them). */
function synthesise(rng: Random, type: ValueType | undefined): RuntimeValue | undefined {
  if (type?.kind === 'sequence') {
    const elem = synthesise(rng, type.elem);
    return elem instanceof Tensor ? [elem] : [];
  }
  if (type?.kind === 'optional') return rng.chance(0.5) ? null : synthesise(rng, type.elem);
  if (type?.kind !== 'tensor') return undefined;
  const dims = (type.shape ?? [rng.int(1, 4)]).map((d) => (typeof d === 'number' && d >= 0 && d <= 64 ? d : rng.int(1, 4)));
  if (dims.reduce((a, b) => a * b, 1) > 100_000) return undefined;
  return randomTensor(rng, type.elemType, dims);
}

/** Overwrites a few elements in place with values kernels must survive: index and size extremes, NaN, infinities. */
function withExtremes(rng: Random, t: Tensor): void {
  const data = t.data as unknown as { length: number; [i: number]: number | bigint };
  if (t.type === 'string' || data.length === 0) return;
  for (let k = rng.int(1, 3); k > 0; k--) {
    const i = rng.int(0, data.length - 1);
    if (data instanceof BigInt64Array) data[i] = rng.pick([-1n, -(2n ** 63n), 2n ** 63n - 1n, 2n ** 31n, 2n ** 40n, -(2n ** 31n)]);
    else if (data instanceof Float32Array || data instanceof Float64Array) data[i] = rng.pick([NaN, Infinity, -Infinity, 1e30, -1e30, 3e38]);
    else if (data instanceof Int32Array) data[i] = rng.pick([-1, -(2 ** 31), 2 ** 31 - 1, 1 << 20]);
    else if (!(data instanceof BigUint64Array)) data[i] = rng.pick([0, 1, 255, 65535]);
  }
}

function numbered(dir: string, prefix: string): string[] {
  const out: string[] = [];
  for (let i = 0; existsSync(join(dir, `${prefix}${i}.pb`)); i++) out.push(join(dir, `${prefix}${i}.pb`));
  return out;
}

function feedsFor(c: FuzzCase, session: InferenceSession): Record<string, unknown> {
  const graph = session.model.graph;
  const inputs = graph.inputs.filter((i) => !graph.initializers.has(i.name));
  const rng = c.rng;
  const feeds: Record<string, unknown> = {};
  const plan = c.feeds;
  if (plan.kind === 'given') return plan.feeds;
  if (plan.kind === 'test-data') {
    const files = numbered(plan.dir, 'input_');
    inputs.forEach((info, i) => {
      try {
        if (files[i]) feeds[info.name] = decodeValue(readFileSync(files[i]), info.type);
      } catch {
        // A mutated input type the stored value no longer decodes as: fall back to a made-up value.
      }
      if (!(info.name in feeds)) feeds[info.name] = synthesise(rng, info.type);
    });
    if (plan.extremes) for (const v of Object.values(feeds)) if (v instanceof Tensor) withExtremes(rng, v);
    return feeds;
  }
  for (const info of inputs) feeds[info.name] = synthesise(rng, info.type);
  if (plan.kind === 'wrong' && inputs.length) {
    const victim = rng.pick(inputs).name;
    switch (rng.int(0, 5)) {
      case 0:
        delete feeds[victim];
        break;
      case 1:
        feeds[victim] = randomTensor(rng, rng.pick(['float32', 'int64', 'bool', 'float16', 'string', 'uint8'] as const), [2, 3]);
        break;
      case 2:
        feeds[victim] = randomTensor(rng, 'float32', [1, 1, 1, 1, 1, 1, 1, 2]);
        break;
      case 3:
        feeds[`${victim}_extra`] = randomTensor(rng, 'float32', [1]);
        break;
      case 4:
        feeds[victim] = [randomTensor(rng, 'float32', [1])];
        break;
      default:
        feeds[victim] = rng.pick([null, undefined, 42, 'text', { dims: [1], data: [1] }]);
    }
  }
  return feeds;
}

function layOutFiles(c: FuzzCase, folder: string): string {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(join(folder, 'model'), { recursive: true });
  for (const f of c.files ?? []) {
    const at = join(folder, f.path);
    mkdirSync(dirname(at), { recursive: true });
    if ('bytes' in f) writeFileSync(at, f.bytes);
    else if ('directory' in f) mkdirSync(at, { recursive: true });
    else symlinkSync(f.symlinkTo, at);
  }
  const path = join(folder, 'model', 'model.onnx');
  writeFileSync(path, c.model);
  return path;
}

async function checkOutputs(c: FuzzCase, outputs: Record<string, RuntimeValue>, reference: () => Promise<Record<string, RuntimeValue>>): Promise<CaseResult> {
  for (const [name, v] of Object.entries(outputs)) {
    const bad = wellFormed(name, v);
    if (bad) return { verdict: 'failure', code: 'bad-output', detail: bad };
  }
  if (c.expected) {
    for (const [name, values] of Object.entries(c.expected)) {
      const mismatch = compareTensors(outputs[name] as Tensor, new Tensor('float32', values, [values.length]), { rtol: 0, atol: 0 });
      if (mismatch) return { verdict: 'failure', code: 'wrong', detail: `output '${name}': ${mismatch}` };
    }
  }
  if (c.differential) {
    const expected = await reference();
    for (const [name, v] of Object.entries(expected)) {
      const mismatch = compareOutput(outputs[name], v, false, FLOAT16_TOLERANCE);
      if (mismatch) return { verdict: 'failure', code: 'wrong', detail: `output '${name}' at '${c.level}' differs from 'disabled': ${mismatch}` };
    }
  }
  return { verdict: 'ok' };
}

/** Loads, prepares and runs one case; never throws. */
export async function runFuzzCase(c: FuzzCase, options: FuzzRunOptions): Promise<CaseResult> {
  const folder = join(options.workDir, 'case');
  const sessionOptions = { executionProviders: options.providers(), maxTensorBytes: options.maxTensorBytes, logSeverityLevel: 4 as const };
  let session: InferenceSession | undefined;
  try {
    const source = c.files ? layOutFiles(c, folder) : c.model;
    session = await InferenceSession.create(source, { ...sessionOptions, graphOptimizationLevel: c.level });
    const feeds = feedsFor(c, session);
    const run = (s: InferenceSession) => s.run(feeds as never, undefined, { timeoutMs: options.runTimeoutMs });
    const outputs = await run(session);
    return await checkOutputs(c, outputs, async () => {
      const reference = await InferenceSession.create(c.model, { ...sessionOptions, graphOptimizationLevel: 'disabled' });
      try {
        return await run(reference);
      } finally {
        await reference.release();
      }
    });
  } catch (err) {
    options.onError?.(err);
    return judgeError(err);
  } finally {
    await session?.release().catch(() => undefined);
    if (c.files) rmSync(folder, { recursive: true, force: true });
  }
}
