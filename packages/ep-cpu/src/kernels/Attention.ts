/**
 * ONNX Attention (opsets 23–25): softmax(Q·Kᵀ·scale, softcapped, + bias)·V over 4-D head-major
 * [B, H, S, D] or 3-D packed [B, S, H·D] inputs, with GQA/MQA (fewer KV heads), a KV cache (past_key /
 * past_value in, present_key / present_value out), attn_mask (bool or additive, broadcast, shorter
 * than the keys), is_causal, nonpad_kv_seqlen (24+), sliding windows (25) and the qk_matmul_output
 * debug output. Half-precision inputs are computed in float64 and rounded once.
 */
import { SwitchyardError, defineKernel, nodeLabel, type KernelInit, type KernelRunContext, type Tensor } from '@switchyard/core';
import { toNumbers } from '../math/numeric.js';
import { attentionBias } from '../nn/attention-bias.js';
import { concatSequence, headMajor, scaledDotProductAttention, type AttentionProblem, type QkCapture } from '../nn/attention.js';
import { floatData, floatOutput, type FloatArray, type FloatOutput } from '../nn/float-io.js';

const FLOAT_TYPES = ['bfloat16', 'float16', 'float32', 'float64'] as const;
const MASK_TYPES = ['uint8', 'uint16', 'uint32', 'uint64', 'int8', 'int16', 'int32', 'int64', ...FLOAT_TYPES, 'bool'] as const;
/** TensorProto element types softmax_precision may name: FLOAT, FLOAT16, DOUBLE, BFLOAT16. */
const SOFTMAX_PRECISIONS = [1, 10, 11, 16];
/** The Attention schema's type constraints (T1: Q, K; T2: V; U: attn_mask). */
export const ATTENTION_TYPES = { T1: FLOAT_TYPES, T2: FLOAT_TYPES, U: MASK_TYPES };

export interface AttentionAttrs {
  label: string;
  opset: number;
  scale?: number;
  causal: boolean;
  qHeads?: number;
  kvHeads?: number;
  softcap: number;
  qkMode: QkCapture;
  leftWindow: number;
  rightWindow: number;
}

export function readAttentionAttrs({ node, attrs, opset }: KernelInit): AttentionAttrs {
  const label = `node '${nodeLabel(node)}' (Attention)`;
  const argError = (msg: string) => new SwitchyardError('INVALID_ARGUMENT', `${label}: ${msg}`);
  const qkMode = attrs.int('qk_matmul_output_mode', 0);
  if (qkMode < 0 || qkMode > 3) throw argError(`qk_matmul_output_mode must be 0..3, got ${qkMode}`);
  if (attrs.has('softmax_precision') && !SOFTMAX_PRECISIONS.includes(attrs.int('softmax_precision'))) {
    throw argError(`softmax_precision must be one of ${SOFTMAX_PRECISIONS.join(', ')} (a float TensorProto type), got ${attrs.int('softmax_precision')}`);
  }
  const leftWindow = attrs.int('left_window_size', -1);
  const rightWindow = attrs.int('right_window_size', -1);
  if (leftWindow < -1 || rightWindow < -1) throw argError(`window sizes must be -1 or nonnegative, got left ${leftWindow}, right ${rightWindow}`);
  const softcap = attrs.float('softcap', 0);
  if (!(softcap >= 0)) throw argError(`softcap must be >= 0, got ${softcap}`);
  const scale = attrs.has('scale') ? attrs.float('scale') : undefined;
  if (scale !== undefined && !Number.isFinite(scale)) throw argError(`scale must be finite, got ${scale}`);
  return {
    label,
    opset,
    scale,
    causal: attrs.int('is_causal', 0) !== 0,
    qHeads: attrs.has('q_num_heads') ? attrs.int('q_num_heads') : undefined,
    kvHeads: attrs.has('kv_num_heads') ? attrs.int('kv_num_heads') : undefined,
    softcap,
    qkMode: qkMode as QkCapture,
    leftWindow,
    rightWindow,
  };
}

interface Geometry {
  batch: number;
  qHeads: number;
  kvHeads: number;
  qLen: number;
  newLen: number;
  headSize: number;
  vHeadSize: number;
  packed: boolean;
}

/** Shapes of Q, K, V (3-D packed or 4-D head-major) and their consistency. */
function geometry(a: AttentionAttrs, Q: Tensor, K: Tensor, V: Tensor): Geometry {
  const shapeError = (msg: string) => new SwitchyardError('INVALID_SHAPE', `${a.label}: ${msg}`);
  const rank = Q.dims.length;
  if ((rank !== 3 && rank !== 4) || K.dims.length !== rank || V.dims.length !== rank) {
    throw shapeError(`Q, K and V must all be 3-D or all 4-D, got [${Q.dims.join(', ')}], [${K.dims.join(', ')}], [${V.dims.join(', ')}]`);
  }
  let g: Geometry;
  if (rank === 4) {
    if (a.opset >= 25 && (a.qHeads !== undefined || a.kvHeads !== undefined)) {
      throw new SwitchyardError('INVALID_ARGUMENT', `${a.label}: q_num_heads / kv_num_heads must not be set for 4-D inputs`);
    }
    g = { batch: Q.dims[0], qHeads: Q.dims[1], kvHeads: K.dims[1], qLen: Q.dims[2], newLen: K.dims[2], headSize: Q.dims[3], vHeadSize: V.dims[3], packed: false };
    if (K.dims[3] !== g.headSize) throw shapeError(`K's head size ${K.dims[3]} differs from Q's ${g.headSize}`);
    if (V.dims[1] !== g.kvHeads) throw shapeError(`V has ${V.dims[1]} heads, K has ${g.kvHeads}`);
    if ((a.qHeads !== undefined && a.qHeads !== g.qHeads) || (a.kvHeads !== undefined && a.kvHeads !== g.kvHeads)) {
      throw shapeError(`q_num_heads / kv_num_heads (${a.qHeads}, ${a.kvHeads}) contradict the 4-D inputs' heads (${g.qHeads}, ${g.kvHeads})`);
    }
  } else {
    const qHeads = a.qHeads ?? 0;
    const kvHeads = a.kvHeads ?? 0;
    if (qHeads <= 0 || kvHeads <= 0) throw new SwitchyardError('INVALID_ARGUMENT', `${a.label}: 3-D inputs need positive q_num_heads and kv_num_heads`);
    for (const [name, t, heads] of [['Q', Q, qHeads], ['K', K, kvHeads], ['V', V, kvHeads]] as const) {
      if (t.dims[2] % heads !== 0) throw shapeError(`${name}'s hidden size ${t.dims[2]} is not a multiple of its ${heads} heads`);
    }
    g = { batch: Q.dims[0], qHeads, kvHeads, qLen: Q.dims[1], newLen: K.dims[1], headSize: Q.dims[2] / qHeads, vHeadSize: V.dims[2] / kvHeads, packed: true };
    if (K.dims[2] / kvHeads !== g.headSize) throw shapeError(`K's head size ${K.dims[2] / kvHeads} differs from Q's ${g.headSize}`);
  }
  if (K.dims[0] !== g.batch || V.dims[0] !== g.batch) throw shapeError(`Q, K and V must share the batch size ${g.batch}`);
  const vLen = g.packed ? V.dims[1] : V.dims[2];
  if (vLen !== g.newLen) throw shapeError(`K has ${g.newLen} positions, V has ${vLen}`);
  if (g.kvHeads <= 0 || g.qHeads % g.kvHeads !== 0) throw shapeError(`q heads (${g.qHeads}) must be a multiple of kv heads (${g.kvHeads})`);
  return g;
}

/** The past cache input, checked against [batch, kvHeads, ·, size]. */
function checkPast(a: AttentionAttrs, name: string, t: Tensor, g: Geometry, size: number, type: string): number {
  const ok = t.dims.length === 4 && t.dims[0] === g.batch && t.dims[1] === g.kvHeads && t.dims[3] === size;
  if (!ok) throw new SwitchyardError('INVALID_SHAPE', `${a.label}: ${name} must be [${g.batch}, ${g.kvHeads}, past, ${size}], got [${t.dims.join(', ')}]`);
  if (t.type !== type) throw new SwitchyardError('INVALID_ARGUMENT', `${a.label}: ${name} is ${t.type}, expected ${type}`);
  return t.dims[2];
}

function readNonpad(a: AttentionAttrs, t: Tensor, g: Geometry, kvLen: number): number[] {
  if (t.type !== 'int64' || t.dims.length !== 1 || t.dims[0] !== g.batch) {
    throw new SwitchyardError('INVALID_ARGUMENT', `${a.label}: nonpad_kv_seqlen must be int64 [${g.batch}], got ${t.type} [${t.dims.join(', ')}]`);
  }
  const values = Array.from(toNumbers(t));
  for (const n of values) {
    if (!(n >= 0 && n <= kvLen)) throw new SwitchyardError('INVALID_ARGUMENT', `${a.label}: nonpad_kv_seqlen value ${n} is outside [0, ${kvLen}]`);
  }
  return values;
}

/** One run's inputs, validated and in head-major float form, with its outputs allocated. */
export interface PreparedAttention {
  problem: AttentionProblem;
  /** Y and the optional outputs, committed by `finishAttention`. */
  outputs: Array<FloatOutput | undefined>;
  outputCount: number;
}

/** Validates a run's inputs and builds the attention problem (K/V with the past, the bias, the outputs). */
export function prepareAttention(a: AttentionAttrs, ctx: KernelRunContext): PreparedAttention {
  const Q = ctx.input(0);
  const K = ctx.input(1);
  const V = ctx.input(2);
  const mask = ctx.optionalInput(3);
  const pastKey = ctx.optionalInput(4);
  const pastValue = ctx.optionalInput(5);
  const nonpadT = ctx.optionalInput(6);
  if (K.type !== Q.type) throw new SwitchyardError('INVALID_ARGUMENT', `${a.label}: K is ${K.type}, Q is ${Q.type}`);
  const g = geometry(a, Q, K, V);
  if (mask && !(MASK_TYPES as readonly string[]).includes(mask.type)) throw new SwitchyardError('INVALID_ARGUMENT', `${a.label}: attn_mask of type ${mask.type} is not served`);
  for (const t of [Q, V]) if (!(FLOAT_TYPES as readonly string[]).includes(t.type)) throw new SwitchyardError('INVALID_ARGUMENT', `${a.label}: Q, K and V must be float tensors, got ${t.type}`);
  if (!!pastKey !== !!pastValue) throw new SwitchyardError('INVALID_ARGUMENT', `${a.label}: past_key and past_value come together`);
  if (nonpadT && pastKey) throw new SwitchyardError('INVALID_ARGUMENT', `${a.label}: nonpad_kv_seqlen cannot be combined with past_key / past_value`);
  const pastLen = pastKey ? checkPast(a, 'past_key', pastKey, g, g.headSize, Q.type) : 0;
  if (pastValue && checkPast(a, 'past_value', pastValue, g, g.vHeadSize, V.type) !== pastLen) {
    throw new SwitchyardError('INVALID_SHAPE', `${a.label}: past_key and past_value hold different lengths`);
  }
  const kvLen = pastLen + g.newLen;
  const nonpad = nonpadT ? readNonpad(a, nonpadT, g, kvLen) : undefined;

  const q = g.packed ? headMajor(floatData(Q), g.batch, g.qLen, g.qHeads, g.headSize) : floatData(Q);
  const kNew = g.packed ? headMajor(floatData(K), g.batch, g.newLen, g.kvHeads, g.headSize) : floatData(K);
  const vNew = g.packed ? headMajor(floatData(V), g.batch, g.newLen, g.kvHeads, g.vHeadSize) : floatData(V);
  const outs = ctx.node.outputs;
  const presentKey = outs[1] ? floatOutput(ctx, 1, K.type, [g.batch, g.kvHeads, kvLen, g.headSize]) : undefined;
  const presentValue = outs[2] ? floatOutput(ctx, 2, V.type, [g.batch, g.kvHeads, kvLen, g.vHeadSize]) : undefined;
  const withPast = (past: Tensor | undefined, cur: FloatArray, size: number, present: FloatArray | undefined): FloatArray => {
    if (!past) {
      present?.set(cur);
      return cur;
    }
    const all = present ?? (cur instanceof Float64Array ? new Float64Array(g.batch * g.kvHeads * kvLen * size) : new Float32Array(g.batch * g.kvHeads * kvLen * size));
    concatSequence(floatData(past), cur, g.batch * g.kvHeads, pastLen, g.newLen, size, all);
    return all;
  };
  const k = withPast(pastKey, kNew, g.headSize, presentKey?.data);
  const v = withPast(pastValue, vNew, g.vHeadSize, presentValue?.data);

  const yDims = g.packed ? [g.batch, g.qLen, g.qHeads * g.vHeadSize] : [g.batch, g.qHeads, g.qLen, g.vHeadSize];
  const y = floatOutput(ctx, 0, Q.type, yDims);
  const qk = outs[3] ? floatOutput(ctx, 3, Q.type, [g.batch, g.qHeads, g.qLen, kvLen]) : undefined;
  const biasRow = attentionBias(a.label, {
    batch: g.batch,
    qHeads: g.qHeads,
    qLen: g.qLen,
    kvLen,
    mask,
    causal: a.causal,
    leftWindow: a.leftWindow,
    rightWindow: a.rightWindow,
    pastLen,
    nonpad,
  });
  const problem: AttentionProblem = {
    batch: g.batch,
    qHeads: g.qHeads,
    kvHeads: g.kvHeads,
    qLen: g.qLen,
    kvLen,
    headSize: g.headSize,
    vHeadSize: g.vHeadSize,
    q,
    k,
    v,
    scale: a.scale ?? 1 / Math.sqrt(g.headSize),
    softcap: a.softcap,
    biasRow,
    y: y.data,
    yTokenMajor: g.packed,
    qk: qk?.data,
    qkMode: a.qkMode,
  };
  return { problem, outputs: [y, presentKey, presentValue, qk], outputCount: outs.length };
}

/** The node's results: Y, then each optional output requested (null where its name is empty). */
export function finishAttention(prepared: PreparedAttention): Array<Tensor | null> {
  return prepared.outputs.slice(0, Math.max(prepared.outputCount, 1)).map((out) => (out ? out.commit() : null));
}

export const attentionKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Attention',
  sinceVersion: 23,
  typeConstraints: ATTENTION_TYPES,
  create: (init) => {
    const a = readAttentionAttrs(init);
    return {
      run(ctx) {
        const prepared = prepareAttention(a, ctx);
        scaledDotProductAttention(prepared.problem);
        return finishAttention(prepared);
      },
    };
  },
});
