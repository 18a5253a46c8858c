/** RandomUniformLike: values shaped like the input, uniform on [low, high) (defaults 0 and 1); seeded when `seed` is set (see extra/random.ts). */
import { SwitchyardError } from '@switchyard/core';
import { generatorKernel } from '../extra/sampling.js';

export const randomUniformLikeKernel = generatorKernel({
  opType: 'RandomUniformLike',
  like: true,
  distribution(attrs) {
    const low = attrs.float('low', 0);
    const high = attrs.float('high', 1);
    if (!(high >= low)) throw new SwitchyardError('INVALID_MODEL', `RandomUniformLike: high (${high}) must be ≥ low (${low})`);
    return (src) => low + (high - low) * src.uniform();
  },
});
