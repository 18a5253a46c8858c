/**
 * CausalConvWithState (opset 27): a depthwise causal 1-D convolution that carries its left context
 * between calls (Mamba / Gated DeltaNet decode). The input [B, C, L] is preceded by past_state
 * [B, C, k-1] (zeros when absent); output[b, c, t] = bias[c] + Σ_j w[c, 0, j] · padded[b, c, t + j],
 * optionally through SiLU; present_state is the last k-1 positions of the padded sequence.
 */
import { SwitchyardError, defineKernel, nodeLabel } from '@switchyard/core';
import { sigmoid } from '../math/special.js';
import { floatData, floatOutput } from '../nn/float-io.js';

export const causalConvWithStateKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'CausalConvWithState',
  sinceVersion: 27,
  typeConstraints: { T: ['float32', 'float16', 'bfloat16'] },
  create: ({ node, attrs }) => {
    const label = `node '${nodeLabel(node)}' (CausalConvWithState)`;
    const activation = attrs.string('activation', 'none');
    if (activation !== 'none' && activation !== 'silu' && activation !== 'swish') {
      throw new SwitchyardError('INVALID_ARGUMENT', `${label}: activation must be 'none', 'silu' or 'swish', got '${activation}'`);
    }
    const silu = activation !== 'none';
    return {
      run(ctx) {
        const X = ctx.input(0);
        const W = ctx.input(1);
        const B = ctx.optionalInput(2);
        const past = ctx.optionalInput(3);
        const shapeError = (msg: string) => new SwitchyardError('INVALID_SHAPE', `${label}: ${msg}`);
        if (X.dims.length !== 3) throw shapeError(`input must be [batch, channels, length], got [${X.dims.join(', ')}]`);
        const [batch, channels, length] = X.dims;
        if (W.dims.length !== 3 || W.dims[0] !== channels || W.dims[1] !== 1 || W.dims[2] < 1) {
          throw shapeError(`weight must be [${channels}, 1, k] with k >= 1, got [${W.dims.join(', ')}]`);
        }
        const k = W.dims[2];
        const carry = k - 1;
        if (B && (B.dims.length !== 1 || B.dims[0] !== channels)) throw shapeError(`bias must be [${channels}], got [${B.dims.join(', ')}]`);
        if (past && (past.dims.length !== 3 || past.dims[0] !== batch || past.dims[1] !== channels || past.dims[2] !== carry)) {
          throw shapeError(`past_state must be [${batch}, ${channels}, ${carry}], got [${past.dims.join(', ')}]`);
        }
        for (const t of [W, B, past]) {
          if (t && t.type !== X.type) throw new SwitchyardError('INVALID_ARGUMENT', `${label}: every input must be ${X.type} like the input, got ${t.type}`);
        }
        const x = floatData(X);
        const w = floatData(W);
        const bias = B ? floatData(B) : undefined;
        const state = past ? floatData(past) : undefined;
        const y = floatOutput(ctx, 0, X.type, X.dims);
        const present = floatOutput(ctx, 1, X.type, [batch, channels, carry]);
        const padded = new Float64Array(carry + length);
        for (let bc = 0; bc < batch * channels; bc++) {
          const c = bc % channels;
          if (state) for (let j = 0; j < carry; j++) padded[j] = state[bc * carry + j];
          else padded.fill(0, 0, carry);
          for (let t = 0; t < length; t++) padded[carry + t] = x[bc * length + t];
          for (let t = 0; t < length; t++) {
            let acc = bias ? bias[c] : 0;
            for (let j = 0; j < k; j++) acc += w[c * k + j] * padded[t + j];
            y.data[bc * length + t] = silu ? acc * sigmoid(acc) : acc;
          }
          for (let j = 0; j < carry; j++) present.data[bc * carry + j] = padded[length + j];
        }
        return [y.commit(), present.commit()];
      },
    };
  },
});
