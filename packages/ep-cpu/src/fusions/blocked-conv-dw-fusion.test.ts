/**
 * The 1x1 + depthwise fusion on hand-built MobileNet-style blocks: each model runs at 'disabled'
 * (plain ONNX ops, no fusions) and at 'all' and must agree; the optimized graph must hold
 * BlockedConvDw exactly where oneDNN's depthwise post-op expresses the pair. Only with the addon.
 */
import { describe, expect, it } from 'vitest';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { compareLevels, convWeights, scalar, tensor } from './test-models.test-util.js';

const hasAddon = new CpuExecutionProvider().nativeUnavailable === undefined;
const CONV = 'com.switchyard::BlockedConv';
const CONV_DW = 'com.switchyard::BlockedConvDw';
const FROM = 'com.switchyard::ReorderFromBlocked';
const TOL = 1e-4;


interface BlockOptions {
  stride?: number;
  dwPads?: number[];
  dwKernel?: number;
  /** Also output the expanded value (then it has two readers and must not be fused away). */
  exposeMid?: boolean;
  /** The 1x1 conv's bias (absent: none). */
  bias?: boolean;
}

/**
 * x [1,16,H,W] → stem conv 3x3 (16→16) + Relu → expand 1x1 (16→40) + Clip(0, 6) = e
 * → depthwise 3x3 (40, stride s) + Clip(0, 6) → project 1x1 (40→24) = y.
 */
function block(h: number, w: number, o: BlockOptions = {}) {
  const stride = o.stride ?? 1;
  const k = o.dwKernel ?? 3;
  return () =>
    buildModel({
      inputs: [['x', 'float32', [1, 16, h, w]]],
      outputs: o.exposeMid ? [['y', 'float32'], ['e', 'float32']] : [['y', 'float32']],
      initializers: {
        ws: convWeights([16, 16, 3, 3], 1),
        we: convWeights([40, 16, 1, 1], 2), ...(o.bias === false ? {} : { be: tensor([40], 3, -0.1, 0.1) }),
        wd: convWeights([40, 1, k, k], 4), bd: tensor([40], 5, -0.1, 0.1),
        wp: convWeights([24, 40, 1, 1], 6),
        lo: scalar(0), hi: scalar(6),
      },
      nodes: [
        { op: 'Conv', inputs: ['x', 'ws'], outputs: ['s'], attributes: { pads: [1, 1, 1, 1] } },
        { op: 'Relu', inputs: ['s'], outputs: ['r'] },
        { op: 'Conv', inputs: o.bias === false ? ['r', 'we'] : ['r', 'we', 'be'], outputs: ['ec'] },
        { op: 'Clip', inputs: ['ec', 'lo', 'hi'], outputs: ['e'] },
        { op: 'Conv', inputs: ['e', 'wd', 'bd'], outputs: ['dc'], attributes: { group: 40, strides: [stride, stride], pads: o.dwPads ?? [1, 1, 1, 1] } },
        { op: 'Clip', inputs: ['dc', 'lo', 'hi'], outputs: ['d'] },
        { op: 'Conv', inputs: ['d', 'wp'], outputs: ['y'] },
      ],
    });
}

const input = (h: number, w: number) => ({ x: tensor([1, 16, h, w], 11) });

describe.skipIf(!hasAddon)('blocked 1x1 + depthwise fusion (oneDNN addon)', () => {
  it('fuses the expand 1x1 and the depthwise conv of a stride-1 block', async () => {
    const r = await compareLevels(block(12, 12), input(12, 12), { tol: TOL });
    expect(r.fired).toContain('cpu:blocked-conv-dw-fusion');
    expect(r.ops).toEqual([CONV, CONV_DW, CONV, FROM]);
  });

  it('fuses a stride-2 block on odd sizes (output ceil(H / 2)), with no 1x1 bias, at 1 and 2 threads', async () => {
    for (const threads of [1, 2]) {
      const r = await compareLevels(block(11, 9, { stride: 2, bias: false }), input(11, 9), { tol: TOL, intraOpNumThreads: threads });
      expect(r.ops).toEqual([CONV, CONV_DW, CONV, FROM]);
    }
  });

  it('leaves the pair apart when the expanded value is also read elsewhere (a graph output here)', async () => {
    const r = await compareLevels(block(8, 8, { exposeMid: true }), input(8, 8), { tol: TOL });
    expect(r.fired).not.toContain('cpu:blocked-conv-dw-fusion');
    expect(r.ops.filter((op) => op === CONV)).toHaveLength(4);
  });

  it('leaves depthwise convs the post-op cannot express: no padding, or a 5x5 kernel', async () => {
    const unpadded = await compareLevels(block(8, 8, { dwPads: [0, 0, 0, 0] }), input(8, 8), { tol: TOL });
    expect(unpadded.ops).not.toContain(CONV_DW);
    const wide = await compareLevels(block(8, 8, { dwKernel: 5, dwPads: [2, 2, 2, 2] }), input(8, 8), { tol: TOL });
    expect(wide.ops).not.toContain(CONV_DW);
    expect(wide.ops.filter((op) => op === CONV)).toHaveLength(4);
  });
});
