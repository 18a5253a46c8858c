/** OneHot: a new axis of size `depth` holding on-value at each index (negatives count from the end), off elsewhere. */
import { SwitchyardError } from '@switchyard/core';
import { TENSOR_TYPES, NUMERIC_TYPES, allocOutput, fillRun, numberValue } from '../tensor-ops/elements.js';
import { product } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const oneHotKernel = tensorKernel({
  opType: 'OneHot',
  sinceVersion: 9,
  typeConstraints: { T1: NUMERIC_TYPES, T2: NUMERIC_TYPES, T3: TENSOR_TYPES },
  create({ attrs }) {
    const axisAttr = attrs.int('axis', -1);
    return {
      run(ctx) {
        const [indices, depthT, values] = [ctx.input(0), ctx.input(1), ctx.input(2)];
        if (depthT.size !== 1) throw new SwitchyardError('RUNTIME', 'OneHot: depth must be a scalar');
        if (values.size !== 2) throw new SwitchyardError('RUNTIME', 'OneHot: values must hold [off_value, on_value]');
        const depth = Math.trunc(numberValue(depthT.type, depthT.data[0]));
        if (!(depth >= 1)) throw new SwitchyardError('RUNTIME', `OneHot: depth must be positive, got ${depth}`);
        const r = indices.dims.length;
        if (axisAttr < -r - 1 || axisAttr > r) throw new SwitchyardError('INVALID_SHAPE', `OneHot: axis ${axisAttr} is out of range for rank ${r + 1}`);
        const axis = axisAttr < 0 ? axisAttr + r + 1 : axisAttr;
        const dims = [...indices.dims.slice(0, axis), depth, ...indices.dims.slice(axis)];
        const out = allocOutput(ctx, 0, values.type, dims);
        const [off, on] = [values.data[0], values.data[1]];
        fillRun(out.data, 0, out.size, off);
        const outer = product(indices.dims, 0, axis);
        const inner = product(indices.dims, axis);
        for (let o = 0; o < outer; o++) {
          for (let j = 0; j < inner; j++) {
            let v = Math.trunc(numberValue(indices.type, indices.data[o * inner + j]));
            if (v < 0) v += depth;
            // Out-of-range indices give an all-off row, as the spec says.
            if (v >= 0 && v < depth) out.data[(o * depth + v) * inner + j] = on;
          }
        }
        return [out];
      },
    };
  },
});
