/**
 * Shape arithmetic remembered per input shape (core's session/shape-memo.ts) on the CPU EP's kernels:
 * a decoder-style Shape → Gather → Unsqueeze → Concat → Reshape chain over symbolic dims runs once per
 * distinct input shape, results equal a session without the memo for every shape sequence, and values
 * that depend on data, graph outputs a caller may change, and profiled runs are never served from it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, defineKernel, type ExecutionProvider, type KernelDef, type SessionOptions } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { typescriptKernels } from './register-all.js';

const COUNTED = new Set(['Gather', 'Unsqueeze', 'Concat', 'Mul', 'Range', 'Cast']);

/** The CPU EP's TypeScript kernels for the shape-arithmetic ops, counting the runs of each. */
function countingProvider(calls: Map<string, number>): ExecutionProvider {
  const kernels: KernelDef[] = typescriptKernels
    .filter((k) => k.domain === '' && COUNTED.has(k.opType))
    .map((k) =>
      defineKernel({
        ...k,
        ep: 'counting',
        create: (init) => {
          const inner = k.create(init);
          return {
            ...inner,
            run: (ctx) => {
              calls.set(k.opType, (calls.get(k.opType) ?? 0) + 1);
              return inner.run(ctx);
            },
          };
        },
      }),
    );
  return { name: 'counting', kernels };
}

const i64 = (values: number[]) => new Tensor('int64', BigInt64Array.from(values.map(BigInt)), [values.length]);
const scalar64 = (v: number) => new Tensor('int64', BigInt64Array.of(BigInt(v)), []);

/**
 * x [B, S, 4] → y = Reshape(x, [B, S*4]) with the target built from Shape(x) as exporters do, and
 * pos = Cast(Range(0, S, 1)) + ReduceMax(x) (the Range is shape arithmetic; the Add reads data).
 */
function decoderStyleModel(returnTarget: boolean) {
  return buildModel({
    inputs: [['x', 'float32', ['B', 'S', 4]]],
    outputs: [['y', 'float32'], ['pos', 'float32'], ...(returnTarget ? [['target', 'int64'] as ['target', 'int64']] : [])],
    initializers: { i0: scalar64(0), i1: scalar64(1), four: scalar64(4), axes0: i64([0]), one: scalar64(1) },
    nodes: [
      { op: 'Shape', inputs: ['x'], outputs: ['shape'] },
      { op: 'Gather', inputs: ['shape', 'i0'], outputs: ['b'], attributes: { axis: 0 } },
      { op: 'Gather', inputs: ['shape', 'i1'], outputs: ['s'], attributes: { axis: 0 } },
      { op: 'Mul', inputs: ['s', 'four'], outputs: ['s4'] },
      { op: 'Unsqueeze', inputs: ['b', 'axes0'], outputs: ['b1'] },
      { op: 'Unsqueeze', inputs: ['s4', 'axes0'], outputs: ['s41'] },
      { op: 'Concat', inputs: ['b1', 's41'], outputs: ['target'], attributes: { axis: 0 } },
      { op: 'Reshape', inputs: ['x', 'target'], outputs: ['flat'] },
      { op: 'Relu', inputs: ['flat'], outputs: ['y'] },
      { op: 'Range', inputs: ['i0', 's', 'one'], outputs: ['range'] },
      { op: 'Cast', inputs: ['range'], outputs: ['rangef'], attributes: { to: 1 } },
      { op: 'ReduceMax', inputs: ['x'], outputs: ['mx'], attributes: { keepdims: 0 } },
      { op: 'Add', inputs: ['rangef', 'mx'], outputs: ['pos'] },
    ],
  });
}

function input(b: number, s: number, offset = 0): Tensor {
  const data = Float32Array.from({ length: b * s * 4 }, (_, i) => ((i * 7) % 11) - 5 + offset);
  return new Tensor('float32', data, [b, s, 4]);
}

const saved = process.env.SWITCHYARD_SHAPE_MEMO;
afterEach(() => {
  if (saved === undefined) delete process.env.SWITCHYARD_SHAPE_MEMO;
  else process.env.SWITCHYARD_SHAPE_MEMO = saved;
});

async function session(calls: Map<string, number>, memo: boolean, extra: SessionOptions = {}, returnTarget = false) {
  // The memo is set up at a plan's first run, from the environment of that moment.
  process.env.SWITCHYARD_SHAPE_MEMO = memo ? '1' : '0';
  const s = await InferenceSession.fromModel(decoderStyleModel(returnTarget), { executionProviders: [countingProvider(calls), 'cpu'], graphOptimizationLevel: 'disabled', ...extra });
  await s.run({ x: input(1, 1) });
  calls.clear();
  return s;
}

const values = (t: unknown) => Array.from((t as Tensor).data as ArrayLike<number | bigint>, Number);

describe('shape memo', () => {
  it('runs shape arithmetic once per input shape and agrees with a session without it', async () => {
    const withCalls = new Map<string, number>();
    const withoutCalls = new Map<string, number>();
    const withMemo = await session(withCalls, true);
    const without = await session(withoutCalls, false);
    const shapes: Array<[number, number]> = [
      [1, 3],
      [2, 5],
      [1, 3],
      [2, 5],
      [1, 1],
      [3, 2],
    ];
    const memoCalls: Array<Record<string, number>> = [];
    for (const [b, s] of shapes) {
      withCalls.clear();
      const got = await withMemo.run({ x: input(b, s) });
      memoCalls.push(Object.fromEntries(withCalls));
      const want = await without.run({ x: input(b, s) });
      for (const name of ['y', 'pos']) {
        expect((got[name] as Tensor).dims, name).toEqual((want[name] as Tensor).dims);
        expect(values(got[name]), name).toEqual(values(want[name]));
      }
      expect((got.y as Tensor).dims).toEqual([b, s * 4]);
    }
    // Without the memo every run pays for the chain (Gather ×2, Mul, Unsqueeze ×2, Concat, Range, Cast).
    expect(withoutCalls.get('Gather')).toBe(2 * shapes.length);
    expect(withoutCalls.get('Concat')).toBe(shapes.length);
    // With it, the first run of a shape computes the chain and its repeats take it from the memo
    // ([1, 1] was seen at creation). Cast's output may stay computed: Add may write its sum over it.
    const chain = { Gather: 2, Mul: 1, Unsqueeze: 2, Concat: 1, Range: 1 };
    for (const i of [0, 1, 5]) expect(memoCalls[i], `run ${i}`).toMatchObject(chain);
    for (const i of [2, 3, 4]) for (const op of Object.keys(chain)) expect(memoCalls[i][op], `run ${i} ${op}`).toBeUndefined();
  });

  it('never serves values that read data, and a caller changing a returned output changes nothing', async () => {
    const calls = new Map<string, number>();
    const s = await session(calls, true, {}, true);
    const first = await s.run({ x: input(2, 3) });
    // Same shape, other data: pos reads ReduceMax(x), which no memo may keep.
    const shifted = await s.run({ x: input(2, 3, 100) });
    expect(values(shifted.pos)[0]).toBe(values(first.pos)[0] + 100);
    // The returned target is the caller's: scribbling on it must not reach the next run.
    ((first.target as Tensor).data as BigInt64Array).fill(-7n);
    const again = await s.run({ x: input(2, 3) });
    expect(values(again.target)).toEqual([2, 12]);
    expect((again.y as Tensor).dims).toEqual([2, 12]);
  });

  it('is not used by profiled runs', async () => {
    const calls = new Map<string, number>();
    const s = await session(calls, true, { enableProfiling: true });
    await s.run({ x: input(2, 3) });
    await s.run({ x: input(2, 3) });
    expect(calls.get('Gather')).toBe(4);
  });
});
