import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, inferShapes, registerExecutionProvider } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { concreteGraph } from '../rocm-partition.js';
import { buildPlanDescription, type PlanDescription } from './plan-description.js';

registerExecutionProvider(cpuFactory);

const S = 5;
const H = 2;
const D = 3;
const N = H * D;

function seeded(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
}
const t = (dims: number[], seed: number) => new Tensor('float32', seeded(dims.reduce((a, b) => a * b, 1), seed), dims);
const ints = (...v: number[]) => new Tensor('int64', BigInt64Array.from(v.map(BigInt)), [v.length]);

// One self-attention block as torch exports it: x[1,S,N] → Q/K/V Linear → Reshape [1,S,H,D] →
// Transpose (K to [1,H,D,S]) → Q·Kᵀ → Div √D → Softmax → ·V → Transpose → Reshape → output Linear.
function attention(batch: number): ModelSpec {
  const linear = (name: string, x: string) => [
    { op: 'MatMul', inputs: [x, `w${name}`], outputs: [`${name}m`], name: `${name}.matmul` },
    { op: 'Add', inputs: [`${name}m`, `b${name}`], outputs: [name], name: `${name}.add` },
  ];
  const heads = (name: string, perm: number[]) => [
    { op: 'Reshape', inputs: [name, 'split'], outputs: [`${name}r`], name: `${name}.reshape` },
    { op: 'Transpose', inputs: [`${name}r`], outputs: [`${name}t`], name: `${name}.transpose`, attributes: { perm } },
  ];
  return {
    inputs: [['x', 'float32', [batch, S, N]]],
    outputs: [['y', 'float32']],
    initializers: {
      wq: t([N, N], 1), bq: t([N], 2), wk: t([N, N], 3), bk: t([N], 4), wv: t([N, N], 5), bv: t([N], 6), wo: t([N, N], 7), bo: t([N], 8),
      split: ints(batch, S, H, D), merge: ints(batch, S, N), scale: new Tensor('float32', Float32Array.of(Math.sqrt(D)), []),
    },
    nodes: [
      ...linear('q', 'x'), ...linear('k', 'x'), ...linear('v', 'x'),
      ...heads('q', [0, 2, 1, 3]), ...heads('k', [0, 2, 3, 1]), ...heads('v', [0, 2, 1, 3]),
      { op: 'MatMul', inputs: ['qt', 'kt'], outputs: ['s'], name: 'scores' },
      { op: 'Div', inputs: ['s', 'scale'], outputs: ['ss'], name: 'scale' },
      { op: 'Softmax', inputs: ['ss'], outputs: ['p'], name: 'softmax', attributes: { axis: -1 } },
      { op: 'MatMul', inputs: ['p', 'vt'], outputs: ['ctx'], name: 'context' },
      { op: 'Transpose', inputs: ['ctx'], outputs: ['ctxt'], name: 'ctx.transpose', attributes: { perm: [0, 2, 1, 3] } },
      { op: 'Reshape', inputs: ['ctxt', 'merge'], outputs: ['ctxr'], name: 'ctx.reshape' },
      ...linear('o', 'ctxr').map((n) => ({ ...n, outputs: n.outputs.map((o) => (o === 'o' ? 'y' : o)) })),
    ],
    opset: 17,
  };
}

function describePlan(batch: number, attentionFold = true): PlanDescription {
  const model = buildModel(attention(batch));
  inferShapes(model.graph);
  const p = { name: 'p', graph: model.graph, nodes: model.graph.nodes, inputNames: ['x'], outputNames: ['y'] };
  const g = concreteGraph(p, [Tensor.zeros('float32', [batch, S, N])]);
  return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false, matmulBiasFold: true, attentionFold });
}

/**
 * Runs a plan on the CPU, in one Float32Array arena at the description's offsets: the steps this plan
 * holds, with the native ops' semantics (MatMulStrided as blas::GemmDesc reads its views). A wrong
 * offset, view or lifetime in the description gives a wrong answer here.
 */
function interpret(d: PlanDescription, x: Float32Array): Float32Array {
  const arena = new Float32Array(d.arenaBytes / 4);
  const at = (id: number) => d.buffers[id].offset / 4;
  const size = (id: number) => d.buffers[id].dims.reduce((a, b) => a * b, 1);
  for (const c of d.constants) arena.set(c.data as Float32Array, at(c.buffer));
  arena.set(x, at(d.inputs[0]));
  for (const s of d.steps) {
    if (s.op === 'MatMulBias') {
      const [a, b, bias] = s.inputs;
      const [k, n] = d.buffers[b].dims;
      const rows = size(a) / k;
      const out = new Float32Array(rows * n);
      for (let r = 0; r < rows; r++) for (let j = 0; j < n; j++) {
        let v = arena[at(bias) + j];
        for (let i = 0; i < k; i++) v += arena[at(a) + r * k + i] * arena[at(b) + i * n + j];
        out[r * n + j] = v;
      }
      arena.set(out, at(s.outputs[0]));
    } else if (s.op === 'MatMulStrided') {
      const [ta, tb, m, n, k, lda, ldb, ldc, batch, sa, sb, sc, oa, ob, oc, alpha] = s.attrs;
      const [a, b] = s.inputs.map(at);
      const c = at(s.outputs[0]);
      const out: Array<[number, number]> = [];
      for (let h = 0; h < batch; h++) for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
        let v = 0;
        for (let p = 0; p < k; p++) {
          const av = arena[a + oa + h * sa + (ta ? p * lda + i : i * lda + p)];
          const bv = arena[b + ob + h * sb + (tb ? j * ldb + p : p * ldb + j)];
          v += av * bv;
        }
        out.push([c + oc + h * sc + i * ldc + j, alpha * v]);
      }
      for (const [index, v] of out) arena[index] = v;
    } else if (s.op === 'Softmax') {
      const [rows, cols] = s.attrs;
      const base = at(s.inputs[0]);
      const dst = at(s.outputs[0]);
      const out = new Float32Array(rows * cols);
      for (let r = 0; r < rows; r++) {
        const row = arena.subarray(base + r * cols, base + (r + 1) * cols);
        const max = Math.max(...row);
        const e = Array.from(row, (v) => Math.exp(v - max));
        const sum = e.reduce((p, q) => p + q, 0);
        e.forEach((v, i) => (out[r * cols + i] = v / sum));
      }
      arena.set(out, dst);
    } else throw new Error(`the interpreter has no ${s.op}`);
  }
  return arena.slice(at(d.outputs[0]), at(d.outputs[0]) + size(d.outputs[0]));
}

describe('attention fold (batch 1)', () => {
  it('runs Q/K/V as one GEMM and the head products as strided GEMMs, without a Transpose', () => {
    const d = describePlan(1);
    expect(d.steps.map((s) => s.op)).toEqual(['MatMulBias', 'MatMulStrided', 'Softmax', 'MatMulStrided', 'MatMulBias']);
    const [qkv, scores, , context] = d.steps;
    expect(d.buffers[qkv.outputs[0]].dims).toEqual([1, S, 3 * N]);
    // Q at column 0 and K at column N of the merged [S, 3N] output, ld 3N; Kᵀ read transposed; ÷√D as alpha.
    expect(scores.attrs).toEqual([0, 1, S, S, D, 3 * N, 3 * N, S, H, D, D, S * S, 0, N, 0, 1 / Math.fround(Math.sqrt(D))]);
    // V at column 2N; each head's [S, D] block written into [1, S, H, D] (ld N, heads D apart).
    expect(context.attrs).toEqual([0, 0, S, D, S, S, 3 * N, N, H, S * S, D, D, 0, 2 * N, 0, 1]);
  });

  it('computes what the CPU EP computes, at the description\'s offsets', async () => {
    const x = seeded(S * N, 9);
    const s = await InferenceSession.fromModel(buildModel(attention(1)), { executionProviders: ['cpu'] });
    const out = await s.run({ x: new Tensor('float32', x, [1, S, N]) });
    const expected = (out.y as Tensor).data as Float32Array;
    await s.release();
    const got = interpret(describePlan(1), x);
    expect(got.length).toBe(expected.length);
    got.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 5));
  });

  it('leaves batch 2 and a plan built without the option as they were', () => {
    expect(describePlan(2).steps.map((s) => s.op)).toContain('Transpose');
    expect(describePlan(1, false).steps.filter((s) => s.op === 'Transpose')).toHaveLength(4);
  });
});
