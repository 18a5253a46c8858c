/** NegativeLogLikelihoodLoss: loss from log-probabilities [N, C, d…] and class targets [N, d…] (opset 13+). */
import { SwitchyardError } from '@switchyard/core';
import { floatData, floatOutput } from '../nn/float-io.js';
import { negativeLogLikelihood, parseReduction } from '../extra/loss.js';
import { INDEX_TYPES } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const negativeLogLikelihoodLossKernel = tensorKernel({
  opType: 'NegativeLogLikelihoodLoss',
  sinceVersion: 13,
  typeConstraints: { T: ['float32', 'float64', 'float16'], Tind: INDEX_TYPES },
  create({ attrs }) {
    const reduction = parseReduction(attrs.string('reduction', 'mean'), 'NegativeLogLikelihoodLoss');
    const ignoreIndex = attrs.has('ignore_index') ? attrs.int('ignore_index') : undefined;
    return {
      run(ctx) {
        const input = ctx.input(0);
        const weight = ctx.optionalInput(2);
        if (weight && weight.type !== input.type) {
          throw new SwitchyardError('INVALID_ARGUMENT', `NegativeLogLikelihoodLoss: weight is ${weight.type}, input is ${input.type}`);
        }
        const { values, dims } = negativeLogLikelihood({
          op: 'NegativeLogLikelihoodLoss',
          logProb: floatData(input, 'NegativeLogLikelihoodLoss input'),
          dims: input.dims,
          target: ctx.input(1),
          weight: weight && floatData(weight, 'NegativeLogLikelihoodLoss weight'),
          ignoreIndex,
          reduction,
        });
        const out = floatOutput(ctx, 0, input.type, dims);
        out.data.set(values);
        return [out.commit()];
      },
    };
  },
});
