/**
 * NonMaxSuppression with the addon's greedy pass: corner, area and score-order preparation stay in the TS
 * kernel's runNonMaxSuppression (shared, so both paths select identically); the boxes × kept IoU loop runs native.
 */
import type { KernelDef } from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { withNodeErrors } from './native-errors.js';
import { nonMaxSuppressionKernel, runNonMaxSuppression, type NmsSelect } from '../kernels/NonMaxSuppression.js';

/** The NonMaxSuppression def when the loaded addon exports nmsSelect (any box dtype: the prepared data is double). */
export function nativeNmsKernels(binding: NativeBinding): KernelDef[] {
  const nmsSelect = binding.nmsSelect?.bind(binding);
  if (!nmsSelect) return [];
  return [
    {
      ...nonMaxSuppressionKernel,
      implementation: 'native',
      create(init) {
        const center = init.attrs.int('center_point_box', 0) !== 0;
        const select: NmsSelect = (...args) => withNodeErrors(init.node, () => nmsSelect(...args));
        return { implementation: 'native', run: (ctx) => runNonMaxSuppression(ctx, center, select) };
      },
    },
  ];
}
