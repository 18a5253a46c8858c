/**
 * Test fixtures of the attention fold and fuse: a self-attention block as torch exports it, the
 * plan description ep-rocm builds for it, and a CPU interpreter of such plans.
 */
import { Tensor, inferShapes } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import { concreteGraph } from '../rocm-partition.js';
import { buildPlanDescription, type PlanDescription } from './plan-description.js';

export const S = 5;
export const H = 2;
export const D = 3;
export const N = H * D;

export function seeded(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
}
const t = (dims: number[], seed: number) => new Tensor('float32', seeded(dims.reduce((a, b) => a * b, 1), seed), dims);
const ints = (...v: number[]) => new Tensor('int64', BigInt64Array.from(v.map(BigInt)), [v.length]);

/**
 * One self-attention block as torch exports it: x[1,S,N] → Q/K/V Linear → Reshape [1,S,H,D] →
 * Transpose (K to [1,H,D,S]) → Q·Kᵀ → Div √D → (+ mask) → Softmax → ·V → Transpose → Reshape →
 * output Linear. With `masked`, a second input m[1,S] (1 keep, 0 drop) becomes BERT's additive mask
 * (1 - m) * -10000, shaped [1,1,1,S].
 */
export function attention(batch: number, masked = false, exposeProbabilities = false): ModelSpec {
  const linear = (name: string, x: string) => [
    { op: 'MatMul', inputs: [x, `w${name}`], outputs: [`${name}m`], name: `${name}.matmul` },
    { op: 'Add', inputs: [`${name}m`, `b${name}`], outputs: [name], name: `${name}.add` },
  ];
  const heads = (name: string, perm: number[]) => [
    { op: 'Reshape', inputs: [name, 'split'], outputs: [`${name}r`], name: `${name}.reshape` },
    { op: 'Transpose', inputs: [`${name}r`], outputs: [`${name}t`], name: `${name}.transpose`, attributes: { perm } },
  ];
  return {
    inputs: [['x', 'float32', [batch, S, N]], ...(masked ? [['m', 'float32', [batch, S]] as ['m', 'float32', number[]]] : [])],
    outputs: [['y', 'float32'], ...(exposeProbabilities ? [['p', 'float32'] as ['p', 'float32']] : [])],
    initializers: {
      wq: t([N, N], 1), bq: t([N], 2), wk: t([N, N], 3), bk: t([N], 4), wv: t([N, N], 5), bv: t([N], 6), wo: t([N, N], 7), bo: t([N], 8),
      split: ints(batch, S, H, D), merge: ints(batch, S, N), scale: new Tensor('float32', Float32Array.of(Math.sqrt(D)), []),
      one: new Tensor('float32', Float32Array.of(1), []), big: new Tensor('float32', Float32Array.of(-10000), []), maskAxes: ints(1, 2),
    },
    nodes: [
      ...linear('q', 'x'), ...linear('k', 'x'), ...linear('v', 'x'),
      ...heads('q', [0, 2, 1, 3]), ...heads('k', [0, 2, 3, 1]), ...heads('v', [0, 2, 1, 3]),
      { op: 'MatMul', inputs: ['qt', 'kt'], outputs: ['s'], name: 'scores' },
      { op: 'Div', inputs: ['s', 'scale'], outputs: ['ss'], name: 'scale' },
      ...(masked
        ? [
            { op: 'Unsqueeze', inputs: ['m', 'maskAxes'], outputs: ['m4'], name: 'mask.unsqueeze' },
            { op: 'Sub', inputs: ['one', 'm4'], outputs: ['mi'], name: 'mask.invert' },
            { op: 'Mul', inputs: ['mi', 'big'], outputs: ['mb'], name: 'mask.scale' },
            { op: 'Add', inputs: ['ss', 'mb'], outputs: ['sm'], name: 'mask.add' },
          ]
        : []),
      { op: 'Softmax', inputs: [masked ? 'sm' : 'ss'], outputs: ['p'], name: 'softmax', attributes: { axis: -1 } },
      { op: 'MatMul', inputs: ['p', 'vt'], outputs: ['ctx'], name: 'context' },
      { op: 'Transpose', inputs: ['ctx'], outputs: ['ctxt'], name: 'ctx.transpose', attributes: { perm: [0, 2, 1, 3] } },
      { op: 'Reshape', inputs: ['ctxt', 'merge'], outputs: ['ctxr'], name: 'ctx.reshape' },
      ...linear('o', 'ctxr').map((n) => ({ ...n, outputs: n.outputs.map((o) => (o === 'o' ? 'y' : o)) })),
    ],
    opset: 17,
  };
}

export function describePlan(
  batch: number,
  options: { attentionFold?: boolean; attentionFuse?: boolean; masked?: boolean; exposeProbabilities?: boolean } = {},
): PlanDescription {
  const { attentionFold = true, attentionFuse = false, masked = false, exposeProbabilities = false } = options;
  const model = buildModel(attention(batch, masked, exposeProbabilities));
  inferShapes(model.graph);
  const inputNames = masked ? ['x', 'm'] : ['x'];
  const p = { name: 'p', graph: model.graph, nodes: model.graph.nodes, inputNames, outputNames: exposeProbabilities ? ['y', 'p'] : ['y'] };
  const feeds = [Tensor.zeros('float32', [batch, S, N]), ...(masked ? [Tensor.zeros('float32', [batch, S])] : [])];
  const g = concreteGraph(p, feeds);
  return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false, matmulBiasFold: true, attentionFold, attentionFuse });
}

/**
 * Runs a plan on the CPU, in one Float32Array arena at the description's offsets: the steps this plan
 * holds, with the native ops' semantics (MatMulStrided as blas::GemmDesc reads its views). A wrong
 * offset, view or lifetime in the description gives a wrong answer here.
 */
export function interpret(d: PlanDescription, ...inputs: Float32Array[]): Float32Array {
  const arena = new Float32Array(d.arenaBytes / 4);
  const at = (id: number) => d.buffers[id].offset / 4;
  const size = (id: number) => d.buffers[id].dims.reduce((a, b) => a * b, 1);
  for (const c of d.constants) arena.set(c.data as Float32Array, at(c.buffer));
  inputs.forEach((x, i) => arena.set(x, at(d.inputs[i])));
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
    } else if (s.op === 'Attention') {
      // kernels/attention.hip's contract (launch.h), with a plain three-pass softmax.
      const [heads, sq, sk, depth, qLd, qHead, qOff, kLd, kHead, kOff, vLd, vHead, vOff, oLd, oHead, oOff, mHead, mRow, mCol, scale] = s.attrs;
      const [q, k, v] = s.inputs.slice(0, 3).map(at);
      const mask = s.inputs[3] >= 0 ? at(s.inputs[3]) : -1;
      const o = at(s.outputs[0]);
      const out: Array<[number, number]> = [];
      for (let h = 0; h < heads; h++) for (let i = 0; i < sq; i++) {
        const scores = Array.from({ length: sk }, (_, j) => {
          let dot = 0;
          for (let c = 0; c < depth; c++) dot += arena[q + qOff + h * qHead + i * qLd + c] * arena[k + kOff + h * kHead + j * kLd + c];
          return scale * dot + (mask >= 0 ? arena[mask + h * mHead + i * mRow + j * mCol] : 0);
        });
        const max = Math.max(...scores);
        const e = scores.map((x) => Math.exp(x - max));
        const sum = e.reduce((a, b) => a + b, 0);
        for (let c = 0; c < depth; c++) {
          let acc = 0;
          for (let j = 0; j < sk; j++) acc += (e[j] / sum) * arena[v + vOff + h * vHead + j * vLd + c];
          out.push([o + oOff + h * oHead + i * oLd + c, acc]);
        }
      }
      for (const [index, value] of out) arena[index] = value;
    } else if (s.op === 'Sub' || s.op === 'Mul' || s.op === 'Add') {
      // Elementwise with numpy broadcasting (the mask's arithmetic).
      const [a, b] = s.inputs;
      const od = d.buffers[s.outputs[0]].dims;
      const index = (dims: number[], flat: number) => {
        let off = 0;
        let stride = 1;
        let rest = flat;
        for (let axis = od.length - 1; axis >= 0; axis--) {
          const coord = rest % od[axis];
          rest = Math.floor(rest / od[axis]);
          const ax = axis - (od.length - dims.length);
          if (ax >= 0) {
            if (dims[ax] !== 1) off += coord * stride;
            stride *= dims[ax];
          }
        }
        return off;
      };
      const f = s.op === 'Sub' ? (x: number, y: number) => x - y : s.op === 'Mul' ? (x: number, y: number) => x * y : (x: number, y: number) => x + y;
      const n = size(s.outputs[0]);
      const out = new Float32Array(n);
      for (let e = 0; e < n; e++) out[e] = f(arena[at(a) + index(d.buffers[a].dims, e)], arena[at(b) + index(d.buffers[b].dims, e)]);
      arena.set(out, at(s.outputs[0]));
    } else throw new Error(`the interpreter has no ${s.op}`);
  }
  return arena.slice(at(d.outputs[0]), at(d.outputs[0]) + size(d.outputs[0]));
}

