/**
 * Multinomial (opset 7): for each row of [batch, classes] unnormalized log-probabilities, draws
 * `sample_size` class indices from softmax(row); output [batch, sample_size] int32 (default) or int64.
 * Seeded when `seed` is set (see extra/random.ts).
 */
import { SwitchyardError } from '@switchyard/core';
import { writeNumbers } from '../math/numeric.js';
import { floatData } from '../nn/float-io.js';
import { allocOutput, INDEX_TYPES } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { dtypeAttribute } from '../extra/dtype-attr.js';
import { randomSourceFor } from '../extra/random.js';
import { SAMPLE_TYPES } from '../extra/sampling.js';

const OP = 'Multinomial';

export const multinomialKernel = tensorKernel({
  opType: OP,
  sinceVersion: 7,
  typeConstraints: { T1: SAMPLE_TYPES, T2: INDEX_TYPES },
  create({ attrs }) {
    const src = randomSourceFor(attrs.has('seed') ? attrs.float('seed') : undefined, OP);
    const type = dtypeAttribute(attrs, 'dtype', 6, INDEX_TYPES, OP);
    const samples = attrs.int('sample_size', 1);
    if (samples < 0) throw new SwitchyardError('INVALID_MODEL', `${OP}: sample_size must be ≥ 0, got ${samples}`);
    return {
      run(ctx) {
        const input = ctx.input(0);
        if (input.dims.length !== 2) throw new SwitchyardError('INVALID_SHAPE', `${OP}: input must be [batch, classes], got [${input.dims.join(', ')}]`);
        const [batch, classes] = input.dims;
        if (classes < 1) throw new SwitchyardError('INVALID_SHAPE', `${OP}: input needs at least one class`);
        const logits = floatData(input, `${OP} input`);
        const out = allocOutput(ctx, 0, type, [batch, samples]);
        const values = new Float64Array(batch * samples);
        const cumulative = new Float64Array(classes);
        for (let b = 0; b < batch; b++) {
          const row = b * classes;
          let max = -Infinity;
          for (let c = 0; c < classes; c++) max = Math.max(max, logits[row + c]);
          let total = 0;
          for (let c = 0; c < classes; c++) cumulative[c] = total += Math.exp(logits[row + c] - max);
          if (!(total > 0 && Number.isFinite(total))) {
            throw new SwitchyardError('RUNTIME', `${OP}: row ${b} does not define a distribution (its log-probabilities are not finite)`);
          }
          for (let s = 0; s < samples; s++) {
            const u = src.uniform() * total;
            // First class whose cumulative weight exceeds u (binary search over the running sums).
            let lo = 0;
            let hi = classes - 1;
            while (lo < hi) {
              const mid = (lo + hi) >> 1;
              if (cumulative[mid] > u) hi = mid;
              else lo = mid + 1;
            }
            values[b * samples + s] = lo;
          }
        }
        writeNumbers(out, values);
        return [out];
      },
    };
  },
});
