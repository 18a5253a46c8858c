// Split on rocm is one Slice step per output (step-encoders.ts encodeSplit). These tests build the plan
// description without a GPU, run its Slice steps with a small JS interpreter of the native Slice
// step's contract (output index → input index start + i·step, per axis), and compare with the CPU EP.
import { describe, expect, it } from 'vitest';
import { InferenceSession, KernelRegistry, Tensor, inferShapes, type FusedPartition } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import '@switchyard/ep-cpu';
import { rocmCapability, rocmKernelDefs } from '../capability.js';
import { ROCM_KERNEL_TABLE } from '../kernel-table.js';
import { concreteGraph } from '../rocm-partition.js';
import { buildPlanDescription, type PlanDescription } from './plan-description.js';

const ints = (...v: number[]) => new Tensor('int64', BigInt64Array.from(v.map(BigInt)), [v.length]);
const seq = (dims: number[]) => new Tensor('float32', Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, (_, i) => i * 0.5 - 3), dims);

function planOf(spec: ModelSpec, x: Tensor): PlanDescription {
  const graph = buildModel(spec).graph;
  inferShapes(graph);
  const p: FusedPartition = { name: 'p', graph, nodes: graph.nodes, inputNames: ['x'], outputNames: spec.outputs.map(([n]) => n) };
  return buildPlanDescription(concreteGraph(p, [x]), p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false });
}

/** Runs a plan made only of Slice steps on the host, as the native Slice step does. */
function interpretSlices(d: PlanDescription, x: Tensor): Record<string, Float32Array> {
  const values = new Map<number, Float32Array>([[d.inputs[0], x.data as Float32Array]]);
  for (const s of d.steps) {
    expect(s.op).toBe('Slice');
    const inDims = d.buffers[s.inputs[0]].dims;
    const outDims = d.buffers[s.outputs[0]].dims;
    const r = inDims.length;
    const starts = s.attrs.slice(0, r);
    const steps = s.attrs.slice(r);
    const src = values.get(s.inputs[0])!;
    const out = new Float32Array(outDims.reduce((a, b) => a * b, 1));
    for (let o = 0; o < out.length; o++) {
      let rest = o;
      let at = 0;
      let stride = 1;
      for (let a = r - 1; a >= 0; a--) {
        const i = rest % outDims[a];
        rest = Math.floor(rest / outDims[a]);
        const j = starts[a] + i * steps[a];
        expect(j).toBeGreaterThanOrEqual(0);
        expect(j).toBeLessThan(inDims[a]);
        at += j * stride;
        stride *= inDims[a];
      }
      out[o] = src[at];
    }
    values.set(s.outputs[0], out);
  }
  return Object.fromEntries(d.outputs.map((id) => [d.buffers[id].name, values.get(id)!]));
}

const FORMS: Array<[string, ModelSpec, number[]]> = [
  [
    'opset 13, sizes as an input, axis 1',
    { opset: 13, inputs: [['x', 'float32', [2, 6, 3]]], outputs: [['a', 'float32'], ['b', 'float32'], ['c', 'float32']], initializers: { s: ints(2, 3, 1) }, nodes: [{ op: 'Split', inputs: ['x', 's'], outputs: ['a', 'b', 'c'], name: 'split', attributes: { axis: 1 } }] },
    [2, 6, 3],
  ],
  [
    'opset 18, num_outputs 3 over 7 (3, 3, 1), axis -1',
    { opset: 18, inputs: [['x', 'float32', [3, 7]]], outputs: [['a', 'float32'], ['b', 'float32'], ['c', 'float32']], nodes: [{ op: 'Split', inputs: ['x'], outputs: ['a', 'b', 'c'], name: 'split', attributes: { axis: -1, num_outputs: 3 } }] },
    [3, 7],
  ],
  [
    'opset 11, split attribute, axis 0',
    { opset: 11, inputs: [['x', 'float32', [5, 2, 2]]], outputs: [['a', 'float32'], ['b', 'float32']], nodes: [{ op: 'Split', inputs: ['x'], outputs: ['a', 'b'], name: 'split', attributes: { axis: 0, split: [1, 4] } }] },
    [5, 2, 2],
  ],
  [
    'opset 17, equal parts, symbolic batch (GPT-2 q/k/v)',
    { opset: 17, inputs: [['x', 'float32', ['batch', 4, 12]]], outputs: [['q', 'float32'], ['k', 'float32'], ['v', 'float32']], nodes: [{ op: 'Split', inputs: ['x'], outputs: ['q', 'k', 'v'], name: 'split', attributes: { axis: 2 } }] },
    [2, 4, 12],
  ],
];

describe('Split on rocm: one Slice step per output', () => {
  for (const [label, spec, dims] of FORMS) {
    it(`${label}: the plan's Slice steps give the CPU EP's parts`, async () => {
      const x = seq(dims);
      const d = planOf(spec, x);
      expect(d.steps.map((s) => s.op)).toEqual(spec.outputs.map(() => 'Slice'));
      const got = interpretSlices(d, x);
      const s = await InferenceSession.fromModel(buildModel(spec), { executionProviders: ['cpu'] });
      const want = await s.run({ x });
      for (const [name, value] of Object.entries(want)) {
        const t = value as Tensor;
        expect(d.buffers[d.outputs[spec.outputs.findIndex(([n]) => n === name)]].dims, name).toEqual(t.dims);
        expect(Array.from(got[name]), name).toEqual(Array.from(t.data as Float32Array));
      }
      await s.release();
    });
  }

  it('leaves an unused output without a step', () => {
    const spec: ModelSpec = { opset: 13, inputs: [['x', 'float32', [4, 6]]], outputs: [['a', 'float32']], initializers: { s: ints(1, 5) }, nodes: [{ op: 'Split', inputs: ['x', 's'], outputs: ['a', ''], name: 'split', attributes: { axis: 1 } }] };
    const d = planOf(spec, seq([4, 6]));
    expect(d.steps).toHaveLength(1);
    expect(d.steps[0].attrs).toEqual([0, 0, 1, 1]);
  });

  it('is claimed with constant sizes and declined with sizes computed at run time', () => {
    const claims = (spec: ModelSpec) => {
      const graph = buildModel(spec).graph;
      inferShapes(graph);
      const registry = new KernelRegistry();
      for (const def of rocmKernelDefs(ROCM_KERNEL_TABLE)) registry.register(def);
      const { capabilities, declined } = rocmCapability(graph, { lookup: registry.lookupFor('rocm'), assigned: new Set() });
      return { claimed: capabilities.flatMap((c) => c.nodes.map((n) => n.name)), declined: [...declined].map(([n, r]) => `${n.name}: ${r.message}`) };
    };
    // A Split alone is still a GPU partition's work (an Add keeps the partition from being only movement).
    const withSizes = (sizes: ModelSpec['inputs'][number] | undefined): ModelSpec => ({
      opset: 13,
      inputs: [['x', 'float32', [2, 6]], ...(sizes ? [sizes] : [])],
      outputs: [['a', 'float32'], ['b', 'float32']],
      ...(sizes ? {} : { initializers: { s: ints(2, 4) } }),
      nodes: [
        { op: 'Add', inputs: ['x', 'x'], outputs: ['y'], name: 'add' },
        { op: 'Split', inputs: ['y', 's'], outputs: ['a', 'b'], name: 'split', attributes: { axis: 1 } },
      ],
    });
    expect(claims(withSizes(undefined)).claimed).toContain('split');
    const runtime = claims(withSizes(['s', 'int64', [2]]));
    expect(runtime.claimed).not.toContain('split');
    expect(runtime.declined.join('\n')).toMatch(/split: split \(input 1\) must be a constant or computed from shapes/);
  });
});
