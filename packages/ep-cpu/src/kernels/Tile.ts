/**
 * Tile: the output seen as [r0, d0, r1, d1, …] reads the input with stride 0 on each repeat axis,
 * so one strided copy does it. Opset 1 repeats along a single `axis` input.
 */
import { SwitchyardError, type KernelRunContext, type Tensor } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable } from '../tensor-ops/elements.js';
import { normalizeAxis, readInts, readScalarInt } from '../tensor-ops/indices.js';
import { copyStrided, rowMajorStrides } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

/** The tiled output's dims, and the [r0, d0, r1, d1, …] view of x (stride 0 on each repeat axis) that fills it. */
export function tileView(xDims: readonly number[], repeats: readonly number[]): { outDims: number[]; dims: number[]; strides: number[] } {
  const r = xDims.length;
  if (repeats.length !== r) throw new SwitchyardError('INVALID_SHAPE', `Tile: ${repeats.length} repeats for rank ${r}`);
  if (repeats.some((v) => v < 0)) throw new SwitchyardError('INVALID_SHAPE', `Tile: negative repeat in [${repeats.join(', ')}]`);
  const s = rowMajorStrides(xDims);
  const dims: number[] = [];
  const strides: number[] = [];
  for (let i = 0; i < r; i++) dims.push(repeats[i], xDims[i]), strides.push(0, s[i]);
  return { outDims: xDims.map((d, i) => d * repeats[i]), dims, strides };
}

/** The repeats of one run: opset 1's (tiles, axis) inputs, or opset 6+'s repeats input. */
export function tileRepeats(ctx: KernelRunContext, x: Tensor, opset: number): number[] {
  if (opset >= 6) return readInts(ctx.input(1), 'Tile repeats');
  const axis = normalizeAxis(readScalarInt(ctx.input(2), 'Tile axis'), x.dims.length, 'Tile');
  return x.dims.map((_, i) => (i === axis ? readScalarInt(ctx.input(1), 'Tile tiles') : 1));
}

function tile(ctx: KernelRunContext, x: Tensor, repeats: readonly number[]): Tensor {
  checkMovable(x, 'Tile');
  const view = tileView(x.dims, repeats);
  const out = allocOutput(ctx, 0, x.type, view.outDims);
  copyStrided(x.data, 0, view.strides, view.dims, out.data);
  return out;
}

export const tileV1Kernel = tensorKernel({
  opType: 'Tile',
  sinceVersion: 1,
  endVersion: 5,
  typeConstraints: { T: TENSOR_TYPES },
  create: () => ({
    run(ctx) {
      const x = ctx.input(0);
      return [tile(ctx, x, tileRepeats(ctx, x, 1))];
    },
  }),
});

export const tileKernel = tensorKernel({
  opType: 'Tile',
  sinceVersion: 6,
  typeConstraints: { T: TENSOR_TYPES },
  create: () => ({ run: (ctx) => [tile(ctx, ctx.input(0), tileRepeats(ctx, ctx.input(0), 6))] }),
});
