/** RandomNormalLike: values shaped like the input, normal with mean and scale (defaults 0 and 1); seeded when `seed` is set (see extra/random.ts). */
import { SwitchyardError } from '@switchyard/core';
import { generatorKernel } from '../extra/sampling.js';

export const randomNormalLikeKernel = generatorKernel({
  opType: 'RandomNormalLike',
  like: true,
  distribution(attrs) {
    const mean = attrs.float('mean', 0);
    const scale = attrs.float('scale', 1);
    if (!(scale >= 0)) throw new SwitchyardError('INVALID_MODEL', `RandomNormalLike: scale must be ≥ 0, got ${scale}`);
    return (src) => mean + scale * src.normal();
  },
});
