/**
 * Bernoulli (opset 15): each output element is 1 with the probability given by the matching input
 * element, else 0; output dtype from `dtype`, else the input's. Seeded when `seed` is set (see extra/random.ts).
 */
import { SwitchyardError, type DataType } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { writeNumbers } from '../math/numeric.js';
import { floatData } from '../nn/float-io.js';
import { allocOutput } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { dtypeAttribute } from '../extra/dtype-attr.js';
import { randomSourceFor } from '../extra/random.js';
import { SAMPLE_TYPES } from '../extra/sampling.js';

const OP = 'Bernoulli';
const OUTPUT_TYPES: readonly DataType[] = [...NUMERIC, 'bool'];

export const bernoulliKernel = tensorKernel({
  opType: OP,
  sinceVersion: 15,
  typeConstraints: { T1: SAMPLE_TYPES, T2: OUTPUT_TYPES },
  create({ attrs }) {
    const src = randomSourceFor(attrs.has('seed') ? attrs.float('seed') : undefined, OP);
    const fixedType = attrs.has('dtype') ? dtypeAttribute(attrs, 'dtype', 1, OUTPUT_TYPES, OP) : undefined;
    return {
      run(ctx) {
        const input = ctx.input(0);
        const p = floatData(input, `${OP} input`);
        const out = allocOutput(ctx, 0, fixedType ?? input.type, input.dims);
        const values = new Float64Array(p.length);
        for (let i = 0; i < p.length; i++) {
          if (!(p[i] >= 0 && p[i] <= 1)) throw new SwitchyardError('RUNTIME', `${OP}: probability ${p[i]} at element ${i} is outside [0, 1]`);
          values[i] = src.uniform() < p[i] ? 1 : 0;
        }
        writeNumbers(out, values);
        return [out];
      },
    };
  },
});
