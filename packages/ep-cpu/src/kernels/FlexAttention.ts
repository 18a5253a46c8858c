/**
 * ai.onnx.preview FlexAttention (preview opset 1): attention over 4-D [B, H, S, D] inputs whose
 * scores and probabilities pass through optional subgraphs: Y = prob_mod(softmax(score_mod(Q·Kᵀ·scale)))·V.
 * The subgraphs see whole [B, Hq, L, S] tensors in the softmax precision (float32, or float64 for
 * float64 inputs, unless softmax_precision names another float type). GQA: query head h reads KV
 * head ⌊h / (Hq / Hkv)⌋.
 */
import {
  SwitchyardError,
  Tensor,
  defineKernel,
  float32ToBfloat16Bits,
  float32ToFloat16Array,
  nodeLabel,
  type DataType,
  type Graph,
  type KernelRunContext,
} from '@switchyard/core';
import { softmaxInPlace } from '../nn/attention.js';
import { floatData, floatOutput } from '../nn/float-io.js';

/** TensorProto float type codes → element types. */
const PRECISION_TYPES: Readonly<Record<number, DataType>> = { 1: 'float32', 10: 'float16', 11: 'float64', 16: 'bfloat16' };

/** Values as a tensor of the given float type (rounded to it). */
function floatTensor(type: DataType, values: Float64Array, dims: readonly number[]): Tensor {
  if (type === 'float64') return new Tensor('float64', values, dims);
  const f32 = Float32Array.from(values);
  if (type === 'float32') return new Tensor('float32', f32, dims);
  const bits = new Uint16Array(f32.length);
  if (type === 'float16') float32ToFloat16Array(f32, bits);
  else for (let i = 0; i < f32.length; i++) bits[i] = float32ToBfloat16Bits(f32[i]);
  return new Tensor(type, bits, dims);
}

/** Runs a modifier subgraph on `values` ([B, Hq, L, S] in `type`) and returns its output as float64. */
async function applyModifier(ctx: KernelRunContext, label: string, name: string, graph: Graph, type: DataType, values: Float64Array, dims: readonly number[]): Promise<Float64Array> {
  if (graph.inputs.length !== 1 || graph.outputs.length !== 1) {
    throw new SwitchyardError('INVALID_GRAPH', `${label}: ${name} must have exactly one input and one output`);
  }
  const [out] = await ctx.runSubgraph(graph, new Map([[graph.inputs[0].name, floatTensor(type, values, dims)]]));
  if (!(out instanceof Tensor) || out.dims.length !== dims.length || out.dims.some((d, i) => d !== dims[i])) {
    throw new SwitchyardError('INVALID_SHAPE', `${label}: ${name} must return a tensor of shape [${dims.join(', ')}]`);
  }
  return Float64Array.from(floatData(out, `${name} output`));
}

export const flexAttentionKernel = defineKernel({
  ep: 'cpu',
  domain: 'ai.onnx.preview',
  opType: 'FlexAttention',
  sinceVersion: 1,
  typeConstraints: { T1: ['bfloat16', 'float16', 'float32', 'float64'] },
  create: ({ node, attrs }) => {
    const label = `node '${nodeLabel(node)}' (FlexAttention)`;
    const scoreMod = attrs.has('score_mod') ? attrs.graph('score_mod') : undefined;
    const probMod = attrs.has('prob_mod') ? attrs.graph('prob_mod') : undefined;
    const precision = attrs.has('softmax_precision') ? attrs.int('softmax_precision') : undefined;
    if (precision !== undefined && !PRECISION_TYPES[precision]) {
      throw new SwitchyardError('INVALID_ARGUMENT', `${label}: softmax_precision must be 1, 10, 11 or 16 (a float TensorProto type), got ${precision}`);
    }
    const scaleAttr = attrs.has('scale') ? attrs.float('scale') : undefined;
    return {
      async run(ctx) {
        const Q = ctx.input(0);
        const K = ctx.input(1);
        const V = ctx.input(2);
        const shapeError = (msg: string) => new SwitchyardError('INVALID_SHAPE', `${label}: ${msg}`);
        if (Q.dims.length !== 4 || K.dims.length !== 4 || V.dims.length !== 4) {
          throw shapeError(`Q, K and V must be 4-D, got [${Q.dims.join(', ')}], [${K.dims.join(', ')}], [${V.dims.join(', ')}]`);
        }
        if (K.type !== Q.type || V.type !== Q.type) throw new SwitchyardError('INVALID_ARGUMENT', `${label}: Q, K and V must share one type, got ${Q.type}, ${K.type}, ${V.type}`);
        const [batch, qHeads, qLen, headSize] = Q.dims;
        const [, kvHeads, kvLen] = K.dims;
        const vHeadSize = V.dims[3];
        if (K.dims[0] !== batch || V.dims[0] !== batch) throw shapeError(`Q, K and V must share the batch size ${batch}`);
        if (K.dims[3] !== headSize) throw shapeError(`K's head size ${K.dims[3]} differs from Q's ${headSize}`);
        if (V.dims[1] !== kvHeads || V.dims[2] !== kvLen) throw shapeError(`V [${V.dims.join(', ')}] must share K's heads and length`);
        if (kvHeads <= 0 || qHeads % kvHeads !== 0) throw shapeError(`q heads (${qHeads}) must be a multiple of kv heads (${kvHeads})`);
        const computeType = precision !== undefined ? PRECISION_TYPES[precision] : Q.type === 'float64' ? 'float64' : 'float32';
        const scale = scaleAttr ?? 1 / Math.sqrt(headSize);
        const group = qHeads / kvHeads;
        const q = floatData(Q);
        const k = floatData(K);
        const v = floatData(V);
        const scoreDims = [batch, qHeads, qLen, kvLen];
        let scores: Float64Array = new Float64Array(batch * qHeads * qLen * kvLen);
        for (let bh = 0; bh < batch * qHeads; bh++) {
          const kvHead = Math.floor(bh / qHeads) * kvHeads + Math.floor((bh % qHeads) / group);
          for (let i = 0; i < qLen; i++) {
            const qBase = (bh * qLen + i) * headSize;
            for (let j = 0; j < kvLen; j++) {
              const kBase = (kvHead * kvLen + j) * headSize;
              let dot = 0;
              for (let t = 0; t < headSize; t++) dot += q[qBase + t] * k[kBase + t];
              scores[(bh * qLen + i) * kvLen + j] = dot * scale;
            }
          }
        }
        if (scoreMod) scores = await applyModifier(ctx, label, 'score_mod', scoreMod, computeType, scores, scoreDims);
        for (let r = 0; r < batch * qHeads * qLen; r++) softmaxInPlace(scores.subarray(r * kvLen, (r + 1) * kvLen));
        if (probMod) scores = await applyModifier(ctx, label, 'prob_mod', probMod, computeType, scores, scoreDims);
        const y = floatOutput(ctx, 0, V.type, [batch, qHeads, qLen, vHeadSize]);
        const acc = new Float64Array(vHeadSize);
        for (let bh = 0; bh < batch * qHeads; bh++) {
          const kvHead = Math.floor(bh / qHeads) * kvHeads + Math.floor((bh % qHeads) / group);
          for (let i = 0; i < qLen; i++) {
            acc.fill(0);
            const pBase = (bh * qLen + i) * kvLen;
            for (let j = 0; j < kvLen; j++) {
              const w = scores[pBase + j];
              const vBase = (kvHead * kvLen + j) * vHeadSize;
              for (let t = 0; t < vHeadSize; t++) acc[t] += w * v[vBase + t];
            }
            y.data.set(acc, (bh * qLen + i) * vHeadSize);
          }
        }
        return [y.commit()];
      },
    };
  },
});
