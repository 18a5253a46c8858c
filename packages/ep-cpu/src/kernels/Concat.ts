/** Concat: per outer index, one contiguous run from each input. Opset 1 defaults axis to 1. */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import { allocOutput, checkMovable, copyRun, TENSOR_TYPES, type Elements } from '../tensor-ops/elements.js';
import { normalizeAxis, product } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

/** Output dims of concatenating `inputs` along `axis` (already normalised), with every other dim checked. */
export function concatDims(inputs: readonly Tensor[], axis: number, op: string): number[] {
  const first = inputs[0].dims;
  const dims = [...first];
  dims[axis] = 0;
  for (const t of inputs) {
    checkMovable(t, op);
    if (t.type !== inputs[0].type) throw new SwitchyardError('RUNTIME', `${op}: inputs mix ${inputs[0].type} and ${t.type}`);
    if (t.dims.length !== first.length || t.dims.some((d, i) => i !== axis && d !== first[i])) {
      throw new SwitchyardError('INVALID_SHAPE', `${op}: cannot concatenate [${first.join(', ')}] and [${t.dims.join(', ')}] along axis ${axis}`);
    }
    dims[axis] += t.dims[axis];
  }
  return dims;
}

/** Writes the concatenation of `inputs` along `axis` into `dst` (dims as from concatDims). */
export function concatInto(inputs: readonly Tensor[], axis: number, dims: readonly number[], dst: Elements): void {
  const outer = product(dims, 0, axis);
  const inner = product(dims, axis + 1);
  const rowOut = dims[axis] * inner;
  let base = 0;
  for (const t of inputs) {
    const run = t.dims[axis] * inner;
    const src = t.data;
    for (let o = 0; o < outer; o++) copyRun(src, o * run, dst, o * rowOut + base, run);
    base += run;
  }
}

export const concatKernel = tensorKernel({
  opType: 'Concat',
  sinceVersion: 1,
  typeConstraints: { T: TENSOR_TYPES },
  create({ attrs, opset }) {
    const axisAttr = attrs.int('axis', opset < 4 ? 1 : undefined);
    return {
      run(ctx) {
        const inputs: Tensor[] = [];
        for (let i = 0; i < ctx.inputs.length; i++) {
          const t = ctx.optionalInput(i);
          if (t) inputs.push(t);
        }
        if (inputs.length === 0) throw new SwitchyardError('RUNTIME', 'Concat: no inputs');
        const axis = normalizeAxis(axisAttr, inputs[0].dims.length, 'Concat');
        const dims = concatDims(inputs, axis, 'Concat');
        // Every element is written below, so arena memory need not be zeroed first.
        const out = inputs[0].type === 'string' ? allocOutput(ctx, 0, inputs[0].type, dims) : ctx.output(0, inputs[0].type, dims, { uninitialized: true });
        concatInto(inputs, axis, dims, out.data);
        return [out];
      },
    };
  },
});
