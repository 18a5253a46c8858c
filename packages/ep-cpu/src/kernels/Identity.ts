/** Identity: tensors are copied into a fresh output; sequences and optionals pass through. */
import { allocOutput, copyRun, checkMovable, LAYOUT_TYPES } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const identityKernel = tensorKernel({
  opType: 'Identity',
  sinceVersion: 1,
  typeConstraints: { T: LAYOUT_TYPES, V: LAYOUT_TYPES },
  create: () => ({
    run(ctx) {
      const v = ctx.inputs[0];
      if (v === undefined || v === null) return [null];
      // Sequence elements live outside the planner's arena, so sharing them is safe.
      if (Array.isArray(v)) return [[...v]];
      checkMovable(v, 'Identity');
      const out = allocOutput(ctx, 0, v.type, v.dims);
      copyRun(v.data, 0, out.data, 0, v.size);
      return [out];
    },
  }),
});
