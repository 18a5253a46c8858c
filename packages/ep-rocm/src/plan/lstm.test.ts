// LSTM on rocm (plan/lstm.ts): which forms are claimed, and the Lstm step's encoding. The plan's step
// is run by a JS transcription of native-hip kernels/lstm.hip's arithmetic (same indexing of X, W, R,
// B, the states and Y) and compared with the CPU EP, so the encoding and the kernel's layout agree
// with ONNX before the GPU test (gpu-tests/general-ops.test.mjs) runs the kernel itself.
import { describe, expect, it } from 'vitest';
import { InferenceSession, KernelRegistry, Tensor, inferShapes, type FusedPartition } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import '@switchyard/ep-cpu';
import { rocmCapability, rocmKernelDefs } from '../capability.js';
import { ROCM_KERNEL_TABLE } from '../kernel-table.js';
import { concreteGraph } from '../rocm-partition.js';
import { buildPlanDescription, type PlanDescription } from './plan-description.js';
import { MAX_LSTM_WORKSPACE_BYTES, lstmWorkspaceBytes } from './lstm.js';

function seeded(n: number, seed: number, scale = 1): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32 - 0.5) * 2 * scale;
  });
}
const t = (dims: number[], seed: number, scale = 1) => new Tensor('float32', seeded(dims.reduce((a, b) => a * b, 1), seed, scale), dims);

const SEQ = 5;
const BATCH = 3;
const INPUT = 4;
const HIDDEN = 6;

/** An LSTM model; `inputs`: which optional inputs (B, initial_h, initial_c) and `outputs` which outputs it has. */
function lstmModel(direction: string, opts: { bias?: boolean; states?: boolean; outputs?: [boolean, boolean, boolean]; attributes?: Record<string, unknown>; extraInputs?: string[] } = {}): ModelSpec {
  const dirs = direction === 'bidirectional' ? 2 : 1;
  const present = opts.outputs ?? [true, true, true];
  const outNames = ['y', 'yh', 'yc'].map((n, i) => (present[i] ? n : ''));
  return {
    opset: 14,
    inputs: [['x', 'float32', [SEQ, BATCH, INPUT]], ...(opts.states ? ([['h0', 'float32', [dirs, BATCH, HIDDEN]], ['c0', 'float32', [dirs, BATCH, HIDDEN]]] as ModelSpec['inputs']) : [])],
    outputs: outNames.filter(Boolean).map((n) => [n, 'float32'] as [string, 'float32']),
    initializers: {
      w: t([dirs, 4 * HIDDEN, INPUT], 11, 0.8),
      r: t([dirs, 4 * HIDDEN, HIDDEN], 12, 0.8),
      ...(opts.bias ? { b: t([dirs, 8 * HIDDEN], 13, 0.5) } : {}),
    },
    nodes: [
      {
        op: 'LSTM',
        inputs: ['x', 'w', 'r', opts.bias ? 'b' : '', ...(opts.extraInputs ?? (opts.states ? ['', 'h0', 'c0'] : []))],
        outputs: outNames,
        name: 'lstm',
        attributes: { direction, hidden_size: HIDDEN, ...opts.attributes },
      },
    ],
  };
}

function planOf(spec: ModelSpec, feeds: Record<string, Tensor>, fp16 = false): PlanDescription {
  const graph = buildModel(spec).graph;
  inferShapes(graph);
  const names = spec.inputs.map(([n]) => n);
  const p: FusedPartition = { name: 'p', graph, nodes: graph.nodes, inputNames: names, outputNames: spec.outputs.map(([n]) => n) };
  return buildPlanDescription(concreteGraph(p, names.map((n) => feeds[n])), p.nodes, names, p.outputNames, { deviceId: 0, captureGraph: false, fp16 });
}

const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

/** kernels/lstm.hip's arithmetic, block (b, dir) by block, over the plan's buffers. */
function runLstmStep(d: PlanDescription, values: Map<number, Float32Array>): void {
  const step = d.steps.find((s) => s.op === 'Lstm')!;
  const [seq, batch, input, hidden, dirs, reverse, hasY, hasYh, hasYc] = step.attrs;
  const at = (i: number) => (step.inputs[i] !== undefined && step.inputs[i] >= 0 ? values.get(step.inputs[i])! : undefined);
  const [x, w, r, bias, h0, c0] = [0, 1, 2, 3, 4, 5].map(at);
  let slot = 0;
  const make = (has: number, n: number) => (has ? (values.set(step.outputs[slot++], new Float32Array(n)), values.get(step.outputs[slot - 1])!) : undefined);
  const y = make(hasY, seq * dirs * batch * hidden);
  const yh = make(hasYh, dirs * batch * hidden);
  const yc = make(hasYc, dirs * batch * hidden);
  const rows = 4 * hidden;
  for (let dir = 0; dir < dirs; dir++) {
    for (let b = 0; b < batch; b++) {
      const state = (dir * batch + b) * hidden;
      const h = Array.from({ length: hidden }, (_, j) => (h0 ? h0[state + j] : 0));
      const c = Array.from({ length: hidden }, (_, j) => (c0 ? c0[state + j] : 0));
      const backwards = dirs === 2 ? dir === 1 : reverse === 1;
      for (let s = 0; s < seq; s++) {
        const time = backwards ? seq - 1 - s : s;
        const gates = Array.from({ length: rows }, (_, g) => {
          let acc = 0;
          for (let k = 0; k < input; k++) acc += w![(dir * rows + g) * input + k] * x![(time * batch + b) * input + k];
          for (let k = 0; k < hidden; k++) acc += r![(dir * rows + g) * hidden + k] * h[k];
          return acc + (bias ? bias[dir * 2 * rows + g] + bias[dir * 2 * rows + rows + g] : 0);
        });
        for (let j = 0; j < hidden; j++) {
          const cell = sigmoid(gates[2 * hidden + j]) * c[j] + sigmoid(gates[j]) * Math.tanh(gates[3 * hidden + j]);
          c[j] = cell;
          h[j] = sigmoid(gates[hidden + j]) * Math.tanh(cell);
          if (y) y[((time * dirs + dir) * batch + b) * hidden + j] = h[j];
        }
      }
      for (let j = 0; j < hidden; j++) {
        if (yh) yh[state + j] = h[j];
        if (yc) yc[state + j] = c[j];
      }
    }
  }
}

function decisions(spec: ModelSpec): Record<string, string> {
  const graph = buildModel(spec).graph;
  inferShapes(graph);
  const registry = new KernelRegistry();
  for (const def of rocmKernelDefs(ROCM_KERNEL_TABLE)) registry.register(def);
  const { capabilities, declined } = rocmCapability(graph, { lookup: registry.lookupFor('rocm'), assigned: new Set() });
  const out: Record<string, string> = {};
  for (const c of capabilities) for (const n of c.nodes) out[n.name] = 'gpu';
  for (const [n, r] of declined) out[n.name] = r.message;
  return out;
}

describe('LSTM on rocm', () => {
  it('keeps W, R and B float32 in a float16 plan (X, the states and the outputs are float16)', () => {
    const spec = lstmModel('bidirectional', { bias: true, states: true });
    const feeds: Record<string, Tensor> = { x: t([SEQ, BATCH, INPUT], 21), h0: t([2, BATCH, HIDDEN], 22, 0.5), c0: t([2, BATCH, HIDDEN], 23, 0.5) };
    const d = planOf(spec, feeds, true);
    const step = d.steps.find((s) => s.op === 'Lstm')!;
    const dtypeOf = (i: number) => d.buffers[step.inputs[i]].dtype;
    expect([1, 2, 3].map(dtypeOf)).toEqual([1, 1, 1]); // float32
    expect([0, 4, 5].map(dtypeOf)).toEqual([10, 10, 10]); // float16
    expect(step.outputs.map((id) => d.buffers[id].dtype)).toEqual([10, 10, 10]);
    for (const c of d.constants) if ([1, 2, 3].map((i) => step.inputs[i]).includes(c.buffer)) expect(c.data).toBeInstanceOf(Float32Array);
  });

  const forms: Array<[string, ModelSpec]> = [
    ['bidirectional, bias, initial states, all outputs (PyTorch nn.LSTM)', lstmModel('bidirectional', { bias: true, states: true })],
    ['forward, no bias, zero states, Y only', lstmModel('forward', { outputs: [true, false, false] })],
    ['reverse, bias, Y_h and Y_c only', lstmModel('reverse', { bias: true, states: true, outputs: [false, true, true] })],
  ];
  for (const [label, spec] of forms) {
    it(`${label}: the Lstm step, run as the kernel computes, matches the CPU EP`, async () => {
      const dirs = (spec.nodes[0].attributes as { direction: string }).direction === 'bidirectional' ? 2 : 1;
      const feeds: Record<string, Tensor> = { x: t([SEQ, BATCH, INPUT], 21) };
      if (spec.inputs.length > 1) Object.assign(feeds, { h0: t([dirs, BATCH, HIDDEN], 22, 0.5), c0: t([dirs, BATCH, HIDDEN], 23, 0.5) });
      expect(decisions(spec).lstm).toBe('gpu');
      const d = planOf(spec, feeds);
      expect(d.steps.map((s) => s.op)).toEqual(['Lstm']);
      const values = new Map<number, Float32Array>();
      d.inputs.forEach((id) => values.set(id, feeds[d.buffers[id].name].data as Float32Array));
      d.constants.forEach((c) => values.set(c.buffer, c.data as Float32Array));
      runLstmStep(d, values);
      const s = await InferenceSession.fromModel(buildModel(spec), { executionProviders: ['cpu'] });
      const want = await s.run(feeds);
      for (const [name, value] of Object.entries(want)) {
        const ref = value as Tensor;
        const id = d.outputs[spec.outputs.findIndex(([n]) => n === name)];
        expect(d.buffers[id].dims, name).toEqual(ref.dims);
        const got = values.get(id)!;
        (ref.data as Float32Array).forEach((v, i) => expect(Math.abs(got[i] - v), `${name}[${i}]`).toBeLessThan(1e-5));
      }
      await s.release();
    });
  }

  it('gives the step the stepped form\'s workspace: projected gates for every step, h twice and c, float32', () => {
    const spec = lstmModel('bidirectional', { bias: true, states: true });
    const feeds: Record<string, Tensor> = { x: t([SEQ, BATCH, INPUT], 21), h0: t([2, BATCH, HIDDEN], 22), c0: t([2, BATCH, HIDDEN], 23) };
    const d = planOf(spec, feeds, true);
    const step = d.steps.find((s) => s.op === 'Lstm')!;
    const align = (b: number) => Math.ceil(b / 256) * 256;
    const state = align(2 * BATCH * HIDDEN * 4);
    expect(step.workspace?.bytes).toBe(align(2 * SEQ * BATCH * 4 * HIDDEN * 4) + 3 * state);
    // It lies inside the arena and overlaps no buffer the step reads or writes.
    const ws = step.workspace!;
    expect(ws.offset + ws.bytes).toBeLessThanOrEqual(d.arenaBytes);
    for (const id of [...step.inputs, ...step.outputs].filter((i) => i >= 0)) {
      const b = d.buffers[id];
      if (b.offset === undefined || d.constants.some((c) => c.buffer === id)) continue;
      expect(b.offset + b.bytes <= ws.offset || ws.offset + ws.bytes <= b.offset, `buffer ${id}`).toBe(true);
    }
  });

  it('keeps the single-block form (no workspace) past the workspace cap when its state fits a block, and gives a wide one its workspace anyway', () => {
    const huge = { op: 'Lstm', attrs: [4096, 4096, 64, 64, 1, 0, 1, 0, 0] };
    expect(4096 * 4096 * 4 * 64 * 4).toBeGreaterThan(MAX_LSTM_WORKSPACE_BYTES);
    expect(lstmWorkspaceBytes(huge)).toBe(0);
    const wide = { op: 'Lstm', attrs: [4096, 64, 64, 2100, 1, 0, 1, 0, 0] };
    expect(lstmWorkspaceBytes(wide)).toBeGreaterThan(MAX_LSTM_WORKSPACE_BYTES);
    expect(decisions({ ...lstmModel('forward'), initializers: { w: t([1, 4 * 2100, INPUT], 11), r: t([1, 4 * 2100, 2100], 12) } }).lstm).toBe('gpu');
  });

  it('declines the forms the kernel does not run, with the reason', () => {
    const seqLens = lstmModel('forward', { extraInputs: ['lens'] });
    seqLens.initializers!.lens = new Tensor('int32', Int32Array.from([SEQ, SEQ, SEQ]), [BATCH]);
    expect(decisions(seqLens).lstm).toMatch(/sequence_lens/);
    expect(decisions(lstmModel('forward', { attributes: { clip: 3 } })).lstm).toMatch(/clip/);
    expect(decisions(lstmModel('forward', { attributes: { input_forget: 1 } })).lstm).toMatch(/input_forget/);
    expect(decisions(lstmModel('forward', { attributes: { activations: ['Sigmoid', 'Tanh', 'Relu'] } })).lstm).toMatch(/activations/);
    expect(decisions(lstmModel('forward', { attributes: { activations: ['Sigmoid', 'Tanh', 'Tanh'] } })).lstm).toBe('gpu');
    const peep = lstmModel('forward', { extraInputs: ['', '', '', 'p'] });
    peep.initializers!.p = t([1, 3 * HIDDEN], 5);
    expect(decisions(peep).lstm).toMatch(/peepholes/);
  });
});
