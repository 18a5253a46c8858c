/**
 * SoftmaxCrossEntropyLoss (opset 13+): log-softmax of the scores along the class axis (1), then the
 * negative log likelihood of the labels; the optional second output is the log-softmax itself.
 */
import { SwitchyardError } from '@switchyard/core';
import { floatData, floatOutput, scratchLike } from '../nn/float-io.js';
import { logSoftmaxAxis1, negativeLogLikelihood, parseReduction } from '../extra/loss.js';
import { INDEX_TYPES } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';

const OP = 'SoftmaxCrossEntropyLoss';

export const softmaxCrossEntropyLossKernel = tensorKernel({
  opType: OP,
  sinceVersion: 13,
  typeConstraints: { T: ['float32', 'float64', 'float16', 'bfloat16'], Tind: INDEX_TYPES },
  create({ attrs, node }) {
    const reduction = parseReduction(attrs.string('reduction', 'mean'), OP);
    const ignoreIndex = attrs.has('ignore_index') ? attrs.int('ignore_index') : undefined;
    const wantLogProb = (node.outputs[1] ?? '') !== '';
    return {
      run(ctx) {
        const scores = ctx.input(0);
        const weight = ctx.optionalInput(2);
        if (weight && weight.type !== scores.type) {
          throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: weights are ${weight.type}, scores are ${scores.type}`);
        }
        if (scores.dims.length < 2) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: scores must have rank ≥ 2 ([N, C, …]), got [${scores.dims.join(', ')}]`);
        }
        const x = floatData(scores, `${OP} scores`);
        const logProb = wantLogProb ? floatOutput(ctx, 1, scores.type, scores.dims) : undefined;
        const lp = logProb?.data ?? scratchLike(x, x.length);
        logSoftmaxAxis1(x, scores.dims, lp);
        const { values, dims } = negativeLogLikelihood({
          op: OP,
          logProb: lp,
          dims: scores.dims,
          target: ctx.input(1),
          weight: weight && floatData(weight, `${OP} weights`),
          ignoreIndex,
          reduction,
        });
        const loss = floatOutput(ctx, 0, scores.type, dims);
        loss.data.set(values);
        return logProb ? [loss.commit(), logProb.commit()] : [loss.commit()];
      },
    };
  },
});
