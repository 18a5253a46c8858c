/** Transpose: `perm` (default: reversed axes) through the tiled strided copy. */
import { SwitchyardError } from '@switchyard/core';
import { allocOutput, checkMovable, LAYOUT_TYPES } from '../tensor-ops/elements.js';
import { transposeInto } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

export function checkPermutation(perm: readonly number[], rank: number, op: string): void {
  const seen = new Set(perm);
  if (perm.length !== rank || seen.size !== rank || perm.some((p) => !Number.isInteger(p) || p < 0 || p >= rank)) {
    throw new SwitchyardError('INVALID_SHAPE', `${op}: perm [${perm.join(', ')}] is not a permutation of ${rank} axes`);
  }
}

export const transposeKernel = tensorKernel({
  opType: 'Transpose',
  sinceVersion: 1,
  typeConstraints: { T: LAYOUT_TYPES },
  create({ attrs }) {
    const permAttr = attrs.has('perm') ? attrs.ints('perm') : undefined;
    return {
      run(ctx) {
        const x = ctx.input(0);
        checkMovable(x, 'Transpose');
        const r = x.dims.length;
        const perm = permAttr ?? Array.from({ length: r }, (_, i) => r - 1 - i);
        checkPermutation(perm, r, 'Transpose');
        const out = allocOutput(
          ctx,
          0,
          x.type,
          perm.map((p) => x.dims[p]),
        );
        transposeInto(x.data, x.dims, perm, out.data);
        return [out];
      },
    };
  },
});
