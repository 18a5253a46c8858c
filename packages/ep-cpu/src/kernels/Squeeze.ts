/** Squeeze: axes as an attribute (opset 1–12) or an input (13+); none given removes every size-1 dim. */
import { SwitchyardError, type KernelRunContext, type Tensor } from '@switchyard/core';
import { copyToOutput, LAYOUT_TYPES, sameElementsInPlace } from '../tensor-ops/elements.js';
import { normalizeAxes, readInts } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

function squeeze(ctx: KernelRunContext, x: Tensor, axes: readonly number[] | undefined): Tensor {
  const r = x.dims.length;
  let dims: number[];
  // An empty axes list means the same as none (ONNX Runtime reads it so).
  if (axes === undefined || axes.length === 0) dims = x.dims.filter((d) => d !== 1);
  else {
    const drop = new Set(normalizeAxes(axes, r, 'Squeeze'));
    for (const a of drop) {
      if (x.dims[a] !== 1) throw new SwitchyardError('INVALID_SHAPE', `Squeeze: axis ${a} of [${x.dims.join(', ')}] has size ${x.dims[a]}, not 1`);
    }
    dims = x.dims.filter((_, i) => !drop.has(i));
  }
  return copyToOutput(ctx, 0, x, dims);
}

export const squeezeV1Kernel = tensorKernel({
  opType: 'Squeeze',
  sinceVersion: 1,
  endVersion: 12,
  typeConstraints: { T: LAYOUT_TYPES },
  create(init) {
    const axes = init.attrs.has('axes') ? init.attrs.ints('axes') : undefined;
    return { inPlace: sameElementsInPlace(init), run: (ctx) => [squeeze(ctx, ctx.input(0), axes)] };
  },
});

export const squeezeKernel = tensorKernel({
  opType: 'Squeeze',
  sinceVersion: 13,
  typeConstraints: { T: LAYOUT_TYPES },
  create: (init) => ({
    inPlace: sameElementsInPlace(init),
    run(ctx) {
      const axesT = ctx.optionalInput(1);
      return [squeeze(ctx, ctx.input(0), axesT ? readInts(axesT, 'Squeeze axes') : undefined)];
    },
  }),
});
