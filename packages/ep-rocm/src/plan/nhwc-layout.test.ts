import { describe, expect, it } from 'vitest';
import { Tensor, float16BitsToFloat32, inferShapes, type FusedPartition } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import { concreteGraph } from '../rocm-partition.js';
import { buildPlanDescription } from './plan-description.js';

// x[batch,3,6,6] → conv(w1) + relu → conv(w2) → maxpool → conv(w3) → GlobalAveragePool → flatten → gemm;
// a Softmax reads the first conv's output too (a step that needs NCHW).
const weights = (k: number, c: number, seed: number) =>
  new Tensor('float32', Float32Array.from({ length: k * c * 9 }, (_, i) => ((i * 7 + seed) % 13) - 6), [k, c, 3, 3]);
const w1 = weights(4, 3, 1);
const w2 = weights(4, 4, 2);
const w3 = weights(5, 4, 3);
const fc = new Tensor('float32', new Float32Array(5 * 2).fill(0.5), [2, 5]);
const spec: ModelSpec = {
  inputs: [['x', 'float32', ['batch', 3, 6, 6]]],
  outputs: [['y', 'float32'], ['s', 'float32']],
  initializers: { w1, w2, w3, fc },
  nodes: [
    { op: 'Conv', inputs: ['x', 'w1'], outputs: ['c1'], name: 'conv1', attributes: { pads: [1, 1, 1, 1] } },
    { op: 'Relu', inputs: ['c1'], outputs: ['r1'], name: 'relu1' },
    { op: 'Softmax', inputs: ['r1'], outputs: ['s'], name: 'softmax', attributes: { axis: 1 } },
    { op: 'Conv', inputs: ['r1', 'w2'], outputs: ['c2'], name: 'conv2', attributes: { pads: [1, 1, 1, 1] } },
    { op: 'MaxPool', inputs: ['c2'], outputs: ['p'], name: 'pool', attributes: { kernel_shape: [2, 2], strides: [2, 2] } },
    { op: 'Conv', inputs: ['p', 'w3'], outputs: ['c3'], name: 'conv3', attributes: { pads: [1, 1, 1, 1] } },
    { op: 'GlobalAveragePool', inputs: ['c3'], outputs: ['g'], name: 'gap' },
    { op: 'Flatten', inputs: ['g'], outputs: ['f'], name: 'flatten' },
    { op: 'Gemm', inputs: ['f', 'fc'], outputs: ['y'], name: 'gemm', attributes: { transB: 1 } },
  ],
};

function describePlan(fp16: boolean, nhwcConv: 'always' | 'auto' | false, batch = 1) {
  const graph = buildModel(spec).graph;
  inferShapes(graph);
  const p: FusedPartition = { name: 'p', graph, nodes: graph.nodes, inputNames: ['x'], outputNames: ['y', 's'] };
  const g = concreteGraph(p, [Tensor.zeros('float32', [batch, 3, 6, 6])]);
  return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16, nhwcConv });
}

describe('float16 plans with channels-last convolutions', () => {
  it('turns Conv/Pool into their NHWC steps and transposes only where another layout is read', () => {
    const d = describePlan(true, 'always');
    const name = (id: number) => d.buffers[id].name;
    expect(d.steps.map((s) => s.op)).toEqual([
      'Cast', // x → float16
      'Transpose', // x:fp16 → NHWC for conv1
      'ConvNHWC', // conv1 + relu folded
      'Transpose', // r1 back to NCHW for the softmax
      'Softmax',
      'ConvNHWC',
      'PoolNHWC',
      'ConvNHWC',
      'PoolNHWC', // the global average pool: [1, 1, 1, 5], the same bytes as NCHW
      // (flatten: an alias of the pool's output, copy-alias.ts)
      'Gemm',
      'Cast',
      'Cast',
    ]);
    const byOp = (op: string) => d.steps.filter((s) => s.op === op);
    expect(byOp('Transpose').map((s) => s.attrs)).toEqual([
      [0, 2, 3, 1],
      [0, 3, 1, 2],
    ]);
    // Buffers written by NHWC steps carry their memory order: [n, h, w, c].
    const [conv1, conv2, conv3] = byOp('ConvNHWC');
    expect(d.buffers[conv1.outputs[0]].dims).toEqual([1, 6, 6, 4]);
    expect(d.buffers[byOp('PoolNHWC')[0].outputs[0]].dims).toEqual([1, 3, 3, 4]);
    expect(d.buffers[conv3.outputs[0]].dims).toEqual([1, 3, 3, 5]);
    expect(conv2.inputs[0]).toBe(conv1.outputs[0]);
    // The softmax reads the NCHW twin, with NCHW dims.
    const softmaxIn = byOp('Softmax')[0].inputs[0];
    expect(d.buffers[softmaxIn].dims).toEqual([1, 4, 6, 6]);
    expect(name(softmaxIn)).toContain(':nchw');
    // The Gemm reads the flattened value at the pool output's memory: [1, 5] over [1, 1, 1, 5].
    const pooled = d.buffers[byOp('PoolNHWC')[1].outputs[0]];
    const flat = d.buffers[byOp('Gemm')[0].inputs[0]];
    expect(flat.dims).toEqual([1, 5]);
    expect([flat.offset, flat.bytes]).toEqual([pooled.offset, pooled.bytes]);
  });

  it('uploads each filter once, reordered to [k, kh, kw, c]', () => {
    const d = describePlan(true, 'always');
    const conv2 = d.steps.filter((s) => s.op === 'ConvNHWC')[1];
    const wId = conv2.inputs[1];
    expect(d.buffers[wId].dims).toEqual([4, 3, 3, 4]);
    const bits = d.constants.find((c) => c.buffer === wId)!.data as Uint16Array;
    const src = w2.data as Float32Array;
    for (const [k, c, y, x] of [[0, 0, 0, 0], [1, 2, 0, 1], [3, 3, 2, 2], [2, 1, 1, 0]]) {
      expect(float16BitsToFloat32(bits[((k * 3 + y) * 3 + x) * 4 + c])).toBe(src[((k * 4 + c) * 3 + y) * 3 + x]);
    }
  });

  it("'auto' converts only large batches of ungrouped convolutions", () => {
    const hasNhwc = (d: ReturnType<typeof describePlan>) => d.steps.some((s) => s.op === 'ConvNHWC');
    expect(hasNhwc(describePlan(true, 'auto', 1))).toBe(false);
    expect(hasNhwc(describePlan(true, 'auto', 8))).toBe(false);
    expect(hasNhwc(describePlan(true, 'auto', 32))).toBe(true);
    expect(hasNhwc(describePlan(true, 'always', 1))).toBe(true);
  });

  it('keeps NCHW without float16 or when not asked for, and the arena still holds every buffer apart by lifetime', () => {
    expect(describePlan(false, 'always').steps.some((s) => s.op.endsWith('NHWC'))).toBe(false);
    expect(describePlan(true, false).steps.some((s) => s.op.endsWith('NHWC') || s.op === 'Transpose')).toBe(false);
    const d = describePlan(true, 'always');
    for (const b of d.buffers) expect(b.offset + b.bytes).toBeLessThanOrEqual(d.arenaBytes);
    // A Transpose's input and output are live at once, so they must not overlap.
    for (const s of d.steps.filter((st) => st.op === 'Transpose')) {
      const [a, b] = [d.buffers[s.inputs[0]], d.buffers[s.outputs[0]]];
      expect(a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes).toBe(false);
    }
  });
});
