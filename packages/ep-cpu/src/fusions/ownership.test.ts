/** CPU fusions leave alone the nodes an EP earlier in the priority list takes. */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, registerExecutionProvider } from '@switchyard/core';
import { buildModel, hostTestProvider } from '@switchyard/core/testing';
import { executionProviderFactory } from '../index.js';

registerExecutionProvider(executionProviderFactory);

const convRelu = () =>
  buildModel({
    inputs: [['x', 'float32', [1, 2, 5, 5]]],
    outputs: [['y', 'float32', [1, 3, 5, 5]]],
    nodes: [
      { op: 'Conv', inputs: ['x', 'w'], outputs: ['c'], name: 'conv', attributes: { pads: [1, 1, 1, 1] } },
      { op: 'Relu', inputs: ['c'], outputs: ['y'], name: 'relu' },
    ],
    initializers: { w: new Tensor('float32', Float32Array.from({ length: 3 * 2 * 9 }, (_, i) => ((i % 7) - 3) / 4), [3, 2, 3, 3]) },
  });

describe('fusion ownership', () => {
  it('fuses Conv+Relu when the CPU EP takes both', async () => {
    const s = await InferenceSession.fromModel(convRelu(), { executionProviders: ['cpu'] });
    expect(s.placement.nodes.map((n) => n.opType)).toEqual(['FusedConv']);
  });

  it('does not fuse a Relu an earlier EP takes, and both placements give one result', async () => {
    const first = hostTestProvider('first', ['Relu']);
    const s = await InferenceSession.fromModel(convRelu(), { executionProviders: [first, 'cpu'] });
    expect(s.placement.nodes.map((n) => `${n.opType}:${n.ep}`)).toEqual(['Conv:cpu', 'Relu:first']);
    const cpuOnly = await InferenceSession.fromModel(convRelu(), { executionProviders: ['cpu'] });
    const x = new Tensor('float32', Float32Array.from({ length: 50 }, (_, i) => Math.sin(i)), [1, 2, 5, 5]);
    const [a, b] = [(await s.run({ x })).y as Tensor, (await cpuOnly.run({ x })).y as Tensor];
    (a.data as Float32Array).forEach((v, i) => expect(v).toBeCloseTo((b.data as Float32Array)[i], 5));
  });
});
