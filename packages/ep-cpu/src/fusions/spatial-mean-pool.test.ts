// ReduceMean over every spatial axis of a conv's output → GlobalAveragePool [+ Flatten] (spatial-mean-pool.ts):
// results equal the unoptimized graph's, the pool stays channel-blocked, and every other reduction stays a ReduceMean.
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel, type NodeSpec } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { compareLevels, convWeights, tensor } from './test-models.test-util.js';

const nativeModes = new CpuExecutionProvider().nativeUnavailable === undefined ? [true, false] : [false];
const C = 20;
const int64 = (values: number[]) => new Tensor('int64', BigInt64Array.from(values.map(BigInt)), [values.length]);

interface Case {
  opset?: number;
  axes: number[];
  keepdims?: number;
  dims?: number[];
  /** What produces the reduced value: a conv (default), a conv then Relu and a residual Add, or the graph input. */
  from?: 'conv' | 'conv-relu-add' | 'input';
}

function reduceModel({ opset = 17, axes, keepdims, dims = [2, C, 5, 7], from = 'conv' }: Case) {
  return () => {
    const attributes: Record<string, number | number[]> = {};
    if (keepdims !== undefined) attributes.keepdims = keepdims;
    const spatial = dims.length - 2;
    const inputs = [from === 'input' ? 'x' : from === 'conv' ? 'c' : 's'];
    if (opset >= 18) inputs.push('axes');
    else attributes.axes = axes;
    const nodes: NodeSpec[] = [];
    if (from !== 'input') nodes.push({ op: 'Conv', inputs: ['x', 'w', 'b'], outputs: ['c'], attributes: { pads: new Array(2 * spatial).fill(1) } });
    if (from === 'conv-relu-add') nodes.push({ op: 'Relu', inputs: ['c'], outputs: ['r'] }, { op: 'Add', inputs: ['x', 'r'], outputs: ['s'] });
    nodes.push({ op: 'ReduceMean', inputs, outputs: ['y'], attributes });
    return buildModel({
      opset,
      inputs: [['x', 'float32', dims]],
      outputs: [['y', 'float32']],
      initializers: { axes: int64(axes), w: convWeights([C, dims[1], ...new Array<number>(spatial).fill(3)], 3), b: tensor([C], 4) },
      nodes,
    });
  };
}

describe.each(nativeModes)('spatial mean → GlobalAveragePool (native %s)', (useNative) => {
  const pooled: Array<[string, Case]> = [
    ['keepdims (opset 17 attribute)', { axes: [2, 3] }],
    ['keepdims = 0: a Flatten leaves [N, C]', { axes: [3, 2], keepdims: 0 }],
    ['negative axes', { axes: [-1, -2], keepdims: 0 }],
    ['axes as an input (opset 18)', { opset: 18, axes: [2, 3] }],
    ['a 1-D signal [N, C, L]', { axes: [2], keepdims: 0, dims: [2, C, 9] }],
    ['a 3-D volume', { axes: [2, 3, 4], dims: [1, C, 3, 4, 5] }],
    ['after a conv, its activation and a residual Add', { axes: [2, 3], keepdims: 0, from: 'conv-relu-add' }],
  ];
  for (const [label, c] of pooled) {
    it(`pools ${label}`, async () => {
      const dims = c.dims ?? [2, C, 5, 7];
      const r = await compareLevels(reduceModel(c), { x: tensor(dims, 7, -2, 2) }, { useNative });
      expect(r.ops).not.toContain('ReduceMean');
      expect(r.fired).toContain('cpu:spatial-mean-pool');
    });
  }

  it('keeps the pool channel-blocked after a conv', async () => {
    if (!useNative) return;
    const r = await compareLevels(reduceModel({ axes: [2, 3], keepdims: 0 }), { x: tensor([2, C, 5, 7], 8) }, { useNative });
    expect(r.ops).toContain('com.switchyard::BlockedPool');
  });

  const kept: Array<[string, Case, number[]?]> = [
    ['also reduces the channels', { axes: [1, 2, 3] }],
    ['reduces only some spatial axes', { axes: [2] }],
    ['reduces a repeated axis', { axes: [2, 3, 3] }],
    ['reduces a rank-2 tensor', { axes: [1], dims: [4, C], from: 'input' }],
    ['reads a value no conv produced (a transformer row [B, T, D], pooled plain)', { axes: [2], dims: [2, 6, C], from: 'input' }],
    ['reads an image no conv produced', { axes: [2, 3], from: 'input' }],
  ];
  for (const [label, c] of kept) {
    it(`keeps a ReduceMean that ${label}`, async () => {
      const dims = c.dims ?? [2, C, 5, 7];
      const build = reduceModel(c);
      if (label.includes('repeated')) {
        // ONNX leaves repeated axes undefined: whatever the session makes of them, the pass leaves them alone.
        const session = await InferenceSession.fromModel(build(), { executionProviders: [new CpuExecutionProvider({ useNative })] }).catch(() => undefined);
        if (session) {
          expect(session.model.graph.nodes.map((n) => n.opType)).toContain('ReduceMean');
          await session.release();
        }
        return;
      }
      const r = await compareLevels(build, { x: tensor(dims, 9) }, { useNative });
      expect(r.ops).toContain('ReduceMean');
    });
  }

  it('keeps a ReduceMean whose axes are computed at run time (opset 18)', async () => {
    const build = () =>
      buildModel({
        opset: 18,
        inputs: [['x', 'float32', [2, C, 5, 7]], ['axes', 'int64', [2]]],
        outputs: [['y', 'float32']],
        nodes: [{ op: 'ReduceMean', inputs: ['x', 'axes'], outputs: ['y'] }],
      });
    const r = await compareLevels(build, { x: tensor([2, C, 5, 7], 2), axes: int64([2, 3]) }, { useNative });
    expect(r.ops).toContain('ReduceMean');
  });

  it('pools a symbolic batch, and keeps a ReduceMean over symbolic spatial dims (which may be empty)', async () => {
    const batch = await compareLevels(reduceModel({ axes: [2, 3], keepdims: 0, dims: ['n', C, 3, 4] as unknown as number[] }), { x: tensor([3, C, 3, 4], 5) }, { useNative });
    expect(batch.ops).not.toContain('ReduceMean');
    const build = reduceModel({ axes: [2, 3], keepdims: 0, dims: [1, C, 'h', 'w'] as unknown as number[] });
    const r = await compareLevels(build, { x: tensor([1, C, 3, 4], 6) }, { useNative });
    expect(r.ops).toContain('ReduceMean');
  });
});
