/** Unsqueeze: axes (in the output's rank, any order) as an attribute (opset 1–12) or an input (13+). */
import { type KernelRunContext, type Tensor } from '@switchyard/core';
import { copyToOutput, LAYOUT_TYPES, sameElementsInPlace } from '../tensor-ops/elements.js';
import { normalizeAxes, readInts } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

/** The dims after inserting size-1 axes at `axes` (positions in the output). */
export function unsqueezeDims(dims: readonly number[], axes: readonly number[]): number[] {
  const rank = dims.length + axes.length;
  const at = new Set(normalizeAxes(axes, rank, 'Unsqueeze'));
  const out: number[] = [];
  let j = 0;
  for (let i = 0; i < rank; i++) out.push(at.has(i) ? 1 : dims[j++]);
  return out;
}

function unsqueeze(ctx: KernelRunContext, x: Tensor, axes: readonly number[]): Tensor {
  return copyToOutput(ctx, 0, x, unsqueezeDims(x.dims, axes));
}

export const unsqueezeV1Kernel = tensorKernel({
  opType: 'Unsqueeze',
  sinceVersion: 1,
  endVersion: 12,
  typeConstraints: { T: LAYOUT_TYPES },
  create(init) {
    const axes = init.attrs.ints('axes');
    return { inPlace: sameElementsInPlace(init), run: (ctx) => [unsqueeze(ctx, ctx.input(0), axes)] };
  },
});

export const unsqueezeKernel = tensorKernel({
  opType: 'Unsqueeze',
  sinceVersion: 13,
  typeConstraints: { T: LAYOUT_TYPES },
  create: (init) => ({ inPlace: sameElementsInPlace(init), run: (ctx) => [unsqueeze(ctx, ctx.input(0), readInts(ctx.input(1), 'Unsqueeze axes'))] }),
});
