/**
 * RotaryEmbedding (opset 23): rotates the first `rotary_embedding_dim` features of every head vector
 * by per-position angles given as cos/sin caches, pairing feature i with i + dim/2 (halves) or
 * 2i with 2i + 1 (`interleaved`). X is [B, H, S, D] or [B, S, H·D] (`num_heads` then says H); the
 * caches are indexed by `position_ids` [B, S] when given ([positions, dim/2]), else are [B, S, dim/2].
 */
import { SwitchyardError, defineKernel, nodeLabel, simpleKernel } from '@switchyard/core';
import { floatData, floatOutput } from '../nn/float-io.js';
import { toNumbers } from '../math/numeric.js';

export const rotaryEmbeddingKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'RotaryEmbedding',
  sinceVersion: 23,
  typeConstraints: { T: ['float32', 'float16', 'bfloat16', 'float64'], M: ['int64'] },
  create: simpleKernel((ctx, init) => {
    const label = `node '${nodeLabel(init.node)}' (RotaryEmbedding)`;
    const fail = (code: 'INVALID_SHAPE' | 'INVALID_ARGUMENT', msg: string) => new SwitchyardError(code, `${label}: ${msg}`);
    const X = ctx.input(0);
    const cosT = ctx.input(1);
    const sinT = ctx.input(2);
    const posT = ctx.optionalInput(3);
    const interleaved = init.attrs.int('interleaved', 0) !== 0;
    const rank = X.dims.length;
    if (rank !== 3 && rank !== 4) throw fail('INVALID_SHAPE', `input must be 3-D or 4-D, got [${X.dims.join(', ')}]`);
    const [batch] = X.dims;
    let heads: number;
    let seq: number;
    let headSize: number;
    if (rank === 4) {
      [, heads, seq, headSize] = X.dims;
    } else {
      heads = init.attrs.int('num_heads', 0);
      seq = X.dims[1];
      if (heads <= 0 || X.dims[2] % heads !== 0) throw fail('INVALID_ARGUMENT', `3-D input needs num_heads dividing the hidden size ${X.dims[2]}, got ${heads}`);
      headSize = X.dims[2] / heads;
    }
    const rotDim = init.attrs.int('rotary_embedding_dim', 0) || headSize;
    if (rotDim % 2 !== 0 || rotDim > headSize || rotDim < 0) throw fail('INVALID_ARGUMENT', `rotary_embedding_dim ${rotDim} must be even and at most the head size ${headSize}`);
    const half = rotDim / 2;
    if (cosT.dims.join() !== sinT.dims.join()) throw fail('INVALID_SHAPE', `cos_cache [${cosT.dims.join(', ')}] and sin_cache [${sinT.dims.join(', ')}] differ`);
    if (cosT.dims[cosT.dims.length - 1] !== half) throw fail('INVALID_SHAPE', `cache last dim ${cosT.dims[cosT.dims.length - 1]} must be rotary_embedding_dim / 2 = ${half}`);
    if (cosT.type !== X.type || sinT.type !== X.type) throw fail('INVALID_ARGUMENT', `caches must be ${X.type} like the input`);

    // Row of the caches for (b, s): from position_ids, or the caches' own [B, S] layout.
    let cacheRow: (b: number, s: number) => number;
    if (posT) {
      if (cosT.dims.length !== 2) throw fail('INVALID_SHAPE', `with position_ids the caches must be 2-D, got [${cosT.dims.join(', ')}]`);
      const pb = posT.dims[0];
      if (posT.dims.length !== 2 || (pb !== batch && pb !== 1) || posT.dims[1] !== seq) {
        throw fail('INVALID_SHAPE', `position_ids [${posT.dims.join(', ')}] must be [${batch}, ${seq}]`);
      }
      const positions = toNumbers(posT);
      const maxPos = cosT.dims[0];
      for (const p of positions) if (!(p >= 0 && p < maxPos)) throw fail('INVALID_ARGUMENT', `position id ${p} is outside the caches' ${maxPos} rows`);
      cacheRow = (b, s) => positions[(pb === 1 ? 0 : b) * seq + s];
    } else {
      const [cb, cs] = cosT.dims;
      if (cosT.dims.length !== 3 || (cb !== batch && cb !== 1) || cs !== seq) {
        throw fail('INVALID_SHAPE', `without position_ids the caches must be [${batch}, ${seq}, ${half}], got [${cosT.dims.join(', ')}]`);
      }
      cacheRow = (b, s) => (cb === 1 ? 0 : b) * seq + s;
    }

    const x = floatData(X);
    const cos = floatData(cosT);
    const sin = floatData(sinT);
    const y = floatOutput(ctx, 0, X.type, X.dims);
    const out = y.data;
    out.set(x);
    const [stepA, stepB] = interleaved ? [2, 1] : [1, half]; // x1 index = i·stepA, x2 = x1 + stepB
    for (let b = 0; b < batch; b++) {
      for (let s = 0; s < seq; s++) {
        const c0 = cacheRow(b, s) * half;
        for (let h = 0; h < heads; h++) {
          const base = rank === 4 ? ((b * heads + h) * seq + s) * headSize : ((b * seq + s) * heads + h) * headSize;
          for (let i = 0; i < half; i++) {
            const i1 = base + i * stepA;
            const i2 = i1 + stepB;
            const c = cos[c0 + i];
            const sn = sin[c0 + i];
            const x1 = x[i1];
            const x2 = x[i2];
            out[i1] = c * x1 - sn * x2;
            out[i2] = sn * x1 + c * x2;
          }
        }
      }
    }
    return [y.commit()];
  }),
});
