// Placement FLOPs of a dynamic-batch model (core session/realized-flops.ts) on the CPU EP and a
// device EP: from the declared shapes they are unknown; after a run they come from its input shapes,
// and follow the batch when it changes; freeDimensionOverrides and placementFor(dims) give them too.
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, type Placement } from '@switchyard/core';
import { MockDeviceProvider, buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from './index.js';

const weight = (rows: number, cols: number) => new Tensor('float32', Float32Array.from({ length: rows * cols }, (_, i) => ((i % 7) - 3) / 10), [rows, cols]);

// x[batch, 16] → MatMul [16, 32] (cpu) → Relu (device) → MatMul [32, 8] (cpu) → Sigmoid (device)
const model = () =>
  buildModel({
    inputs: [['x', 'float32', ['batch', 16]]],
    outputs: [['y', 'float32']],
    initializers: { w1: weight(16, 32), w2: weight(32, 8) },
    nodes: [
      { op: 'MatMul', inputs: ['x', 'w1'], outputs: ['h'], name: 'mm1' },
      { op: 'Relu', inputs: ['h'], outputs: ['r'], name: 'relu' },
      { op: 'MatMul', inputs: ['r', 'w2'], outputs: ['z'], name: 'mm2' },
      { op: 'Sigmoid', inputs: ['z'], outputs: ['y'], name: 'sigmoid' },
    ],
  });

/** FLOPs per example: the MatMuls 2·16·32 + 2·32·8, Relu 32 and Sigmoid 8 elements. */
const CPU_PER_EXAMPLE = 2 * 16 * 32 + 2 * 32 * 8;
const DEVICE_PER_EXAMPLE = 32 + 8;

async function session(options: { freeDimensionOverrides?: Record<string, number> } = {}) {
  const dev = new MockDeviceProvider({ ops: ['Relu', 'Sigmoid'] });
  return InferenceSession.fromModel(model(), { executionProviders: [dev, new CpuExecutionProvider()], ...options });
}

const feed = (batch: number) => ({ x: new Tensor('float32', new Float32Array(batch * 16).fill(0.5), [batch, 16]) });
const flopsOf = (p: Placement, ep: string) => p.providers.find((x) => x.name === ep)!.flops;

function expectBatch(p: Placement, batch: number) {
  expect(p.totalFlops).toBe(batch * (CPU_PER_EXAMPLE + DEVICE_PER_EXAMPLE));
  expect(flopsOf(p, 'cpu')).toBe(batch * CPU_PER_EXAMPLE);
  expect(flopsOf(p, 'mockdev')).toBe(batch * DEVICE_PER_EXAMPLE);
  expect(p.providers.find((x) => x.name === 'mockdev')!.flopCoverage).toBeCloseTo(DEVICE_PER_EXAMPLE / (CPU_PER_EXAMPLE + DEVICE_PER_EXAMPLE), 12);
  expect(p.flopShapes.unknownNodes).toBe(0);
  expect(p.nodes.map((n) => [n.name, n.ep])).toEqual([['mm1', 'cpu'], ['relu', 'mockdev'], ['mm2', 'cpu'], ['sigmoid', 'mockdev']]);
}

describe('placement FLOPs of a model with a symbolic batch', () => {
  it('are unknown from the declared shapes, then counted from each run’s input shapes', async () => {
    const s = await session();
    expect(s.placement.totalFlops).toBe(0);
    expect(s.placement.flopShapes).toEqual({ source: 'declared', dims: {}, unknownNodes: 4 });

    await s.run(feed(3));
    expectBatch(s.placement, 3);
    expect(s.placement.flopShapes).toEqual({ source: 'lastRun', dims: { batch: 3 }, unknownNodes: 0 });
    const first = s.placement;
    await s.run(feed(3));
    expect(s.placement).toBe(first); // same sizes: not counted again

    await s.run(feed(5));
    expectBatch(s.placement, 5);
    expect(s.placement.flopShapes.dims).toEqual({ batch: 5 });
    await s.release();
  });

  it('come from freeDimensionOverrides when the session fixes the batch', async () => {
    const s = await session({ freeDimensionOverrides: { batch: 2 } });
    expectBatch(s.placement, 2);
    expect(s.placement.flopShapes).toEqual({ source: 'freeDimensionOverrides', dims: { batch: 2 }, unknownNodes: 0 });
    await s.release();
  });

  it('come from given dims without a run, and bad dims are refused', async () => {
    const s = await session();
    const p = s.placementFor({ batch: 8 });
    expectBatch(p, 8);
    expect(p.flopShapes).toEqual({ source: 'given', dims: { batch: 8 }, unknownNodes: 0 });
    expect(s.placement.totalFlops).toBe(0); // the session's own placement is unchanged
    expect(() => s.placementFor({ batch: -1 })).toThrow(/'batch' must be a non-negative integer/);
    expect(() => s.placementFor({ batch: 1.5 })).toThrow(/non-negative integer/);
    // A symbol the model does not have binds nothing: the nodes stay unknown.
    expect(s.placementFor({ other: 4 }).flopShapes.unknownNodes).toBe(4);
    await s.release();
  });
});
