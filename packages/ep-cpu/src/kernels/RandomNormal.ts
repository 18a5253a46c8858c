/** RandomNormal: values of the `shape` attribute, normal with mean and scale (defaults 0 and 1); seeded when `seed` is set (see extra/random.ts). */
import { SwitchyardError } from '@switchyard/core';
import { generatorKernel } from '../extra/sampling.js';

export const randomNormalKernel = generatorKernel({
  opType: 'RandomNormal',
  like: false,
  distribution(attrs) {
    const mean = attrs.float('mean', 0);
    const scale = attrs.float('scale', 1);
    if (!(scale >= 0)) throw new SwitchyardError('INVALID_MODEL', `RandomNormal: scale must be ≥ 0, got ${scale}`);
    return (src) => mean + scale * src.normal();
  },
});
