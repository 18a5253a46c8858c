/**
 * Attention as one kernel. After the attention fold (attention-fold.ts), a batch-1 self-attention
 * layer is four steps: Q·Kᵀ as a strided GEMM with the 1/√D scale as alpha, an Add of the additive
 * mask (optional), Softmax over the keys, and P·V as a strided GEMM. Each writes a [H, S, S] score
 * tensor that the next reads back; at BERT-base's sequence 128 those are small kernels whose launch
 * and memory trips cost more than their arithmetic. native-hip's Attention step does the four at
 * once (kernels/attention.hip), reading Q, K and V where the GEMMs read them and writing where P·V
 * wrote, at P·V's place in the step list (by then the mask and V exist, whatever order they came in).
 *
 * The chain must be exactly that: each intermediate a temp read by the next step alone, the scores
 * dense [H, Sq, Sk], the mask broadcastable to them, and a head depth the kernel serves.
 */
import type { AttentionParts } from './attention-fold.js';
import type { PlanStepDescription } from './plan-description.js';

/** native-hip's kernels::kAttentionMaxDepth. */
export const ATTENTION_MAX_DEPTH = 128;

/** MatMulStrided's attrs, by name (attention-fold.ts `stridedAttrs`). */
function strided(s: PlanStepDescription) {
  const [transA, transB, m, n, k, lda, ldb, ldc, batch, strideA, strideB, strideC, offsetA, offsetB, offsetC, alpha] = s.attrs;
  return { transA, transB, m, n, k, lda, ldb, ldc, batch, strideA, strideB, strideC, offsetA, offsetB, offsetC, alpha };
}

/** Element strides of `dims` read as broadcast to [heads, rows, cols] (0 along a broadcast axis); undefined when it does not broadcast. */
export function broadcastStrides(dims: readonly number[], heads: number, rows: number, cols: number): [number, number, number] | undefined {
  const target = [heads, rows, cols];
  // Leading axes beyond the last three must be 1 (batch 1).
  if (dims.slice(0, Math.max(0, dims.length - 3)).some((d) => d !== 1)) return undefined;
  const tail = dims.slice(-3);
  const padded = [...Array(3 - tail.length).fill(1), ...tail];
  const strides: [number, number, number] = [0, 0, 0];
  let step = 1;
  for (let axis = 2; axis >= 0; axis--) {
    const d = padded[axis];
    if (d !== 1 && d !== target[axis]) return undefined;
    strides[axis] = d === 1 ? 0 : step;
    step *= d;
  }
  return strides;
}

export function fuseAttention(parts: AttentionParts): AttentionParts | undefined {
  const { buffers, region, aliasOf } = parts;
  const rootOf = (id: number) => aliasOf.get(id) ?? id;
  const readers = new Map<number, PlanStepDescription[]>();
  for (const s of parts.steps) for (const id of s.inputs) if (id >= 0) readers.set(rootOf(id), [...(readers.get(rootOf(id)) ?? []), s]);
  // The one step reading `id`, when `id` is a temp nothing else reads.
  const soleReader = (id: number): PlanStepDescription | undefined => {
    const r = readers.get(rootOf(id));
    return r?.length === 1 && region.get(rootOf(id)) === 'temp' ? r[0] : undefined;
  };
  const dropped = new Set<PlanStepDescription>();
  const replaced = new Map<PlanStepDescription, PlanStepDescription>();

  for (const s of parts.steps) {
    if (s.op !== 'MatMulStrided') continue;
    const qk = strided(s);
    const heads = qk.batch;
    const [seqQ, seqK, depth] = [qk.m, qk.n, qk.k];
    // Q·Kᵀ into dense [H, Sq, Sk] scores.
    if (qk.transA !== 0 || qk.transB !== 1 || qk.ldc !== seqK || qk.strideC !== seqQ * seqK || qk.offsetC !== 0) continue;
    if (depth > ATTENTION_MAX_DEPTH || buffers[s.outputs[0]].dims.reduce((a, b) => a * b, 1) !== heads * seqQ * seqK) continue;
    let next = soleReader(s.outputs[0]);
    let mask: { id: number; strides: [number, number, number] } | undefined;
    let add: PlanStepDescription | undefined;
    if (next?.op === 'Add' && next.inputs.length === 2) {
      const scores = rootOf(s.outputs[0]);
      const other = next.inputs.find((i) => rootOf(i) !== scores);
      const strides = other !== undefined ? broadcastStrides(buffers[other].dims, heads, seqQ, seqK) : undefined;
      const sameShape = buffers[next.outputs[0]].bytes === buffers[s.outputs[0]].bytes;
      if (other === undefined || !strides || !sameShape || buffers[other].dtype !== buffers[s.outputs[0]].dtype) continue;
      mask = { id: other, strides };
      add = next;
      next = soleReader(next.outputs[0]);
    }
    if (next?.op !== 'Softmax' || next.attrs[0] !== heads * seqQ || next.attrs[1] !== seqK) continue;
    const softmax = next;
    const pv = soleReader(softmax.outputs[0]);
    if (pv?.op !== 'MatMulStrided' || rootOf(pv.inputs[0]) !== rootOf(softmax.outputs[0])) continue;
    const o = strided(pv);
    // P [H, Sq, Sk] dense as A, V [Sk, D] per head as B, alpha 1.
    if (o.transA !== 0 || o.transB !== 0 || o.alpha !== 1 || o.batch !== heads || o.m !== seqQ || o.k !== seqK || o.n !== depth) continue;
    if (o.lda !== seqK || o.strideA !== seqQ * seqK || o.offsetA !== 0) continue;
    const [m0, m1, m2] = mask?.strides ?? [0, 0, 0];
    const attrs = [heads, seqQ, seqK, depth, qk.lda, qk.strideA, qk.offsetA, qk.ldb, qk.strideB, qk.offsetB, o.ldb, o.strideB, o.offsetB, o.ldc, o.strideC, o.offsetC, m0, m1, m2, qk.alpha];
    // At P·V's place, the chain's last: every input (V, the mask) is written by then.
    replaced.set(pv, {
      op: 'Attention',
      attrs,
      inputs: [s.inputs[0], s.inputs[1], pv.inputs[1], mask?.id ?? -1],
      outputs: [pv.outputs[0]],
      node: [s, add, softmax, pv].filter((t): t is PlanStepDescription => t !== undefined).map((t) => t.node).join(' + '),
    });
    for (const t of [s, add, softmax]) if (t) dropped.add(t);
  }
  if (replaced.size === 0) return undefined;
  return { ...parts, steps: parts.steps.filter((s) => !dropped.has(s)).map((s) => replaced.get(s) ?? s) };
}
