/**
 * LinearAttention (opset 27): the recurrent form of linear attention, token by token. Per KV head a
 * state S [d_k, d_v] evolves as
 *   linear: S += k ⊗ v      gated: S = e^g · S + k ⊗ v
 *   delta:  S += k ⊗ β(v − Sᵀk)   gated_delta: S = e^g · S, then the delta update
 * and each query head of the group reads o = scale · qᵀS. Inputs are packed [B, T, H·D]; the state is
 * [B, H_kv, d_k, d_v]. `chunk_size` only tunes chunked implementations and is ignored here.
 */
import { SwitchyardError, defineKernel, nodeLabel } from '@switchyard/core';
import { floatData, floatOutput } from '../nn/float-io.js';

const RULES = ['linear', 'gated', 'delta', 'gated_delta'] as const;
const HALF_OR_FLOAT = ['float32', 'float16', 'bfloat16'] as const;

export const linearAttentionKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'LinearAttention',
  sinceVersion: 27,
  typeConstraints: { T: HALF_OR_FLOAT, S: HALF_OR_FLOAT },
  create: ({ node, attrs }) => {
    const label = `node '${nodeLabel(node)}' (LinearAttention)`;
    const argError = (msg: string) => new SwitchyardError('INVALID_ARGUMENT', `${label}: ${msg}`);
    const shapeError = (msg: string) => new SwitchyardError('INVALID_SHAPE', `${label}: ${msg}`);
    const rule = attrs.string('update_rule', 'gated_delta');
    if (!(RULES as readonly string[]).includes(rule)) throw argError(`update_rule must be one of ${RULES.join(', ')}, got '${rule}'`);
    const qHeads = attrs.int('q_num_heads', 0);
    const kvHeads = attrs.int('kv_num_heads', 0);
    if (qHeads <= 0 || kvHeads <= 0 || qHeads % kvHeads !== 0) {
      throw argError(`q_num_heads (${qHeads}) must be a positive multiple of kv_num_heads (${kvHeads})`);
    }
    const gated = rule === 'gated' || rule === 'gated_delta';
    const delta = rule === 'delta' || rule === 'gated_delta';
    const scaleAttr = attrs.float('scale', 0);
    return {
      run(ctx) {
        const Q = ctx.input(0);
        const K = ctx.input(1);
        const V = ctx.input(2);
        const past = ctx.optionalInput(3);
        const decayT = ctx.optionalInput(4);
        const betaT = ctx.optionalInput(5);
        if (gated !== !!decayT) throw argError(`update_rule '${rule}' ${gated ? 'requires' : 'forbids'} the decay input`);
        if (delta !== !!betaT) throw argError(`update_rule '${rule}' ${delta ? 'requires' : 'forbids'} the beta input`);
        for (const [name, t] of [['query', Q], ['key', K], ['value', V]] as const) {
          if (t.dims.length !== 3) throw shapeError(`${name} must be [B, T, H·D], got [${t.dims.join(', ')}]`);
        }
        const [batch, steps] = Q.dims;
        if (Q.dims[2] % qHeads !== 0) throw shapeError(`query width ${Q.dims[2]} is not a multiple of q_num_heads ${qHeads}`);
        const dk = Q.dims[2] / qHeads;
        if (V.dims[2] % kvHeads !== 0) throw shapeError(`value width ${V.dims[2]} is not a multiple of kv_num_heads ${kvHeads}`);
        const dv = V.dims[2] / kvHeads;
        for (const t of [K, V]) {
          if (t.dims[0] !== batch || t.dims[1] !== steps) throw shapeError(`query, key and value must share [B, T] = [${batch}, ${steps}]`);
        }
        if (K.dims[2] !== kvHeads * dk) throw shapeError(`key width ${K.dims[2]} must be kv_num_heads · d_k = ${kvHeads * dk}`);
        let decayPerKey = false;
        if (decayT) {
          const last = decayT.dims[2];
          if (decayT.dims.length !== 3 || decayT.dims[0] !== batch || decayT.dims[1] !== steps || (last !== kvHeads && last !== kvHeads * dk)) {
            throw shapeError(`decay must be [${batch}, ${steps}, ${kvHeads}] or [${batch}, ${steps}, ${kvHeads * dk}], got [${decayT.dims.join(', ')}]`);
          }
          decayPerKey = last === kvHeads * dk && last !== kvHeads;
        }
        let betaShared = false;
        if (betaT) {
          const last = betaT.dims[2];
          if (betaT.dims.length !== 3 || betaT.dims[0] !== batch || betaT.dims[1] !== steps || (last !== kvHeads && last !== 1)) {
            throw shapeError(`beta must be [${batch}, ${steps}, ${kvHeads}] or [${batch}, ${steps}, 1], got [${betaT.dims.join(', ')}]`);
          }
          betaShared = last === 1 && kvHeads !== 1;
        }
        const stateDims = [batch, kvHeads, dk, dv];
        if (past && past.dims.join() !== stateDims.join()) throw shapeError(`past_state must be [${stateDims.join(', ')}], got [${past.dims.join(', ')}]`);
        for (const t of [K, V, decayT, betaT]) if (t && t.type !== Q.type) throw argError(`inputs must share query's type ${Q.type}, got ${t.type}`);

        const q = floatData(Q);
        const k = floatData(K);
        const v = floatData(V);
        const decay = decayT ? floatData(decayT) : undefined;
        const beta = betaT ? floatData(betaT) : undefined;
        const scale = scaleAttr === 0 ? 1 / Math.sqrt(dk) : scaleAttr;
        const group = qHeads / kvHeads;
        const y = floatOutput(ctx, 0, Q.type, [batch, steps, qHeads * dv]);
        const present = floatOutput(ctx, 1, past ? past.type : Q.type, stateDims);
        const state = new Float64Array(dk * dv);
        const update = new Float64Array(dv);
        const pastData = past ? floatData(past) : undefined;
        for (let b = 0; b < batch; b++) {
          for (let h = 0; h < kvHeads; h++) {
            const stateBase = (b * kvHeads + h) * dk * dv;
            if (pastData) for (let i = 0; i < dk * dv; i++) state[i] = pastData[stateBase + i];
            else state.fill(0);
            for (let t = 0; t < steps; t++) {
              const row = b * steps + t;
              const kOff = row * kvHeads * dk + h * dk;
              const vOff = row * kvHeads * dv + h * dv;
              if (decay) {
                for (let i = 0; i < dk; i++) {
                  const g = Math.exp(decayPerKey ? decay[row * kvHeads * dk + h * dk + i] : decay[row * kvHeads + h]);
                  for (let m = 0; m < dv; m++) state[i * dv + m] *= g;
                }
              }
              for (let m = 0; m < dv; m++) update[m] = v[vOff + m];
              if (beta) {
                const rate = beta[betaShared ? row : row * kvHeads + h];
                for (let m = 0; m < dv; m++) {
                  let retrieved = 0;
                  for (let i = 0; i < dk; i++) retrieved += state[i * dv + m] * k[kOff + i];
                  update[m] = rate * (update[m] - retrieved);
                }
              }
              for (let i = 0; i < dk; i++) {
                const ki = k[kOff + i];
                for (let m = 0; m < dv; m++) state[i * dv + m] += ki * update[m];
              }
              for (let g = 0; g < group; g++) {
                const hq = h * group + g;
                const qOff = row * qHeads * dk + hq * dk;
                const yOff = row * qHeads * dv + hq * dv;
                for (let m = 0; m < dv; m++) {
                  let acc = 0;
                  for (let i = 0; i < dk; i++) acc += q[qOff + i] * state[i * dv + m];
                  y.data[yOff + m] = scale * acc;
                }
              }
            }
            for (let i = 0; i < dk * dv; i++) present.data[stateBase + i] = state[i];
          }
        }
        return [y.commit(), present.commit()];
      },
    };
  },
});
