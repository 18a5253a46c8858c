import { SwitchyardError, dataTypeFromOnnx, defineKernel, type AttributeReader, type E8M0RoundMode } from '@switchyard/core';
import { CAST_TYPES } from '../math/dtypes.js';
import { castInto } from '../math/cast.js';
import type { NarrowingOptions } from '../math/numeric.js';

/** Cast's `saturate` (opset 19+, float8 targets) and `round_mode` (opset 24+, float8e8m0 targets). */
export function narrowingAttrs(attrs: AttributeReader, op: string): NarrowingOptions {
  const saturate = attrs.int('saturate', 1) !== 0;
  const mode = attrs.string('round_mode', 'up');
  if (mode !== 'up' && mode !== 'down' && mode !== 'nearest') {
    throw new SwitchyardError('INVALID_ARGUMENT', `${op}: round_mode '${mode}' is not 'up', 'down' or 'nearest'`);
  }
  return { saturate, e8m0Mode: mode as E8M0RoundMode };
}

/** ONNX Cast to the `to` element type (strings from opset 9, bfloat16 from 13, float8 from 19, 4-bit from 21, 2-bit from 25). */
export const castKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Cast',
  sinceVersion: 1,
  typeConstraints: { T1: CAST_TYPES, T2: CAST_TYPES },
  create: ({ attrs }) => {
    const to = attrs.int('to');
    const type = dataTypeFromOnnx(to);
    if (!type || type === 'complex64' || type === 'complex128') throw new SwitchyardError('UNSUPPORTED', `Cast: target element type ${to} is not supported`);
    const narrowing = narrowingAttrs(attrs, 'Cast');
    return {
      run(ctx) {
        const x = ctx.input(0);
        const out = ctx.output(0, type, x.dims);
        castInto(x, out, narrowing);
        return [out];
      },
    };
  },
});
