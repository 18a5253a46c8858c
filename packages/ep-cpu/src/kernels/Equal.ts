import { SwitchyardError, defineKernel } from '@switchyard/core';
import { NUMERIC_AND_BOOL } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';
import { broadcastIndex, broadcastShape } from '../math/broadcast.js';

/** ONNX Equal */
export const equalKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Equal',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC_AND_BOOL, T1: ['bool'] },
  create: binaryKernel({
    opType: 'Equal',
    types: NUMERIC_AND_BOOL,
    float: 'x === y',
    big: 'x === y',
    output: 'bool',
  }),
});

/** Equal over strings (opset 19): code-unit-for-code-unit equality, broadcast. */
export const equalStringKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Equal',
  sinceVersion: 1,
  implementation: 'ts',
  typeConstraints: { T: ['string'], T1: ['bool'] },
  // Keyed on the model's opset rather than the range: the schema table may predate Equal-19.
  supports: (_node, graph) => ((graph.opsetFor('') ?? 0) >= 19 ? true : 'Equal compares strings from opset 19'),
  create: () => ({
    run(ctx) {
      const a = ctx.input(0);
      const b = ctx.input(1);
      if (a.type !== 'string' || b.type !== 'string') {
        throw new SwitchyardError('INVALID_ARGUMENT', `Equal: string Equal needs two string tensors, got ${a.type} and ${b.type}`);
      }
      const dims = broadcastShape([a.dims, b.dims], 'Equal');
      const out = ctx.output(0, 'bool', dims); // the size is checked before the index tables are built
      const [ia, ib] = [broadcastIndex(a.dims, dims, 'Equal'), broadcastIndex(b.dims, dims, 'Equal')];
      const as = a.data as string[];
      const bs = b.data as string[];
      for (let i = 0; i < ia.length; i++) out.data[i] = as[ia[i]] === bs[ib[i]] ? 1 : 0;
      return [out];
    },
  }),
});
