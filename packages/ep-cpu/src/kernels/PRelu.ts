import { SwitchyardError, defineKernel, type Tensor } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { broadcastShape } from '../math/broadcast.js';
import { binaryKernel, computeBinary, type ElementwiseSpec } from '../math/elementwise.js';

const TYPES = [...FLOATS, 'int32', 'int64', 'uint32', 'uint64'] as const;

const SPEC: ElementwiseSpec = {
  opType: 'PRelu',
  types: TYPES,
  float: 'x < 0 ? x * y : x',
  int: 'x < 0 ? Math.imul(x, y) : x',
  wide: 'x < 0 ? x * y : x',
  big: 'x < 0n ? x * y : x',
};

/**
 * Before opset 7 a slope is either one value shared by all elements or one value per channel (axis 1):
 * a 1-D slope of C values lines up with X's axis 1, not with its last axis as numpy broadcasting would.
 */
function legacySlope(x: Tensor, slope: Tensor): Tensor {
  const dims = legacySlopeDims(x.dims, slope.dims);
  return dims === slope.dims ? slope : slope.reshape(dims);
}

/** The slope's dims that numpy broadcasting lines up with axis 1 of X (pre-opset-7 PRelu); `slopeDims` itself when unchanged. */
export function legacySlopeDims(xDims: readonly number[], slopeDims: readonly number[]): readonly number[] {
  const size = slopeDims.reduce((a, b) => a * b, 1);
  if (size === 1 || slopeDims.length !== 1 || xDims.length < 2) return slopeDims;
  if (slopeDims[0] !== xDims[1]) {
    throw new SwitchyardError('INVALID_SHAPE', `PRelu: a 1-D slope must have 1 or C = ${xDims[1]} values for X [${xDims.join(', ')}], got ${slopeDims[0]}`);
  }
  return [slopeDims[0], ...new Array<number>(xDims.length - 2).fill(1)];
}

/** ONNX PRelu: `slope` broadcasts onto X (numpy rules from opset 7; per-channel along axis 1 before). */
export const pReluKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'PRelu',
  sinceVersion: 1,
  typeConstraints: { T: TYPES },
  create(init) {
    if (init.opset >= 7) return binaryKernel(SPEC)(init);
    return {
      run(ctx) {
        const x = ctx.input(0);
        const slope = legacySlope(x, ctx.input(1));
        const out = ctx.output(0, x.type, broadcastShape([x.dims, slope.dims], 'PRelu'));
        computeBinary(SPEC, x, slope, out);
        return [out];
      },
    };
  },
});
