/**
 * What the fuzzer found, kept as plain tests: each model failed with an addon TypeError (the addon
 * refused arguments the TS side should have checked) or ran for minutes; each must now end in a coded
 * SwitchyardError (or the right answer) at once.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, SwitchyardError, Tensor, encodeModel } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';

const f32 = (n: number, dims: number[]) => new Tensor('float32', Float32Array.from({ length: n }, (_, i) => (i % 5) - 2), dims);

async function runError(model: ReturnType<typeof buildModel>, feeds: Record<string, Tensor>): Promise<unknown> {
  // Through bytes: the session owns the model, so constants a kernel packed are freed (the case that failed).
  try {
    const s = await InferenceSession.create(encodeModel(model), { executionProviders: [new CpuExecutionProvider()] });
    try {
      await s.run(feeds);
    } finally {
      await s.release();
    }
  } catch (e) {
    return e;
  }
  return undefined;
}

function expectCoded(err: unknown, code: string, message: RegExp): void {
  expect(err).toBeInstanceOf(SwitchyardError);
  expect(err).toMatchObject({ code });
  expect((err as Error).message).toMatch(message);
  // No addon TypeError underneath.
  expect((err as Error & { cause?: unknown }).cause).not.toBeInstanceOf(TypeError);
}

describe.skipIf(new CpuExecutionProvider().nativeUnavailable !== undefined)('fuzz regressions (CPU EP, oneDNN)', () => {
  it('Conv: negative or absurd pads are a coded error (seed 20261204, cases 895 and 942)', async () => {
    for (const pads of [[0, 0, -2, 0], [2 ** 62, 0, 0, 0]]) {
      const model = buildModel({
        inputs: [['x', 'float32', [1, 2, 6, 6]]],
        outputs: [['y', 'float32']],
        nodes: [{ op: 'Conv', inputs: ['x', 'w'], outputs: ['y'], attributes: { pads } }],
        initializers: { w: f32(4 * 2 * 9, [4, 2, 3, 3]) },
      });
      expectCoded(await runError(model, { x: f32(72, [1, 2, 6, 6]) }), 'INVALID_ARGUMENT', /pads/);
    }
  });

  it('Conv: a bias that is not one value per output channel is a coded error (seed 1, case 38765)', async () => {
    const model = buildModel({
      inputs: [['x', 'float32', [1, 2, 6, 6]]],
      outputs: [['y', 'float32']],
      nodes: [{ op: 'Conv', inputs: ['x', 'w', 'b'], outputs: ['y'] }],
      initializers: { w: f32(4 * 2 * 9, [4, 2, 3, 3]), b: f32(24, [24]) },
    });
    expectCoded(await runError(model, { x: f32(72, [1, 2, 6, 6]) }), 'INVALID_ARGUMENT', /one value per output channel/);
  });

  it('Conv: a run contradicting the shape the model states, after W was packed and freed, is right or a coded error (seed 1, case 45844)', async () => {
    // t is declared [1, 2, 6, 6] (so W is packed for it at creation) but x, hence t, is 8×8 at run time.
    const model = buildModel({
      inputs: [['x', 'float32', [1, 2, 'H', 'W']]],
      outputs: [['y', 'float32']],
      nodes: [
        { op: 'Relu', inputs: ['x'], outputs: ['t'] },
        { op: 'Conv', inputs: ['t', 'w'], outputs: ['y'] },
      ],
      initializers: { w: f32(4 * 2 * 9, [4, 2, 3, 3]) },
    });
    model.graph.valueInfo.set('t', { name: 't', type: { kind: 'tensor', elemType: 'float32', shape: [1, 2, 6, 6] } });
    const x = f32(128, [1, 2, 8, 8]);
    const s = await InferenceSession.create(encodeModel(model), { executionProviders: [new CpuExecutionProvider()] });
    try {
      // Where W's packing can be undone (oneDNN's layouts) the 8×8 run packs from it and is right;
      // Winograd- or im2col-packed weights cannot serve another shape: a coded error.
      const result = await s.run({ x }).then((out) => out.y as Tensor, (error: unknown) => error);
      if (result instanceof Tensor) {
        model.graph.valueInfo.delete('t');
        const reference = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: 'disabled' });
        const expected = (await reference.run({ x })).y as Tensor;
        await reference.release();
        expect(result.dims).toEqual([1, 4, 6, 6]);
        expect(Array.from(result.data as Float32Array)).toEqual(Array.from(expected.data as Float32Array));
      } else {
        expectCoded(result, 'INVALID_ARGUMENT', /W was packed for the input shape the model states and released/);
      }
    } finally {
      await s.release();
    }
  });
});
