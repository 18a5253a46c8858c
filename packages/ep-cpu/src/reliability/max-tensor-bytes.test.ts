/**
 * `maxTensorBytes`: a shape taken from an input's values (or one the graph states) that would need an
 * absurd allocation fails the run with OUT_OF_MEMORY, before any memory is taken; the session stays usable.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, SwitchyardError, Tensor, type DataType } from '@switchyard/core';
import { buildModel, type NodeSpec } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';

const i64 = (values: number[]) => new Tensor('int64', BigInt64Array.from(values.map(BigInt)), [values.length]);
const f32 = (values: number[], dims = [values.length]) => new Tensor('float32', Float32Array.from(values), dims);

const MiB = 1024 * 1024;

async function sessionFor(node: NodeSpec, inputs: Array<[string, DataType, Array<number | string>]>, opset = 17) {
  const model = buildModel({ inputs, outputs: [['y', 'float32']], nodes: [node], opset });
  return InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()], maxTensorBytes: MiB });
}

async function expectRefused(p: Promise<unknown>): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SwitchyardError);
  expect(err).toMatchObject({ code: 'OUT_OF_MEMORY' });
  expect((err as Error).message).toMatch(/over maxTensorBytes \(1048576\)/);
}

describe('maxTensorBytes', () => {
  it('refuses ConstantOfShape, Expand, Tile, Range and Resize outputs over the cap, and serves those under it', async () => {
    const cases: Array<{ node: NodeSpec; inputs: Array<[string, DataType, Array<number | string>]>; huge: Record<string, Tensor>; fine: Record<string, Tensor>; size: number }> = [
      {
        node: { op: 'ConstantOfShape', inputs: ['s'], outputs: ['y'], attributes: { value: f32([1.5]) } },
        inputs: [['s', 'int64', [2]]],
        huge: { s: i64([1000, 1000]) },
        fine: { s: i64([3, 4]) },
        size: 12,
      },
      {
        node: { op: 'Expand', inputs: ['x', 's'], outputs: ['y'] },
        inputs: [['x', 'float32', [1]], ['s', 'int64', [3]]],
        huge: { x: f32([2]), s: i64([1024, 1024, 4]) },
        fine: { x: f32([2]), s: i64([2, 3, 1]) },
        size: 6,
      },
      {
        node: { op: 'Tile', inputs: ['x', 'r'], outputs: ['y'] },
        inputs: [['x', 'float32', [2]], ['r', 'int64', [1]]],
        huge: { x: f32([1, 2]), r: i64([1e6]) },
        fine: { x: f32([1, 2]), r: i64([3]) },
        size: 6,
      },
      {
        node: { op: 'Tile', inputs: ['x', 'r'], outputs: ['y'] },
        inputs: [['x', 'string', [2]], ['r', 'int64', [1]]],
        huge: { x: new Tensor('string', ['a', 'b'], [2]), r: i64([1e6]) },
        fine: { x: new Tensor('string', ['a', 'b'], [2]), r: i64([2]) },
        size: 4,
      },
      {
        node: { op: 'Range', inputs: ['a', 'b', 'd'], outputs: ['y'] },
        inputs: [['a', 'float32', []], ['b', 'float32', []], ['d', 'float32', []]],
        huge: { a: f32([0], []), b: f32([1e6], []), d: f32([1], []) },
        fine: { a: f32([0], []), b: f32([5], []), d: f32([1], []) },
        size: 5,
      },
      {
        node: { op: 'Resize', inputs: ['x', '', 's'], outputs: ['y'] },
        inputs: [['x', 'float32', [1, 1, 2, 2]], ['s', 'float32', [4]]],
        huge: { x: f32([1, 2, 3, 4], [1, 1, 2, 2]), s: f32([1, 1, 1e3, 1e3]) },
        fine: { x: f32([1, 2, 3, 4], [1, 1, 2, 2]), s: f32([1, 1, 2, 2]) },
        size: 16,
      },
    ];
    for (const c of cases) {
      const s = await sessionFor(c.node, c.inputs);
      await expectRefused(s.run(c.huge));
      // The refusal left the session as it was.
      const out = await s.run(c.fine);
      expect((out.y as Tensor).size, c.node.op).toBe(c.size);
      await s.release();
    }
  });

  it('a statically stated oversize value gets no arena slot and fails only when a run reaches it', async () => {
    // Shape inference knows y is 4 MiB of float32 (over the 1 MiB cap) from the constant shape.
    const model = buildModel({
      inputs: [['x', 'float32', [1]]],
      outputs: [['y', 'float32']],
      nodes: [{ op: 'Expand', inputs: ['x', 'shape'], outputs: ['y'] }],
      initializers: { shape: i64([1024, 1024]) },
    });
    const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()], maxTensorBytes: MiB, graphOptimizationLevel: 'disabled' });
    expect(s.optimization.memory?.arenaBytes ?? 0).toBeLessThan(MiB);
    await expectRefused(s.run({ x: f32([1]) }));
    await s.release();
    // The default cap (4 GiB) lets the same model run.
    const open = await InferenceSession.fromModel(
      buildModel({ inputs: [['x', 'float32', [1]]], outputs: [['y', 'float32']], nodes: [{ op: 'Expand', inputs: ['x', 'shape'], outputs: ['y'] }], initializers: { shape: i64([1024, 1024]) } }),
      { executionProviders: [new CpuExecutionProvider()] },
    );
    expect(((await open.run({ x: f32([7]) })).y as Tensor).size).toBe(1024 * 1024);
    await open.release();
  });

  it('refuses a malformed maxTensorBytes option', async () => {
    const model = buildModel({ inputs: [['x', 'float32', [1]]], outputs: [['y', 'float32']], nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }] });
    await expect(InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()], maxTensorBytes: -5 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
