// Pad + Conv / AveragePool → the op's own padding (pad-fusion.ts): results equal the unoptimized graph's, and
// every case that must keep its Pad (other values, modes, axes, readers, pool semantics) keeps it.
import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { buildModel, type NodeSpec, type PlainAttribute } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { compareLevels, tensor } from './test-models.test-util.js';

const nativeModes = new CpuExecutionProvider().nativeUnavailable === undefined ? [true, false] : [false];
const C = 8;
const pads = (values: number[]) => new Tensor('int64', BigInt64Array.from(values.map(BigInt)), [values.length]);

/** x [2, C, 9, 11] → Pad (pads, extra Pad inputs) → `op` → y, plus extra nodes reading the padded value. */
function padThen(op: NodeSpec, padValues: number[], opts: { padAttrs?: Record<string, PlainAttribute>; padInputs?: string[]; extra?: NodeSpec[]; rank?: number } = {}) {
  const rank = opts.rank ?? 4;
  const xDims = rank === 4 ? [2, C, 9, 11] : [2, C, 13];
  return () =>
    buildModel({
      opset: 17,
      inputs: [['x', 'float32', xDims]],
      outputs: [['y', 'float32'], ...(opts.extra ?? []).map((n) => [n.outputs[0], 'float32'] as [string, 'float32'])],
      initializers: { pads: pads(padValues), w: tensor([C, C, ...new Array(rank - 2).fill(3)], 1, -0.3, 0.3), b: tensor([C], 2), one: new Tensor('float32', Float32Array.of(1), []) },
      nodes: [{ op: 'Pad', inputs: ['x', 'pads', ...(opts.padInputs ?? [])], outputs: ['p'], attributes: opts.padAttrs }, { ...op, inputs: ['p', ...op.inputs.slice(1)] }, ...(opts.extra ?? [])],
    });
}
const conv = (attributes: Record<string, PlainAttribute> = {}): NodeSpec => ({ op: 'Conv', inputs: ['p', 'w', 'b'], outputs: ['y'], attributes });
const avg = (attributes: Record<string, PlainAttribute> = {}): NodeSpec => ({ op: 'AveragePool', inputs: ['p'], outputs: ['y'], attributes: { kernel_shape: [3, 3], ...attributes } });
const x4 = () => ({ x: tensor([2, C, 9, 11], 5, -2, 2) });

describe.each(nativeModes)('pad fusion (native %s)', (useNative) => {
  const fused: Array<[string, () => ReturnType<ReturnType<typeof padThen>>, Record<string, Tensor>]> = [
    ['Conv with its own pads (asymmetric Pad)', padThen(conv({ pads: [1, 1, 1, 1] }), [0, 0, 1, 2, 0, 0, 2, 1]), x4()],
    ['Conv with strides and no pads of its own', padThen(conv({ strides: [2, 2] }), [0, 0, 1, 1, 0, 0, 1, 1]), x4()],
    ['1-D Conv', padThen({ op: 'Conv', inputs: ['p', 'w', 'b'], outputs: ['y'] }, [0, 0, 2, 0, 0, 1], { rank: 3 }), { x: tensor([2, C, 13], 6) }],
    ['AveragePool counting padding, with pads of its own', padThen(avg({ count_include_pad: 1, pads: [1, 0, 1, 0] }), [0, 0, 1, 1, 0, 0, 1, 1]), x4()],
    ['AveragePool not counting padding, with none of its own (torch avg_pool2d)', padThen(avg({ strides: [1, 1] }), [0, 0, 1, 1, 0, 0, 1, 1]), x4()],
    ['Pad with an explicit zero value', padThen(conv(), [0, 0, 1, 1, 0, 0, 1, 1], { padInputs: ['zero'] }), x4()],
  ];
  for (const [label, build, feeds] of fused) {
    it(`folds the Pad into a ${label}`, async () => {
      const withZero = () => {
        const m = build();
        m.graph.initializers.set('zero', new Tensor('float32', Float32Array.of(0), []));
        return m;
      };
      const r = await compareLevels(withZero, feeds, { useNative });
      expect(r.ops).not.toContain('Pad');
    });
  }

  const kept: Array<[string, () => ReturnType<ReturnType<typeof padThen>>]> = [
    ['pads the channels', padThen(avg({ count_include_pad: 1 }), [0, 1, 1, 1, 0, 0, 1, 1])],
    ['pads with reflection', padThen(conv(), [0, 0, 1, 1, 0, 0, 1, 1], { padAttrs: { mode: 'reflect' } })],
    ['pads with a non-zero value', padThen(conv(), [0, 0, 1, 1, 0, 0, 1, 1], { padInputs: ['one'] })],
    ['has a second reader', padThen(conv(), [0, 0, 1, 1, 0, 0, 1, 1], { extra: [{ op: 'Relu', inputs: ['p'], outputs: ['r'] }] })],
    ['feeds a pool that does not count its own padding', padThen(avg({ pads: [1, 1, 1, 1] }), [0, 0, 1, 1, 0, 0, 1, 1])],
    ['feeds a ceil-mode pool', padThen(avg({ count_include_pad: 1, ceil_mode: 1, strides: [2, 2] }), [0, 0, 1, 1, 0, 0, 1, 1])],
    ['feeds a Conv with auto_pad', padThen(conv({ auto_pad: 'SAME_UPPER' }), [0, 0, 1, 1, 0, 0, 1, 1])],
  ];
  for (const [label, build] of kept) {
    it(`keeps a Pad that ${label}`, async () => {
      const r = await compareLevels(build, x4(), { useNative });
      expect(r.ops).toContain('Pad');
    });
  }
});
