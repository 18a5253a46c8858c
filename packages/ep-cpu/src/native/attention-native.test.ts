/**
 * Attention with its matmuls on oneDNN must compute what the TS kernel computes, across the forms
 * that change the matmul shapes or the rows between them: 3-D packed GQA with a KV cache, a broadcast
 * mask and softcap (with every qk_matmul_output mode), and 4-D MQA with is_causal and a sliding window.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel, type PlainAttribute } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { tensor } from '../fusions/test-models.test-util.js';

const hasAddon = new CpuExecutionProvider().nativeUnavailable === undefined;

interface Case {
  name: string;
  opset: number;
  inputs: Record<string, Tensor>;
  /** Attention's input names in order ('' for an absent one). */
  order: string[];
  outputs: string[];
  attributes: Record<string, PlainAttribute>;
}

const packedGqa = (mode: number): Case => ({
  name: `3-D GQA with past, a [S, T] mask and softcap, qk_matmul_output mode ${mode}`,
  opset: 23,
  inputs: {
    q: tensor([2, 3, 4 * 8], 1),
    k: tensor([2, 3, 2 * 8], 2),
    v: tensor([2, 3, 2 * 5], 3),
    mask: tensor([3, 7], 4, -2, 0),
    past_k: tensor([2, 2, 4, 8], 5),
    past_v: tensor([2, 2, 4, 5], 6),
  },
  order: ['q', 'k', 'v', 'mask', 'past_k', 'past_v'],
  outputs: ['y', 'present_k', 'present_v', 'qk'],
  attributes: { q_num_heads: 4, kv_num_heads: 2, softcap: { float: 1.5 }, qk_matmul_output_mode: mode },
});

const cases: Case[] = [
  ...[0, 1, 2, 3].map(packedGqa),
  {
    name: '4-D MQA, causal with a left window of 2',
    opset: 25,
    inputs: { q: tensor([1, 3, 6, 4], 7), k: tensor([1, 1, 6, 4], 8), v: tensor([1, 1, 6, 4], 9) },
    order: ['q', 'k', 'v'],
    outputs: ['y'],
    attributes: { is_causal: 1, left_window_size: 2, scale: { float: 0.3 } },
  },
];

async function run(c: Case, useNative: boolean) {
  const model = buildModel({
    opset: c.opset,
    inputs: Object.entries(c.inputs).map(([name, t]) => [name, 'float32', [...t.dims]]),
    outputs: c.outputs.map((name) => [name, 'float32']),
    nodes: [{ op: 'Attention', inputs: c.order, outputs: c.outputs, attributes: c.attributes }],
  });
  const session = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider({ useNative })] });
  try {
    return { outputs: await session.run(c.inputs), implementation: session.placement.nodes[0].implementation };
  } finally {
    await session.release();
  }
}

describe.runIf(hasAddon)('Attention on oneDNN matmuls', () => {
  it.each(cases)('$name agrees with the TS kernel', async (c) => {
    const [ts, native] = [await run(c, false), await run(c, true)];
    expect(native.implementation).toBe('onednn');
    for (const name of c.outputs) {
      const want = ts.outputs[name] as Tensor;
      const got = native.outputs[name] as Tensor;
      expect(got.dims).toEqual(want.dims);
      const w = want.data as Float32Array;
      const g = got.data as Float32Array;
      for (let i = 0; i < w.length; i++) {
        if (w[i] === -Infinity) expect(g[i], `${name}[${i}]`).toBe(-Infinity);
        else expect(Math.abs(g[i] - w[i]), `${name}[${i}]`).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(w[i])));
      }
    }
  });
});
