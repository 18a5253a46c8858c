/** Reshape: opset 1–4 take `shape` as an attribute, 5+ as an input; 0 copies a dim (unless allowzero), -1 infers one. */
import { SwitchyardError } from '@switchyard/core';
import { copyToOutput, LAYOUT_TYPES, sameElementsInPlace } from '../tensor-ops/elements.js';
import { readInts } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

/** The output dims of a Reshape, or a clear INVALID_SHAPE error. */
export function reshapeDims(inDims: readonly number[], shape: readonly number[], allowZero: boolean): number[] {
  const fail = (why: string): never => {
    throw new SwitchyardError('INVALID_SHAPE', `Reshape: cannot reshape [${inDims.join(', ')}] to [${shape.join(', ')}]: ${why}`);
  };
  const size = inDims.reduce((a, b) => a * b, 1);
  const out = [...shape];
  let inferAt = -1;
  let known = 1;
  for (let i = 0; i < out.length; i++) {
    const s = out[i];
    if (s === -1) {
      if (inferAt >= 0) fail('more than one -1');
      inferAt = i;
      continue;
    }
    if (s === 0 && !allowZero) {
      if (i >= inDims.length) fail(`0 at position ${i} has no input dimension to copy`);
      out[i] = inDims[i];
    } else if (s < 0) fail(`negative dimension ${s}`);
    known *= out[i];
  }
  if (inferAt >= 0) {
    if (allowZero && shape.includes(0)) fail('allowzero with both 0 and -1');
    if (known === 0 || size % known !== 0) fail('the -1 dimension cannot be inferred');
    out[inferAt] = size / known;
  } else if (known !== size) fail(`${size} elements do not fill ${known}`);
  return out;
}

export const reshapeV1Kernel = tensorKernel({
  opType: 'Reshape',
  sinceVersion: 1,
  endVersion: 4,
  typeConstraints: { T: LAYOUT_TYPES },
  create(init) {
    const shape = init.attrs.ints('shape', []);
    return { inPlace: sameElementsInPlace(init), run: (ctx) => [copyToOutput(ctx, 0, ctx.input(0), reshapeDims(ctx.input(0).dims, shape, false))] };
  },
});

export const reshapeKernel = tensorKernel({
  opType: 'Reshape',
  sinceVersion: 5,
  typeConstraints: { T: LAYOUT_TYPES },
  create(init) {
    const allowZero = init.attrs.int('allowzero', 0) !== 0;
    return {
      inPlace: sameElementsInPlace(init),
      run(ctx) {
        const data = ctx.input(0);
        const shape = readInts(ctx.input(1), 'Reshape shape');
        return [copyToOutput(ctx, 0, data, reshapeDims(data.dims, shape, allowZero))];
      },
    };
  },
});
