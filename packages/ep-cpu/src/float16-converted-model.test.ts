/**
 * Issue #14: a model converted to float16 the common way (onnxconverter-common's float16 conversion
 * with keep_io_types) gets a Cast to float16 after each graph input and a Cast to float32 before each
 * graph output, appended at the END of the node list. Dead-code elimination walks the nodes from the
 * back, so it met the input Cast before the Conv reading it and dropped it; the Conv then failed with
 * "input 0 is missing". The loader now sorts the nodes, and these models run at every level.
 */
import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor, encodeModel, float32ToFloat16Bits, loadModel, type Model } from '@switchyard/core';
import { buildModel, compareTensors } from '@switchyard/core/testing';
import { CpuExecutionProvider } from './cpu-provider.js';
import { convWeights, tensor } from './fusions/test-models.test-util.js';

const nativeModes = new CpuExecutionProvider().nativeUnavailable === undefined ? [true, false] : [false];
const LEVELS = ['disabled', 'basic', 'extended', 'all'] as const;

function half(t: Tensor<'float32'>): Tensor<'float16'> {
  return new Tensor('float16', Uint16Array.from(t.data, float32ToFloat16Bits), [...t.dims]);
}

/** Conv → Relu → Conv → Add(skip) → Relu → Conv 1x1 in float16, float16 weights; float32 at the edges. */
function convertedModel(): Model {
  return buildModel({
    inputs: [['input', 'float32', [1, 3, 10, 10]]],
    outputs: [['output', 'float32'], ['features', 'float32']],
    initializers: {
      w_in: half(convWeights([8, 3, 3, 3], 1)),
      b_in: half(tensor([8], 2, -0.1, 0.1)),
      w_mid: half(convWeights([8, 8, 3, 3], 3)),
      w_out: half(convWeights([4, 8, 1, 1], 4)),
      b_out: half(tensor([4], 5, -0.1, 0.1)),
    },
    nodes: [
      { name: '/conv_in/Conv', op: 'Conv', inputs: ['input_fp16', 'w_in', 'b_in'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
      { name: '/act1/Relu', op: 'Relu', inputs: ['c1'], outputs: ['r1'] },
      { name: '/conv_mid/Conv', op: 'Conv', inputs: ['r1', 'w_mid'], outputs: ['c2'], attributes: { pads: [1, 1, 1, 1] } },
      { name: '/skip/Add', op: 'Add', inputs: ['c2', 'c1'], outputs: ['s'] },
      { name: '/act2/Relu', op: 'Relu', inputs: ['s'], outputs: ['features_fp16'] },
      { name: '/conv_out/Conv', op: 'Conv', inputs: ['features_fp16', 'w_out', 'b_out'], outputs: ['output_fp16'] },
      // What the converter appends: the input Cast, then the output Casts.
      { name: 'graph_input_cast_0', op: 'Cast', inputs: ['input'], outputs: ['input_fp16'], attributes: { to: 10 } },
      { name: 'graph_output_cast_0', op: 'Cast', inputs: ['output_fp16'], outputs: ['output'], attributes: { to: 1 } },
      { name: 'graph_output_cast_1', op: 'Cast', inputs: ['features_fp16'], outputs: ['features'], attributes: { to: 1 } },
    ],
  });
}

const feeds = { input: tensor([1, 3, 10, 10], 6) };

describe('a float16-converted model with its Casts at the end of the node list', () => {
  it('loads with the nodes sorted, each Cast in front of its first reader', async () => {
    const loaded = await loadModel(encodeModel(convertedModel()));
    expect(loaded.graph.nodes.map((n) => n.name)).toEqual([
      'graph_input_cast_0',
      '/conv_in/Conv',
      '/act1/Relu',
      '/conv_mid/Conv',
      '/skip/Add',
      '/act2/Relu',
      '/conv_out/Conv',
      'graph_output_cast_0',
      'graph_output_cast_1',
    ]);
  });

  it.each(nativeModes)('runs at every level with equal outputs, as onnxruntime computes them (oneDNN addon: %s)', async (useNative) => {
    const bytes = encodeModel(convertedModel());
    const outputs: Record<string, Tensor>[] = [];
    for (const level of LEVELS) {
      const session = await InferenceSession.create(bytes, { executionProviders: [new CpuExecutionProvider({ useNative })], graphOptimizationLevel: level });
      try {
        // Nothing the converter wrote is dead: no level may drop a node.
        expect(session.optimization.report.passes.find((p) => p.name === 'dead-code-elimination')?.nodes ?? [], level).toEqual([]);
        outputs.push((await session.run(feeds)) as Record<string, Tensor>);
      } finally {
        await session.release();
      }
    }
    // 'basic' changes no arithmetic: the same bits as 'disabled'. From 'extended' on the float16 body
    // computes in float32 (float16-in-float32), so the outputs move by float16 rounding: within a few
    // float16 ulps (2^-10 relative) of the values.
    for (let i = 1; i < outputs.length; i++) {
      const exact = LEVELS[i] === 'basic';
      const tol = exact ? { rtol: 0, atol: 0 } : { rtol: 4 * 2 ** -10, atol: 4 * 2 ** -10 };
      for (const name of ['output', 'features']) expect(compareTensors(outputs[i][name], outputs[0][name], tol), `${LEVELS[i]} ${name}`).toBeUndefined();
    }
    const reference = await ort.InferenceSession.create(bytes);
    const expected = await reference.run({ input: new ort.Tensor('float32', feeds.input.data as Float32Array, [...feeds.input.dims]) });
    for (const name of ['output', 'features']) {
      const e = new Tensor('float32', expected[name].data as Float32Array, [...expected[name].dims]);
      // Float16 rounding of intermediates: a few units in the last place of float16 (2^-10 relative).
      expect(compareTensors(outputs[0][name], e, { rtol: 1e-2, atol: 1e-2 }), name).toBeUndefined();
      expect(outputs[0][name].data.some((v) => v !== 0)).toBe(true);
    }
    await reference.release();
  });
});
