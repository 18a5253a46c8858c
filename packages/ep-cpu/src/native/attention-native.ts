/**
 * ONNX Attention with its two matmuls on oneDNN (the StridedMatMul primitive the BERT attention
 * fusion uses): scale · Q·Kᵀ with K's transpose read as strides, then P·V. Softcap, the bias (mask,
 * causal frontier, window, padding) and the softmax stay in TS, one row at a time (nn/attention.ts).
 * GQA needs no copies: the query heads of one KV head are contiguous, so Q [B, Hq, S, D] is read as
 * [B, Hkv, group·S, D] against K [B, Hkv, T, D]. float32 only; anything else runs the TS kernel.
 */
import type { Graph, Kernel, KernelDef, KernelInit, KernelRunContext, Node } from '@switchyard/core';
import type { NativeBinding, StridedMatMulPrimitive } from './binding.js';
import { withNativeErrors } from './native-errors.js';
import { dispatchFor, float32Reason } from './native-support.js';
import { PrimitiveCache } from './primitive-cache.js';
import { ATTENTION_TYPES, attentionKernel, finishAttention, prepareAttention, readAttentionAttrs } from '../kernels/Attention.js';
import { attentionRow, scaledDotProductAttention } from '../nn/attention.js';

/**
 * The oneDNN path holds all scores [B, Hq, Sq, T] at once; past this many (256 MiB of float32, a
 * long-context prefill) the TS kernel runs instead, holding one row of scores at a time.
 */
const MAX_SCORES = 1 << 26;

function supportsAttention(node: Node, graph: Graph): true | string {
  const [q, k, v] = node.inputs;
  if (!q || !k || !v) return 'Attention needs Q, K and V';
  return float32Reason(graph, q, 'Q') ?? float32Reason(graph, k, 'K') ?? float32Reason(graph, v, 'V') ?? true;
}

function createAttention(binding: NativeBinding, Primitive: NonNullable<NativeBinding['StridedMatMulPrimitive']>, init: KernelInit): Kernel {
  const { node } = init;
  const attrs = readAttentionAttrs(init);
  const cache = new PrimitiveCache<StridedMatMulPrimitive>();
  const matmul = async (aDims: number[], bDims: number[], transposeB: boolean, scale: number, a: Float32Array, b: Float32Array, y: Float32Array, macs: number, threads: number) => {
    const dispatch = dispatchFor(binding, threads, macs);
    const key = `${aDims.join(',')}|${bDims.join(',')}|${transposeB}|${scale}|${dispatch.threads}`;
    await withNativeErrors(node, () => {
      const primitive = cache.get(key, () => new Primitive({ aDims, bDims, permB: transposeB ? [0, 1, 3, 2] : undefined, scale, threads: dispatch.threads }));
      return dispatch.inline ? primitive.runSync(a, b, null, y) : primitive.run(a, b, null, y);
    });
  };
  return {
    implementation: 'onednn',
    async run(ctx: KernelRunContext) {
      const prepared = prepareAttention(attrs, ctx);
      const p = prepared.problem;
      const { batch, qHeads, kvHeads, qLen, kvLen, headSize, vHeadSize } = p;
      const floats = p.q instanceof Float32Array && p.k instanceof Float32Array && p.v instanceof Float32Array && p.y instanceof Float32Array;
      const scoreCount = batch * qHeads * qLen * kvLen;
      if (!floats || scoreCount * headSize * vHeadSize === 0 || scoreCount > MAX_SCORES) {
        scaledDotProductAttention(p);
        return finishAttention(prepared);
      }
      const rows = (qHeads / kvHeads) * qLen;
      const scores = new Float32Array(scoreCount);
      const q = p.q as Float32Array;
      await matmul([batch, kvHeads, rows, headSize], [batch, kvHeads, kvLen, headSize], true, p.scale, q, p.k as Float32Array, scores, scores.length * headSize, ctx.threads);
      const row = new Float64Array(kvLen);
      const bias = new Float64Array(kvLen);
      for (let b = 0; b < batch; b++) {
        for (let h = 0; h < qHeads; h++) {
          for (let i = 0; i < qLen; i++) {
            const at = ((b * qHeads + h) * qLen + i) * kvLen;
            for (let j = 0; j < kvLen; j++) row[j] = scores[at + j];
            attentionRow(p, b, h, i, row, bias);
            scores.set(row, at);
          }
        }
      }
      const y = p.y as Float32Array;
      const headMajorY = p.yTokenMajor ? new Float32Array(y.length) : y;
      await matmul([batch, kvHeads, rows, kvLen], [batch, kvHeads, kvLen, vHeadSize], false, 1, scores, p.v as Float32Array, headMajorY, y.length * kvLen, ctx.threads);
      if (p.yTokenMajor) {
        // [B, Hq, S, Dv] → the packed [B, S, Hq·Dv].
        for (let b = 0; b < batch; b++) {
          for (let h = 0; h < qHeads; h++) {
            for (let i = 0; i < qLen; i++) {
              const from = ((b * qHeads + h) * qLen + i) * vHeadSize;
              y.set(headMajorY.subarray(from, from + vHeadSize), ((b * qLen + i) * qHeads + h) * vHeadSize);
            }
          }
        }
      }
      return finishAttention(prepared);
    },
    dispose() {
      cache.dispose();
    },
  };
}

/** The Attention def on oneDNN matmuls, when the addon has the StridedMatMul primitive. */
export function nativeAttentionKernels(binding: NativeBinding): KernelDef[] {
  const Primitive = binding.StridedMatMulPrimitive;
  if (!Primitive) return [];
  return [
    {
      ep: 'cpu',
      domain: '',
      opType: 'Attention',
      sinceVersion: attentionKernel.sinceVersion,
      typeConstraints: { ...ATTENTION_TYPES, T1: ['float32'], T2: ['float32'] },
      implementation: 'onednn',
      supports: supportsAttention,
      create: (init) => createAttention(binding, Primitive, init),
    },
  ];
}
