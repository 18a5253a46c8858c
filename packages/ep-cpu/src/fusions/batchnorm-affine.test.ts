// A BatchNormalization no Conv absorbs (batchnorm-affine.ts) becomes Mul + Add that stay channel-blocked and fuse
// with the activation after them; results equal the unoptimized graph's. Without the addon the pass is not run.
import { describe, expect, it } from 'vitest';
import type { Tensor } from '@switchyard/core';
import { buildModel, type NodeSpec, type PlainAttribute } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { compareLevels, tensor } from './test-models.test-util.js';

const hasAddon = new CpuExecutionProvider().nativeUnavailable === undefined;
const C = 16;

function stats(prefix: string, c: number, seed: number): Record<string, Tensor> {
  return {
    [`${prefix}_s`]: tensor([c], seed, 0.5, 1.5),
    [`${prefix}_o`]: tensor([c], seed + 1),
    [`${prefix}_m`]: tensor([c], seed + 2),
    [`${prefix}_v`]: tensor([c], seed + 3, 0.25, 2),
  };
}
const bn = (prefix: string, input: string, output: string, attributes: Record<string, PlainAttribute> = {}): NodeSpec => ({
  op: 'BatchNormalization',
  inputs: [input, `${prefix}_s`, `${prefix}_o`, `${prefix}_m`, `${prefix}_v`],
  outputs: [output],
  attributes: { epsilon: { float: 1e-3 }, ...attributes },
});

/** DenseNet's pre-activation layer: Conv → Concat with its input → BN → Relu → Conv. */
const denseLayer = () =>
  buildModel({
    inputs: [['x', 'float32', [1, C, 9, 9]]],
    outputs: [['y', 'float32']],
    initializers: { w0: tensor([C, C, 3, 3], 1, -0.3, 0.3), w1: tensor([C, 2 * C, 1, 1], 2, -0.3, 0.3), ...stats('bn', 2 * C, 10) },
    nodes: [
      { op: 'Conv', inputs: ['x', 'w0'], outputs: ['c0'], attributes: { pads: [1, 1, 1, 1] } },
      { op: 'Concat', inputs: ['c0', 'x'], outputs: ['cat'], attributes: { axis: 1 } },
      bn('bn', 'cat', 'n'),
      { op: 'Relu', inputs: ['n'], outputs: ['r'] },
      { op: 'Conv', inputs: ['r', 'w1'], outputs: ['y'] },
    ],
  });

describe.runIf(hasAddon)('BatchNormalization as Mul + Add (oneDNN addon)', () => {
  it("DenseNet's BN → Relu between blocked convs: one fused elementwise pass, still blocked", async () => {
    const r = await compareLevels(denseLayer, { x: tensor([1, C, 9, 9], 30) }, {});
    expect(r.ops).not.toContain('BatchNormalization');
    expect(r.ops).toContain('com.switchyard::FusedElementwise');
    expect(r.ops.filter((op) => op === 'com.switchyard::ReorderFromBlocked')).toHaveLength(1); // only at the output
  });

  it('a BatchNorm1d head over [N, C] and over [N, C, L]', async () => {
    for (const dims of [[3, C], [3, C, 5]]) {
      const build = () =>
        buildModel({
          inputs: [['x', 'float32', dims]],
          outputs: [['y', 'float32']],
          initializers: stats('bn', C, 20),
          nodes: [bn('bn', 'x', 'n'), { op: 'Sigmoid', inputs: ['n'], outputs: ['y'] }],
        });
      const r = await compareLevels(build, { x: tensor(dims, 31, -3, 3) }, {});
      expect(r.ops, `${dims}`).toEqual(['com.switchyard::FusedElementwise']);
    }
  });

  it('keeps a BatchNormalization whose statistics are inputs', async () => {
    const build = () =>
      buildModel({
        inputs: [['x', 'float32', [2, C, 4, 4]], ['mean', 'float32', [C]]],
        outputs: [['y', 'float32']],
        initializers: { s: tensor([C], 1, 0.5, 1.5), o: tensor([C], 2), v: tensor([C], 3, 0.25, 2) },
        nodes: [{ op: 'BatchNormalization', inputs: ['x', 's', 'o', 'mean', 'v'], outputs: ['y'] }],
      });
    const r = await compareLevels(build, { x: tensor([2, C, 4, 4], 32), mean: tensor([C], 33) }, {});
    expect(r.ops).toEqual(['BatchNormalization']);
  });
});
