/** Shape (with opset 15's start/end slice of the dims, clamped like Python slicing) and Size. */
import { LAYOUT_TYPES } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';

function clampAxis(v: number, rank: number): number {
  const a = v < 0 ? v + rank : v;
  return Math.min(Math.max(a, 0), rank);
}

export const shapeKernel = tensorKernel({
  opType: 'Shape',
  sinceVersion: 1,
  typeConstraints: { T: LAYOUT_TYPES },
  create({ attrs }) {
    const start = attrs.int('start', 0);
    const end = attrs.has('end') ? attrs.int('end') : undefined;
    return {
      run(ctx) {
        const dims = ctx.input(0).dims;
        const lo = clampAxis(start, dims.length);
        const hi = end === undefined ? dims.length : clampAxis(end, dims.length);
        const picked = dims.slice(lo, Math.max(lo, hi));
        const out = ctx.output(0, 'int64', [picked.length]);
        picked.forEach((d, i) => (out.data[i] = BigInt(d)));
        return [out];
      },
    };
  },
});
