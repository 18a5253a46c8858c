/**
 * The opset-23 transformer ops as rocm runs them: ONNX Attention on the fused attention kernel
 * (native `OnnxAttention`: Q·Kᵀ, mask, softmax and ·V in one kernel, K/V heads shared for GQA),
 * RMSNormalization on a row kernel and RotaryEmbedding on an elementwise one. What the kernels do
 * not serve -- a KV cache, the extra outputs, softcap, sliding windows, nonpad_kv_seqlen, a V head
 * size unlike Q's, heads deeper than 128, an odd rotary dim -- is declined when the EP claims the
 * node, so those nodes stay with the next EP (the CPU EP serves all).
 */
import { AttributeReader, SwitchyardError, type Graph, type Node } from '@switchyard/core';
import type { StepSpec } from './step-encoders.js';
import { constantOf, elemTypeOf, given, normalizeAxis, product, rankOf, staticDims, used } from './graph-values.js';

/** The attention kernel's deepest head (kernels/launch.h kAttentionMaxDepth). */
export const ATTENTION_MAX_HEAD_SIZE = 128;

/** A dim when it is a known number. */
function dimAt(graph: Graph, name: string, axis: number): number | undefined {
  const t = graph.typeOf(name);
  if (t?.kind !== 'tensor' || !t.shape) return undefined;
  const d = t.shape[axis < 0 ? t.shape.length + axis : axis];
  return typeof d === 'number' ? d : undefined;
}

interface AttentionHeads {
  packed: boolean;
  qHeads?: number;
  kvHeads?: number;
  /** Q's and V's head sizes when known. */
  qkSize?: number;
  vSize?: number;
}

/** Head counts and sizes from the ranks, the dims that are known and the 3-D form's attributes. */
function attentionHeads(node: Node, graph: Graph): AttentionHeads | string {
  const [q, k, v] = node.inputs;
  const ranks = [q, k, v].map((n) => rankOf(graph, n));
  if (ranks.some((r) => r === undefined)) return 'the ranks of Q, K and V must be known';
  if (!ranks.every((r) => r === ranks[0]) || (ranks[0] !== 3 && ranks[0] !== 4)) return 'Q, K and V must all be 3-D or all 4-D';
  const attrs = new AttributeReader(node);
  if (ranks[0] === 4) {
    return { packed: false, qHeads: dimAt(graph, q, 1), kvHeads: dimAt(graph, k, 1), qkSize: dimAt(graph, q, 3), vSize: dimAt(graph, v, 3) };
  }
  const qHeads = attrs.int('q_num_heads', 0);
  const kvHeads = attrs.int('kv_num_heads', 0);
  if (qHeads <= 0 || kvHeads <= 0) return '3-D Q/K/V need positive q_num_heads and kv_num_heads';
  const hidden = (name: string) => dimAt(graph, name, 2);
  const split = (n: number | undefined, heads: number) => (n !== undefined && n % heads === 0 ? n / heads : undefined);
  return { packed: true, qHeads, kvHeads, qkSize: split(hidden(q), qHeads), vSize: split(hidden(v), kvHeads) };
}

/** Claim-time limits of ONNX Attention on rocm (shapes may still be symbolic). */
export function attentionLimits(node: Node, graph: Graph): true | string {
  const attrs = new AttributeReader(node);
  if (given(node, 4) || given(node, 5)) return 'a KV cache (past_key / past_value) is not run on rocm';
  if (given(node, 6)) return 'nonpad_kv_seqlen is not run on rocm';
  if ([1, 2, 3].some((i) => used(node, i))) return 'only output Y is produced on rocm (present_key / present_value / qk_matmul_output are used)';
  if (attrs.float('softcap', 0) !== 0) return 'softcap is not run on rocm';
  if (attrs.int('left_window_size', -1) !== -1 || attrs.int('right_window_size', -1) !== -1) return 'sliding-window attention is not run on rocm';
  const heads = attentionHeads(node, graph);
  if (typeof heads === 'string') return heads;
  if (heads.qkSize === undefined || heads.vSize === undefined) return 'the head sizes of Q and V must be known when the plan is built';
  if (heads.vSize !== heads.qkSize) return `V's head size ${heads.vSize} differs from Q's ${heads.qkSize}: the rocm kernel needs them equal`;
  if (heads.qkSize > ATTENTION_MAX_HEAD_SIZE) return `head size ${heads.qkSize} is above the rocm kernel's ${ATTENTION_MAX_HEAD_SIZE}`;
  if (heads.qHeads !== undefined && heads.kvHeads !== undefined && (heads.kvHeads <= 0 || heads.qHeads % heads.kvHeads !== 0)) {
    return `q heads (${heads.qHeads}) are not a multiple of kv heads (${heads.kvHeads})`;
  }
  if (given(node, 3)) {
    const maskType = elemTypeOf(graph, node.inputs[3]);
    const qType = elemTypeOf(graph, node.inputs[0]);
    if (maskType !== 'bool' && maskType !== qType) return `attn_mask of type ${maskType} with ${qType} Q is not run on rocm (bool, or Q's type)`;
    const rank = rankOf(graph, node.inputs[3]);
    if (rank === undefined || rank < 1 || rank > 4) return 'attn_mask must have a known rank of 1 to 4';
  }
  return true;
}

/**
 * Attention → `OnnxAttention` step (step_ops_onnx_attention.cc): [batch, qHeads, kvHeads, seqQ,
 * seqK, depth, packed, causal, scale, maskB, maskH, maskQ, maskW].
 */
export function encodeOnnxAttention(node: Node, graph: Graph, attrs: AttributeReader): StepSpec {
  const fail = (msg: string) => new SwitchyardError('UNSUPPORTED', `Attention '${node.name}': ${msg}`);
  const dims = (i: number) => {
    const d = staticDims(graph, node.inputs[i]);
    if (!d) throw new SwitchyardError('RUNTIME', `rocm plan: the shape of '${node.inputs[i]}' is not static at plan time`);
    return d;
  };
  const q = dims(0);
  const k = dims(1);
  const packed = q.length === 3;
  const batch = q[0];
  const qHeads = packed ? attrs.int('q_num_heads') : q[1];
  const kvHeads = packed ? attrs.int('kv_num_heads') : k[1];
  const seqQ = packed ? q[1] : q[2];
  const seqK = packed ? k[1] : k[2];
  const depth = packed ? q[2] / qHeads : q[3];
  const scale = attrs.has('scale') ? attrs.float('scale') : 1 / Math.sqrt(depth);
  let mask = [0, 0, 0, 0];
  if (given(node, 3)) {
    const m = dims(3);
    mask = [...new Array<number>(4 - m.length).fill(1), ...m];
    const [mb, mh, mq, mw] = mask;
    if ((mb !== 1 && mb !== batch) || (mh !== 1 && mh !== qHeads) || (mq !== 1 && mq !== seqQ) || mw < 1 || mw > seqK) {
      throw fail(`attn_mask [${m.join(', ')}] does not broadcast to [${batch}, ${qHeads}, ${seqQ}, ≤${seqK}]`);
    }
  }
  const causal = attrs.int('is_causal', 0) !== 0 ? 1 : 0;
  return {
    op: 'OnnxAttention',
    attrs: [batch, qHeads, kvHeads, seqQ, seqK, depth, packed ? 1 : 0, causal, scale, ...mask],
    inputs: given(node, 3) ? [0, 1, 2, 3] : [0, 1, 2],
    outputs: [0],
  };
}

/** Scale's dims without leading ones: what must equal the normalized dims' for a per-row scale. */
function trimOnes(dims: readonly number[]): readonly number[] {
  const first = dims.findIndex((d) => d !== 1);
  return first === -1 ? [] : dims.slice(first);
}

/** Claim-time limits of RMSNormalization on rocm. */
export function rmsNormLimits(node: Node, graph: Graph): true | string {
  const rank = rankOf(graph, node.inputs[0]);
  if (rank === undefined) return 'the input rank must be known';
  const axis = normalizeAxis(new AttributeReader(node).int('axis', -1), rank);
  if (axis === undefined) return 'axis out of range';
  const xType = elemTypeOf(graph, node.inputs[0]);
  if (elemTypeOf(graph, node.inputs[1]) !== xType) return 'a Scale of another type than X is not run on rocm';
  const x = staticDims(graph, node.inputs[0]);
  const scale = staticDims(graph, node.inputs[1]) ?? constantOf(graph, node.inputs[1])?.dims;
  if (!scale) return "Scale's shape must be known";
  const norm = x ? x.slice(axis) : undefined;
  if (norm && trimOnes(scale).join(',') !== trimOnes(norm).join(',')) {
    return `Scale [${scale.join(', ')}] must span the normalized dims [${norm.join(', ')}] (rocm does not broadcast it within a row)`;
  }
  return true;
}

/** RMSNormalization → `RMSNormalization` step: [rows, cols, epsilon]. */
export function encodeRmsNorm(node: Node, graph: Graph, attrs: AttributeReader): StepSpec {
  const x = staticDims(graph, node.inputs[0]);
  if (!x) throw new SwitchyardError('RUNTIME', `rocm plan: the shape of '${node.inputs[0]}' is not static at plan time`);
  const scale = staticDims(graph, node.inputs[1]) ?? [];
  const axis = normalizeAxis(attrs.int('axis', -1), x.length)!;
  const cols = product(x, axis);
  if (product(scale) !== cols) throw new SwitchyardError('UNSUPPORTED', `RMSNormalization '${node.name}': Scale does not span the normalized dims`);
  return { op: 'RMSNormalization', attrs: [product(x, 0, axis), cols, attrs.float('epsilon', 1e-5)], inputs: [0, 1], outputs: [0] };
}

/** X's head count and head size for RotaryEmbedding (4-D [B, H, S, D] or 3-D with num_heads), when known. */
function rotaryHeads(node: Node, graph: Graph): { packed: boolean; heads?: number; headSize?: number } | string {
  const rank = rankOf(graph, node.inputs[0]);
  if (rank !== 3 && rank !== 4) return 'the input must have a known rank of 3 or 4';
  if (rank === 4) return { packed: false, heads: dimAt(graph, node.inputs[0], 1), headSize: dimAt(graph, node.inputs[0], 3) };
  const heads = new AttributeReader(node).int('num_heads', 0);
  if (heads <= 0) return '3-D input needs a positive num_heads';
  const hidden = dimAt(graph, node.inputs[0], 2);
  return { packed: true, heads, headSize: hidden !== undefined && hidden % heads === 0 ? hidden / heads : undefined };
}

/** Claim-time limits of RotaryEmbedding on rocm. */
export function rotaryLimits(node: Node, graph: Graph): true | string {
  const heads = rotaryHeads(node, graph);
  if (typeof heads === 'string') return heads;
  if (heads.headSize === undefined) return 'the head size must be known when the plan is built';
  const rotDim = new AttributeReader(node).int('rotary_embedding_dim', 0) || heads.headSize;
  if (rotDim < 2 || rotDim % 2 !== 0 || rotDim > heads.headSize) return `rotary_embedding_dim ${rotDim} must be even and at most the head size ${heads.headSize}`;
  const cacheRank = rankOf(graph, node.inputs[1]);
  const expected = given(node, 3) ? 2 : 3;
  if (cacheRank !== expected) return `the caches must be ${expected}-D ${given(node, 3) ? 'with' : 'without'} position_ids`;
  return true;
}

/** RotaryEmbedding → `RotaryEmbedding` step: [batch, heads, seq, headSize, packed, rotDim, interleaved, posBatch, cacheBatch]. */
export function encodeRotary(node: Node, graph: Graph, attrs: AttributeReader): StepSpec {
  const dims = (i: number) => {
    const d = staticDims(graph, node.inputs[i]);
    if (!d) throw new SwitchyardError('RUNTIME', `rocm plan: the shape of '${node.inputs[i]}' is not static at plan time`);
    return d;
  };
  const x = dims(0);
  const packed = x.length === 3;
  const heads = packed ? attrs.int('num_heads') : x[1];
  const seq = packed ? x[1] : x[2];
  const headSize = packed ? x[2] / heads : x[3];
  const rotDim = attrs.int('rotary_embedding_dim', 0) || headSize;
  const positions = given(node, 3);
  const posBatch = positions ? dims(3)[0] : 0;
  const cacheBatch = positions ? 0 : dims(1)[0];
  return {
    op: 'RotaryEmbedding',
    attrs: [x[0], heads, seq, headSize, packed ? 1 : 0, rotDim, attrs.int('interleaved', 0) !== 0 ? 1 : 0, posBatch, cacheBatch],
    inputs: positions ? [0, 1, 2, 3] : [0, 1, 2],
    outputs: [0],
  };
}
