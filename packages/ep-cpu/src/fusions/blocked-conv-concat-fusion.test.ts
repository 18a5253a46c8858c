/**
 * Convs writing straight into their Concat (SqueezeNet's fire module) on hand-built models: each runs
 * at 'disabled' (plain ONNX ops) and at 'all' and must agree, at batch 1 (slices written in place)
 * and batch 3 (per-image copies); the optimized graph must hold BlockedConvConcat only where every
 * Concat input is a conv output nothing else reads. Only with the oneDNN addon.
 */
import { describe, expect, it } from 'vitest';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { compareLevels, convWeights, tensor } from './test-models.test-util.js';

const hasAddon = new CpuExecutionProvider().nativeUnavailable === undefined;
const CONV = 'com.switchyard::BlockedConv';
const CONV_CONCAT = 'com.switchyard::BlockedConvConcat';
const POOL = 'com.switchyard::BlockedPool';
const FROM = 'com.switchyard::ReorderFromBlocked';
const TOL = 1e-4;


interface FireOptions {
  batch?: number | string;
  /** Channels of the 3x3 expand (16 fills blocks of 8 and 16; 20 does not). */
  wide?: number;
  /** Also output the 1x1 expand's value (a second reader). */
  exposeExpand?: boolean;
}

/**
 * x [N,8,9,9] → squeeze 1x1 (8→8) + Relu = s → expand 1x1 (8→16) + Relu = e1, expand 3x3 (8→wide,
 * pad 1) + Relu = e3 → Concat(e1, e3) → MaxPool 3x3 stride 2 → conv 1x1 (→ 8) = y.
 */
function fire(o: FireOptions = {}) {
  const wide = o.wide ?? 16;
  return () =>
    buildModel({
      inputs: [['x', 'float32', [o.batch ?? 1, 8, 9, 9]]],
      outputs: o.exposeExpand ? [['y', 'float32'], ['e1', 'float32']] : [['y', 'float32']],
      initializers: {
        ws: convWeights([8, 8, 1, 1], 1), bs: tensor([8], 2, -0.1, 0.1),
        w1: convWeights([16, 8, 1, 1], 3), b1: tensor([16], 4, -0.1, 0.1),
        w3: convWeights([wide, 8, 3, 3], 5), b3: tensor([wide], 6, -0.1, 0.1),
        wy: convWeights([8, 16 + wide, 1, 1], 7),
      },
      nodes: [
        { op: 'Conv', inputs: ['x', 'ws', 'bs'], outputs: ['sc'] },
        { op: 'Relu', inputs: ['sc'], outputs: ['s'] },
        { op: 'Conv', inputs: ['s', 'w1', 'b1'], outputs: ['c1'] },
        { op: 'Relu', inputs: ['c1'], outputs: ['e1'] },
        { op: 'Conv', inputs: ['s', 'w3', 'b3'], outputs: ['c3'], attributes: { pads: [1, 1, 1, 1] } },
        { op: 'Relu', inputs: ['c3'], outputs: ['e3'] },
        { op: 'Concat', inputs: ['e1', 'e3'], outputs: ['cat'], attributes: { axis: 1 } },
        { op: 'MaxPool', inputs: ['cat'], outputs: ['p'], attributes: { kernel_shape: [3, 3], strides: [2, 2] } },
        { op: 'Conv', inputs: ['p', 'wy'], outputs: ['y'] },
      ],
    });
}

describe.skipIf(!hasAddon)('blocked conv → Concat fusion (oneDNN addon)', () => {
  it('runs both expand convs into their slices of the Concat (batch 1), at 1 and 2 threads', async () => {
    for (const threads of [1, 2]) {
      const r = await compareLevels(fire(), { x: tensor([1, 8, 9, 9], 11) }, { tol: TOL, intraOpNumThreads: threads });
      expect(r.fired).toContain('cpu:blocked-conv-concat-fusion');
      expect(r.ops).toEqual([CONV, CONV_CONCAT, POOL, CONV, FROM]);
    }
  });

  it('copies per image with a larger (symbolic) batch', async () => {
    const r = await compareLevels(fire({ batch: 'N' }), { x: tensor([3, 8, 9, 9], 12) }, { tol: TOL });
    expect(r.ops).toContain(CONV_CONCAT);
  });

  it('leaves the Concat when a conv output has another reader', async () => {
    const r = await compareLevels(fire({ exposeExpand: true }), { x: tensor([1, 8, 9, 9], 13) }, { tol: TOL });
    expect(r.ops).not.toContain(CONV_CONCAT);
    expect(r.ops).toContain('Concat');
  });

  it('leaves a Concat whose inputs do not fill whole channel blocks (20 channels)', async () => {
    const r = await compareLevels(fire({ wide: 20 }), { x: tensor([1, 8, 9, 9], 14) }, { tol: TOL });
    expect(r.ops).not.toContain(CONV_CONCAT);
  });
});
