import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel, type NodeSpec } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

// A native elementwise node writes its output into an input's memory (Kernel.inPlace) when the input has
// the output's shape and nothing reads it afterwards: an SE block's x * scale then touches one buffer, not two.
const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const title = native.ok ? 'native elementwise in place' : `native elementwise in place (skipped: ${native.reason})`;


/** x [1, C, H, W] and a per-channel s [1, C, 1, 1] through `nodes` to `out` (static shapes throughout). */
async function session(nodes: NodeSpec[], c: number, hw: number, useNative = true) {
  const model = buildModel({
    inputs: [
      ['x', 'float32', [1, c, hw, hw]],
      ['s', 'float32', [1, c, 1, 1]],
    ],
    outputs: [['out', 'float32', [1, c, hw, hw]]],
    nodes,
  });
  return InferenceSession.fromModel(model, {
    executionProviders: [new CpuExecutionProvider({ useNative })],
    graphOptimizationLevel: 'disabled',
    intraOpNumThreads: 2,
  });
}

const seChain: NodeSpec[] = [
  { op: 'Relu', inputs: ['x'], outputs: ['a'] },
  { op: 'Mul', inputs: ['a', 's'], outputs: ['m'] },
  { op: 'Neg', inputs: ['m'], outputs: ['out'] },
];
const readAgain: NodeSpec[] = [
  { op: 'Relu', inputs: ['x'], outputs: ['a'] },
  { op: 'Mul', inputs: ['a', 's'], outputs: ['m'] },
  { op: 'Add', inputs: ['m', 'a'], outputs: ['out'] },
];

async function runBoth(nodes: NodeSpec[], c: number, hw: number) {
  const feeds = { x: new Tensor('float32', seededFloats(c * hw * hw, 1), [1, c, hw, hw]), s: new Tensor('float32', seededFloats(c, 2), [1, c, 1, 1]) };
  const nat = await session(nodes, c, hw);
  const ts = await session(nodes, c, hw, false);
  const results = [];
  for (let run = 0; run < 2; run++) results.push((await nat.run(feeds)).out as Tensor);
  const expected = (await ts.run(feeds)).out as Tensor;
  return { nat, results, expected, slotBytes: c * hw * hw * 4 };
}

/** Bit-identical (Mul, Add, Relu and Neg round alike in the engine and in TS). */
function expectSame(actual: Tensor, expected: Tensor): void {
  const a = actual.data as Float32Array;
  const e = expected.data as Float32Array;
  expect(a.length).toBe(e.length);
  const bad = a.findIndex((v, i) => !Object.is(v, e[i]));
  expect(bad, `[${bad}] = ${a[bad]}, expected ${e[bad]}`).toBe(-1);
}

describe.skipIf(!native.ok)(title, () => {
  it('gives x * scale the memory of x when x is read for the last time, with the same results', async () => {
    const { nat, results, expected, slotBytes } = await runBoth(seChain, 64, 32);
    for (const r of results) expectSame(r, expected);
    // a and m share one slot (without the pair they overlap at Mul and need two).
    expect(nat.optimization.memory.arenaBytes).toBe(slotBytes);
  });

  it('keeps its own memory when the input is read afterwards', async () => {
    const { nat, results, expected, slotBytes } = await runBoth(readAgain, 64, 32);
    for (const r of results) expectSame(r, expected);
    expect(nat.optimization.memory.arenaBytes).toBe(2 * slotBytes);
  });

  it('keeps its own memory below the size the TS kernel takes (that kernel never runs in place)', async () => {
    const { nat, results, expected, slotBytes } = await runBoth(seChain, 4, 4);
    for (const r of results) expectSame(r, expected);
    expect(nat.optimization.memory.arenaBytes).toBeGreaterThanOrEqual(2 * slotBytes);
  });
});
