/** Expand: numpy-style bidirectional broadcast of the input to `shape`, as a stride-0 strided copy. */
import { SwitchyardError } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable } from '../tensor-ops/elements.js';
import { readInts } from '../tensor-ops/indices.js';
import { copyStrided, rowMajorStrides } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

/** The broadcast of two shapes, or INVALID_SHAPE naming both. */
export function broadcastDims(a: readonly number[], b: readonly number[], op: string): number[] {
  const r = Math.max(a.length, b.length);
  const out = new Array<number>(r);
  for (let i = 0; i < r; i++) {
    const x = a[a.length - r + i] ?? 1;
    const y = b[b.length - r + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) {
      throw new SwitchyardError('INVALID_SHAPE', `${op}: shapes [${a.join(', ')}] and [${b.join(', ')}] do not broadcast`);
    }
    out[i] = x === 1 ? y : x;
  }
  return out;
}

/** Strides that read `dims` (right-aligned) as if it had the broadcast shape `outDims`. */
export function broadcastStrides(dims: readonly number[], outDims: readonly number[]): number[] {
  const s = rowMajorStrides(dims);
  const shift = outDims.length - dims.length;
  return outDims.map((_, i) => (i < shift || dims[i - shift] === 1 ? 0 : s[i - shift]));
}

export const expandKernel = tensorKernel({
  opType: 'Expand',
  sinceVersion: 8,
  typeConstraints: { T: TENSOR_TYPES },
  create: () => ({
    run(ctx) {
      const x = ctx.input(0);
      checkMovable(x, 'Expand');
      const shape = readInts(ctx.input(1), 'Expand shape');
      if (shape.some((d) => d < 0)) throw new SwitchyardError('INVALID_SHAPE', `Expand: negative dimension in [${shape.join(', ')}]`);
      const dims = broadcastDims(x.dims, shape, 'Expand');
      const out = allocOutput(ctx, 0, x.type, dims);
      copyStrided(x.data, 0, broadcastStrides(x.dims, dims), dims, out.data);
      return [out];
    },
  }),
});
