/**
 * Transformer and state-space ops of opsets 23–28 (Attention, RMSNormalization, RotaryEmbedding,
 * LinearAttention, CausalConvWithState, Swish, SwiGLU, CumProd, TensorScatter): output shapes and
 * element types, so the passes that need them (float16-in-float32, static-shape kernels) see
 * through these nodes. Dims that depend on unknown inputs stay unknown.
 */
import type { InferContext, ShapeRule } from '../context.js';
import type { Dim } from '../../ir/graph.js';
import { dimProduct, mapDim } from '../dims.js';
import { sameShape } from './elementwise.js';

/** A dim divided by a known count (heads), when it is a known number. */
const per = (d: Dim, count: number | undefined): Dim => (count && count > 0 ? mapDim(d, (n) => n / count) : undefined);

/** Sum of two dims when both are known numbers (past + new sequence lengths). */
const plus = (a: Dim, b: Dim): Dim => (typeof a === 'number' && typeof b === 'number' ? a + b : undefined);

function optionalInt(ctx: InferContext, name: string): number | undefined {
  return ctx.attrs.has(name) ? ctx.attrs.int(name) : undefined;
}

/** RMSNormalization: Y has X's shape and Scale's element type (V). */
const rmsNormalization: ShapeRule = (ctx) => ctx.setShape(0, ctx.shape(0), ctx.elemType(1) ?? ctx.elemType(0));

/**
 * Attention: Y [B, Hq, Sq, Dv] (4-D) or [B, Sq, Hq·Dv] (3-D); present_key / present_value
 * [B, Hkv, past + Skv, D or Dv]; qk_matmul_output [B, Hq, Sq, past + Skv].
 */
const attention: ShapeRule = (ctx) => {
  const [q, k, v] = [ctx.shape(0), ctx.shape(1), ctx.shape(2)];
  const pastLen = ctx.hasInput(4) ? ctx.shape(4)?.[2] : 0;
  let batch: Dim, qHeads: Dim, kvHeads: Dim, qLen: Dim, kvLen: Dim, headSize: Dim, vHeadSize: Dim;
  const packed = q?.length === 3;
  if (packed) {
    const qn = optionalInt(ctx, 'q_num_heads');
    const kvn = optionalInt(ctx, 'kv_num_heads');
    [batch, qLen, qHeads, kvHeads, kvLen] = [q[0], q[1], qn, kvn, k?.[1]];
    headSize = per(q[2], qn);
    vHeadSize = per(v?.[2], kvn);
  } else {
    [batch, qHeads, qLen, headSize] = q ?? [];
    [kvHeads, kvLen] = [k?.[1], k?.[2]];
    vHeadSize = v?.[3];
  }
  const total = plus(pastLen, kvLen);
  const known = q !== undefined;
  if (packed) ctx.setShape(0, [batch, qLen, dimProduct([qHeads, vHeadSize])], ctx.elemType(0));
  else ctx.setShape(0, known ? [batch, qHeads, qLen, vHeadSize] : undefined, ctx.elemType(0));
  if (ctx.hasOutput(1)) ctx.setShape(1, known ? [batch, kvHeads, total, headSize] : undefined, ctx.elemType(1));
  if (ctx.hasOutput(2)) ctx.setShape(2, known ? [batch, kvHeads, total, vHeadSize] : undefined, ctx.elemType(2));
  if (ctx.hasOutput(3)) ctx.setShape(3, known ? [batch, qHeads, qLen, total] : undefined, ctx.elemType(0));
};

/** LinearAttention: output [B, T, Hq·d_v]; present_state [B, Hkv, d_k, d_v] in past_state's type (else query's). */
const linearAttention: ShapeRule = (ctx) => {
  const [q, v] = [ctx.shape(0), ctx.shape(2)];
  const qHeads = optionalInt(ctx, 'q_num_heads');
  const kvHeads = optionalInt(ctx, 'kv_num_heads');
  const dk = per(q?.[2], qHeads);
  const dv = per(v?.[2], kvHeads);
  ctx.setShape(0, q ? [q[0], q[1], dimProduct([qHeads, dv])] : undefined, ctx.elemType(0));
  if (ctx.hasOutput(1)) ctx.setShape(1, q ? [q[0], kvHeads, dk, dv] : undefined, (ctx.hasInput(3) ? ctx.elemType(3) : undefined) ?? ctx.elemType(0));
};

/** CausalConvWithState: output has the input's shape; present_state [B, C, k − 1]. */
const causalConvWithState: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  ctx.setShape(0, x);
  const carry = mapDim(ctx.shape(1)?.[2], (k) => k - 1);
  if (ctx.hasOutput(1)) ctx.setShape(1, x ? [x[0], x[1], carry] : undefined, ctx.elemType(0));
};

export const transformerRules: Record<string, ShapeRule> = {
  Attention: attention,
  RMSNormalization: rmsNormalization,
  RotaryEmbedding: sameShape,
  LinearAttention: linearAttention,
  CausalConvWithState: causalConvWithState,
  Swish: sameShape,
  SwiGLU: sameShape,
  CumProd: sameShape,
  TensorScatter: sameShape,
};
