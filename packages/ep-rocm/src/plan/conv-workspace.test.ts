import { describe, expect, it } from 'vitest';
import { Tensor, inferShapes } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { concreteGraph } from '../rocm-partition.js';
import { MAX_IM2COL_BYTES, im2colBytes } from './conv-workspace.js';
import { buildPlanDescription } from './plan-description.js';

const weights = (k: number, c: number, kh: number, kw: number) => new Tensor('float32', new Float32Array(k * c * kh * kw).fill(0.01), [k, c, kh, kw]);

// x[n,4,10,10] → 3x3 pad 1 → relu → 1x1 (direct) → 1x1 stride 2 → grouped 3x3; plus a 5x5 stride-2 conv of x.
function describe4(batch: number, fp16 = false) {
  const model = buildModel({
    inputs: [['x', 'float32', ['n', 4, 10, 10]]],
    outputs: [['g', 'float32'], ['big', 'float32']],
    initializers: { w3: weights(8, 4, 3, 3), w1: weights(8, 8, 1, 1), ws: weights(6, 8, 1, 1), wg: weights(6, 3, 3, 3), w5: weights(3, 4, 5, 5) },
    nodes: [
      { op: 'Conv', inputs: ['x', 'w3'], outputs: ['c3'], name: 'c3', attributes: { pads: [1, 1, 1, 1] } },
      { op: 'Relu', inputs: ['c3'], outputs: ['r'], name: 'relu' },
      { op: 'Conv', inputs: ['r', 'w1'], outputs: ['c1'], name: 'c1' },
      { op: 'Conv', inputs: ['c1', 'ws'], outputs: ['s2'], name: 's2', attributes: { strides: [2, 2] } },
      { op: 'Conv', inputs: ['s2', 'wg'], outputs: ['g'], name: 'grouped', attributes: { pads: [1, 1, 1, 1], group: 2 } },
      { op: 'Conv', inputs: ['x', 'w5'], outputs: ['big'], name: 'big', attributes: { pads: [2, 2, 2, 2], strides: [2, 2] } },
    ],
    opset: 17,
  });
  inferShapes(model.graph);
  const p = { name: 'p', graph: model.graph, nodes: model.graph.nodes, inputNames: ['x'], outputNames: ['g', 'big'] };
  const g = concreteGraph(p, [Tensor.zeros('float32', [batch, 4, 10, 10])]);
  return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16 });
}

const overlaps = (a: { offset: number; bytes: number }, b: { offset: number; bytes: number }) => a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;

describe('Conv step workspaces (im2col)', () => {
  it('gives each NCHW group-1 conv that needs im2col a workspace of [n, c*kh*kw, oh*ow] elements', () => {
    for (const [batch, fp16, size] of [[1, false, 4], [3, false, 4], [2, true, 2]] as const) {
      const d = describe4(batch, fp16);
      const ws = Object.fromEntries(d.steps.filter((s) => s.op === 'Conv').map((s) => [s.node.split(' + ')[0], s.workspace?.bytes ?? 0]));
      expect(ws).toEqual({
        c3: batch * 4 * 9 * 100 * size,
        c1: 0, // 1x1 stride 1 unpadded: x is the GEMM operand as it is
        s2: batch * 8 * 1 * 25 * size, // 1x1 stride 2: im2col subsamples
        grouped: 0, // the GEMM form is for group 1
        big: batch * 4 * 25 * 25 * size,
      });
    }
  });

  it('places workspaces inside the arena, apart from every buffer live at their step', () => {
    const d = describe4(2);
    const first = new Map<number, number>();
    const last = new Map<number, number>();
    d.steps.forEach((t, i) => {
      for (const id of [...t.inputs, ...t.outputs]) if (id >= 0) {
        if (!first.has(id)) first.set(id, i);
        last.set(id, i);
      }
    });
    const fixed = new Set([...d.constants.map((c) => c.buffer), ...d.inputs, ...d.outputs]);
    let checked = 0;
    d.steps.forEach((s, at) => {
      if (!s.workspace) return;
      expect(s.workspace.offset % 256).toBe(0);
      expect(s.workspace.offset + s.workspace.bytes).toBeLessThanOrEqual(d.arenaBytes);
      d.buffers.forEach((b, id) => {
        const live = fixed.has(id) || (first.get(id)! <= at && at <= last.get(id)!);
        if (live) expect(overlaps(s.workspace!, b), `step ${at}'s workspace vs ${b.name}`).toBe(false);
      });
      checked++;
    });
    expect(checked).toBe(3);
  });

  it('gives none past MAX_IM2COL_BYTES, and none to steps that are not Conv', () => {
    const buffers = [{ dtype: 1, dims: [64, 64, 56, 56] }, { dtype: 1, dims: [64, 64, 3, 3] }, { dtype: 1, dims: [64, 64, 56, 56] }];
    const conv = { op: 'Conv', attrs: [1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 0], inputs: [0, 1], outputs: [2] };
    expect(64 * 64 * 9 * 56 * 56 * 4).toBeGreaterThan(MAX_IM2COL_BYTES);
    expect(im2colBytes(conv, buffers)).toBe(0);
    expect(im2colBytes({ ...conv, op: 'ConvNHWC' }, buffers)).toBe(0);
    const small = [{ dtype: 1, dims: [1, 64, 56, 56] }, buffers[1], { dtype: 1, dims: [1, 64, 56, 56] }];
    expect(im2colBytes(conv, small)).toBe(64 * 9 * 56 * 56 * 4);
    // Uneven pads: the GEMM form is the only one the GPU has, so the workspace comes whatever its size.
    const uneven = { ...conv, attrs: [1, 0, 0, 2, 2, 1, 1, 1, 1, 2, 0] };
    expect(im2colBytes(uneven, buffers)).toBe(64 * 64 * 9 * 56 * 56 * 4);
  });
});
