/**
 * Tile: the output seen as [r0, d0, r1, d1, …] reads the input with stride 0 on each repeat axis,
 * so one strided copy does it. Opset 1 repeats along a single `axis` input.
 */
import { SwitchyardError, type KernelRunContext, type Tensor } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable } from '../tensor-ops/elements.js';
import { normalizeAxis, readInts, readScalarInt } from '../tensor-ops/indices.js';
import { copyStrided, rowMajorStrides } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

function tile(ctx: KernelRunContext, x: Tensor, repeats: readonly number[]): Tensor {
  checkMovable(x, 'Tile');
  const r = x.dims.length;
  if (repeats.length !== r) throw new SwitchyardError('INVALID_SHAPE', `Tile: ${repeats.length} repeats for rank ${r}`);
  if (repeats.some((v) => v < 0)) throw new SwitchyardError('INVALID_SHAPE', `Tile: negative repeat in [${repeats.join(', ')}]`);
  const out = allocOutput(
    ctx,
    0,
    x.type,
    x.dims.map((d, i) => d * repeats[i]),
  );
  const s = rowMajorStrides(x.dims);
  const dims: number[] = [];
  const strides: number[] = [];
  for (let i = 0; i < r; i++) dims.push(repeats[i], x.dims[i]), strides.push(0, s[i]);
  copyStrided(x.data, 0, strides, dims, out.data);
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
      const axis = normalizeAxis(readScalarInt(ctx.input(2), 'Tile axis'), x.dims.length, 'Tile');
      const repeats = x.dims.map((_, i) => (i === axis ? readScalarInt(ctx.input(1), 'Tile tiles') : 1));
      return [tile(ctx, x, repeats)];
    },
  }),
});

export const tileKernel = tensorKernel({
  opType: 'Tile',
  sinceVersion: 6,
  typeConstraints: { T: TENSOR_TYPES },
  create: () => ({ run: (ctx) => [tile(ctx, ctx.input(0), readInts(ctx.input(1), 'Tile repeats'))] }),
});
