/**
 * Attention without its Transposes. Exported transformers split each [S, H*D] projection into heads
 * with Reshape → Transpose, multiply per head, and merge the heads back with Transpose → Reshape:
 * BERT-base runs 48 Transpose steps per pass, each a kernel and a trip through memory. A head's slice
 * of a [S, H*D] row-major value is already a strided matrix (rows H*D apart, heads D apart), so a
 * batch-1 MatMul can read its operands -- and write its output -- in place, as one strided-batched
 * GEMM (native-hip's MatMulStrided step). A constant scale right after it (the 1/sqrt(D) Div or Mul)
 * becomes the GEMM's alpha.
 *
 * Then the projections: when several Linear layers (MatMulBias steps) read the same input and only
 * these strided GEMMs read their outputs -- Q, K and V -- they become ONE GEMM over the concatenated
 * weights, whose [S, 3*H*D] output the strided GEMMs read at column offsets. One [128×768]×[768×2304]
 * GEMM fills the GPU better than three [128×768]×[768×768] ones.
 *
 * Runs on the built step list after Copy steps became aliases (copy-alias.ts), so a Reshape between a
 * projection and its Transpose is already gone. Only batch 1 folds: at batch B the heads of different
 * sequences are not one stride apart.
 */
import { float16BitsToFloat32, ONNX_DATA_TYPE } from '@switchyard/core';
import type { BufferRegion } from './nhwc-layout.js';
import type { PlanBuffer, PlanDescription, PlanStepDescription } from './plan-description.js';

export interface AttentionParts {
  steps: PlanStepDescription[];
  buffers: PlanBuffer[];
  constants: PlanDescription['constants'];
  region: Map<number, BufferRegion>;
  aliasOf: ReadonlyMap<number, number>;
}

/** One operand or the output of a strided GEMM: a buffer and the view of it. */
interface View {
  buffer: number;
  rows: number;
  cols: number;
  ld: number;
  stride: number;
  offset: number;
  trans: boolean;
}

const HEADS_TO_FRONT = [0, 2, 1, 3]; // [1, S, H, D] → [1, H, S, D] (and back)
const HEADS_TO_FRONT_T = [0, 2, 3, 1]; // [1, S, H, D] → [1, H, D, S]: K transposed
const samePerm = (attrs: readonly number[], perm: readonly number[]) => attrs.length === 4 && attrs.every((p, i) => p === perm[i]);

/** MatMulStrided's attrs: [transA, transB, m, n, k, lda, ldb, ldc, batch, strideA, strideB, strideC, offsetA, offsetB, offsetC, alpha]. */
function stridedAttrs(a: View, b: View, c: View, heads: number, alpha: number): number[] {
  const k = a.trans ? a.rows : a.cols;
  return [a.trans ? 1 : 0, b.trans ? 1 : 0, c.rows, c.cols, k, a.ld, b.ld, c.ld, heads, a.stride, b.stride, c.stride, a.offset, b.offset, c.offset, alpha];
}

function scalarOf(parts: AttentionParts, id: number): number | undefined {
  if (id < 0 || parts.region.get(id) !== 'constant' || parts.buffers[id].dims.reduce((n, d) => n * d, 1) !== 1) return undefined;
  const data = parts.constants.find((c) => c.buffer === id)?.data;
  if (data instanceof Float32Array) return data[0];
  if (data instanceof Uint16Array && parts.buffers[id].dtype === ONNX_DATA_TYPE.float16) return float16BitsToFloat32(data[0]);
  return undefined;
}

export function foldAttention(parts: AttentionParts): AttentionParts | undefined {
  const { buffers, region, aliasOf } = parts;
  const rootOf = (id: number) => aliasOf.get(id) ?? id;
  const readers = new Map<number, PlanStepDescription[]>();
  const producer = new Map<number, PlanStepDescription>();
  for (const s of parts.steps) {
    for (const id of s.inputs) if (id >= 0) readers.set(rootOf(id), [...(readers.get(rootOf(id)) ?? []), s]);
    for (const id of s.outputs) if (!producer.has(rootOf(id))) producer.set(rootOf(id), s);
  }
  const onlyReader = (id: number, s: PlanStepDescription) => readers.get(rootOf(id))?.length === 1 && readers.get(rootOf(id))![0] === s;
  const dropped = new Set<PlanStepDescription>();
  const replaced = new Map<PlanStepDescription, PlanStepDescription>();

  // A [1, H, S, D] operand: through a head-splitting Transpose read by this step alone, or as it is.
  const operandView = (id: number, s: PlanStepDescription, heads: number): { view: View; transpose?: PlanStepDescription } => {
    const t = producer.get(rootOf(id));
    const d = buffers[id].dims;
    if (t && t.op === 'Transpose' && onlyReader(id, s) && region.get(rootOf(id)) === 'temp') {
      const x = buffers[t.inputs[0]].dims; // [1, S, H, D]
      if (x.length === 4 && x[0] === 1 && x[2] === heads) {
        const [, seq, , depth] = x;
        const ld = heads * depth;
        if (samePerm(t.attrs, HEADS_TO_FRONT)) return { view: { buffer: t.inputs[0], rows: seq, cols: depth, ld, stride: depth, offset: 0, trans: false }, transpose: t };
        if (samePerm(t.attrs, HEADS_TO_FRONT_T)) return { view: { buffer: t.inputs[0], rows: seq, cols: depth, ld, stride: depth, offset: 0, trans: true }, transpose: t };
      }
    }
    return { view: { buffer: id, rows: d[2], cols: d[3], ld: d[3], stride: d[2] * d[3], offset: 0, trans: false } };
  };

  for (const s of parts.steps) {
    if (s.op !== 'MatMul' || s.inputs.length !== 2 || s.outputs.length !== 1) continue;
    const [a, b] = s.inputs;
    const c = s.outputs[0];
    const [ad, bd, cd] = [buffers[a].dims, buffers[b].dims, buffers[c].dims];
    if (ad.length !== 4 || bd.length !== 4 || cd.length !== 4 || ad[0] !== 1 || bd[0] !== 1 || cd[0] !== 1) continue;
    const heads = cd[1];
    if (ad[1] !== heads || bd[1] !== heads) continue;
    const A = operandView(a, s, heads);
    const B = operandView(b, s, heads);
    // B's stored matrix is [rows, cols]; as op(B) it is [k, n] (or [n, k] stored when transposed).
    let C: View = { buffer: c, rows: cd[2], cols: cd[3], ld: cd[3], stride: cd[2] * cd[3], offset: 0, trans: false };
    let out: PlanStepDescription | undefined;
    const cReaders = readers.get(rootOf(c)) ?? [];
    const merge = cReaders.length === 1 && region.get(rootOf(c)) === 'temp' ? cReaders[0] : undefined;
    let alpha = 1;
    if (merge?.op === 'Transpose' && samePerm(merge.attrs, HEADS_TO_FRONT) && rootOf(merge.inputs[0]) === rootOf(c)) {
      // The heads merged back: write each head's [S, D] block straight into [1, S, H, D].
      C = { buffer: merge.outputs[0], rows: cd[2], cols: cd[3], ld: heads * cd[3], stride: cd[3], offset: 0, trans: false };
      out = merge;
    } else if (merge && (merge.op === 'Div' || merge.op === 'Mul') && merge.inputs.length === 2 && rootOf(merge.inputs[0]) === rootOf(c)) {
      const scale = scalarOf(parts, merge.inputs[1]);
      if (scale !== undefined && scale !== 0 && Number.isFinite(scale) && buffers[merge.outputs[0]].bytes === buffers[c].bytes) {
        alpha = merge.op === 'Div' ? 1 / scale : scale;
        C = { ...C, buffer: merge.outputs[0] };
        out = merge;
      }
    }
    if (!A.transpose && !B.transpose && !out) continue;
    // op(A) is [m, k], op(B) [k, n], C [m, n]: a stored view [rows, cols] is its transpose when trans.
    const [m, k] = A.view.trans ? [A.view.cols, A.view.rows] : [A.view.rows, A.view.cols];
    const [kb, n] = B.view.trans ? [B.view.cols, B.view.rows] : [B.view.rows, B.view.cols];
    if (kb !== k || m !== cd[2] || n !== cd[3]) continue;
    for (const t of [A.transpose, B.transpose, out]) if (t) dropped.add(t);
    replaced.set(s, {
      op: 'MatMulStrided',
      attrs: stridedAttrs(A.view, B.view, C, heads, alpha),
      inputs: [A.view.buffer, B.view.buffer],
      outputs: [C.buffer],
      node: [s.node, ...[A.transpose, B.transpose, out].filter((t): t is PlanStepDescription => t !== undefined).map((t) => t.node)].join(' + '),
    });
  }
  if (replaced.size === 0) return undefined;
  const steps = parts.steps.filter((s) => !dropped.has(s)).map((s) => replaced.get(s) ?? s);
  const merged = mergeProjections({ ...parts, steps });
  return merged ?? { ...parts, steps };
}

/**
 * Linear layers reading the same input whose outputs only strided GEMMs read at offset 0 with
 * ld = N (Q, K, V): one MatMulBias over [K, G*N] weights; the readers move to column offsets.
 */
function mergeProjections(parts: AttentionParts): AttentionParts | undefined {
  const { buffers, region, aliasOf } = parts;
  const rootOf = (id: number) => aliasOf.get(id) ?? id;
  const readersOf = (id: number) => parts.steps.filter((s) => s.inputs.some((i) => i >= 0 && rootOf(i) === id));
  const constantData = (id: number) => parts.constants.find((c) => c.buffer === id)?.data;
  const groups = new Map<string, PlanStepDescription[]>();
  for (const s of parts.steps) {
    if (s.op !== 'MatMulBias' || s.inputs.length !== 3) continue;
    const [x, w, bias] = s.inputs;
    const out = s.outputs[0];
    const wd = buffers[w].dims;
    if (wd.length !== 2 || region.get(w) !== 'constant' || region.get(bias) !== 'constant' || region.get(out) !== 'temp') continue;
    if (!constantData(w) || !constantData(bias)) continue;
    const n = wd[1];
    const uses = readersOf(out);
    const viaStrided = uses.length > 0 && uses.every((r) => r.op === 'MatMulStrided' && r.inputs.every((i, slot) => rootOf(i) !== out || (r.attrs[12 + slot] === 0 && r.attrs[5 + slot] === n)));
    if (!viaStrided || readersOf(w).length !== 1 || readersOf(bias).length !== 1) continue;
    const key = `${x}|${wd[0]}|${n}|${buffers[w].dtype}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  let steps = parts.steps;
  const buffersOut = [...buffers];
  let constants = parts.constants;
  const regionOut = new Map(region);
  let changed = false;
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const [x] = group[0].inputs;
    const [rowsK, n] = buffers[group[0].inputs[1]].dims;
    const g = group.length;
    const weights = group.map((s) => constantData(s.inputs[1])!);
    const biases = group.map((s) => constantData(s.inputs[2])!);
    const Typed = weights[0].constructor as new (n: number) => Float32Array | Uint16Array;
    if (!weights.every((w) => w.constructor === Typed) || !biases.every((b) => b.constructor === Typed)) continue;
    const w = new Typed(rowsK * g * n);
    for (let r = 0; r < rowsK; r++) {
      for (let i = 0; i < g; i++) w.set((weights[i] as Float32Array | Uint16Array).subarray(r * n, (r + 1) * n), (r * g + i) * n);
    }
    const bias = new Typed(g * n);
    biases.forEach((b, i) => bias.set(b as Float32Array | Uint16Array, i * n));
    const element = buffers[group[0].inputs[1]].bytes / (rowsK * n);
    const first = group[0];
    const outDims = [...buffers[first.outputs[0]].dims.slice(0, -1), g * n];
    const add = (name: string, dims: number[], kind: BufferRegion) => {
      buffersOut.push({ offset: -1, bytes: dims.reduce((p, d) => p * d, 1) * element, dtype: buffers[first.inputs[1]].dtype, dims, name });
      regionOut.set(buffersOut.length - 1, kind);
      return buffersOut.length - 1;
    };
    const wId = add(`${buffers[first.inputs[1]].name}:merged`, [rowsK, g * n], 'constant');
    const bId = add(`${buffers[first.inputs[2]].name}:merged`, [g * n], 'constant');
    const yId = add(`${buffers[first.outputs[0]].name}:merged`, outDims, 'temp');
    const gone = new Set(group.flatMap((s) => [s.inputs[1], s.inputs[2]]));
    constants = [...constants.filter((c) => !gone.has(c.buffer)), { buffer: wId, data: w }, { buffer: bId, data: bias }];
    for (const id of gone) regionOut.set(id, 'temp'); // no longer uploaded nor read
    const column = new Map(group.map((s, i) => [s.outputs[0], i * n]));
    const mergedStep: PlanStepDescription = { op: 'MatMulBias', attrs: [], inputs: [x, wId, bId], outputs: [yId], node: group.map((s) => s.node).join(' + ') };
    steps = steps
      .filter((s) => s === first || !group.includes(s))
      .map((s) => {
        if (s === first) return mergedStep;
        if (s.op !== 'MatMulStrided' || !s.inputs.some((i) => column.has(rootOf(i)))) return s;
        const attrs = [...s.attrs];
        const inputs = s.inputs.map((i, slot) => {
          const at = column.get(rootOf(i));
          if (at === undefined) return i;
          attrs[5 + slot] = g * n; // lda / ldb
          attrs[12 + slot] += at; // offsetA / offsetB
          return yId;
        });
        return { ...s, attrs, inputs };
      });
    changed = true;
  }
  return changed ? { ...parts, steps, buffers: buffersOut, constants, region: regionOut } : undefined;
}
