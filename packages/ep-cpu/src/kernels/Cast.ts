import { SwitchyardError, dataTypeFromOnnx, defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { castInto } from '../math/cast.js';

const TYPES = [...NUMERIC, 'bool', 'string'] as const;

/** ONNX Cast to the `to` element type (strings from opset 9, bfloat16 from 13). */
export const castKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Cast',
  sinceVersion: 1,
  typeConstraints: { T1: TYPES, T2: TYPES },
  create: ({ attrs }) => {
    const to = attrs.int('to');
    const type = dataTypeFromOnnx(to);
    if (!type) throw new SwitchyardError('UNSUPPORTED', `Cast: target element type ${to} is not supported`);
    return {
      run(ctx) {
        const x = ctx.input(0);
        const out = ctx.output(0, type, x.dims);
        castInto(x, out);
        return [out];
      },
    };
  },
});
