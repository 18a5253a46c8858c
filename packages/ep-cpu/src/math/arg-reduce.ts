/** ArgMax/ArgMin: index of the extreme value along one axis, first or last among ties. */
import { SwitchyardError, type Kernel, type KernelInit } from '@switchyard/core';
import { toNumbers } from './numeric.js';

export function argReduceKernel(opType: 'ArgMax' | 'ArgMin'): (init: KernelInit) => Kernel {
  const sign = opType === 'ArgMax' ? 1 : -1;
  return ({ attrs }) => {
    const axisAttr = attrs.int('axis', 0);
    const keepdims = attrs.int('keepdims', 1) !== 0;
    const selectLast = attrs.int('select_last_index', 0) !== 0;
    return {
      run(ctx) {
        const x = ctx.input(0);
        const rank = x.dims.length;
        const axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
        if (axis < 0 || axis >= rank) throw new SwitchyardError('INVALID_ARGUMENT', `${opType}: axis ${axisAttr} is out of range for rank ${rank}`);
        const len = x.dims[axis];
        if (len === 0) throw new SwitchyardError('INVALID_SHAPE', `${opType}: cannot take the ${opType} of an empty axis`);
        const outer = x.dims.slice(0, axis).reduce((a, b) => a * b, 1);
        const inner = x.dims.slice(axis + 1).reduce((a, b) => a * b, 1);
        const dims = keepdims ? x.dims.map((d, i) => (i === axis ? 1 : d)) : x.dims.filter((_, i) => i !== axis);
        const out = ctx.output(0, 'int64', dims);
        // Comparing sign·x turns ArgMin into ArgMax; `>=` vs `>` picks the last or first tie.
        const v = toNumbers(x);
        const o = out.data;
        for (let a = 0; a < outer; a++) {
          for (let i = 0; i < inner; i++) {
            const start = a * len * inner + i;
            let best = sign * v[start];
            let bestK = 0;
            for (let k = 1; k < len; k++) {
              const c = sign * v[start + k * inner];
              if (selectLast ? c >= best : c > best) {
                best = c;
                bestK = k;
              }
            }
            o[a * inner + i] = BigInt(bestK);
          }
        }
        return [out];
      },
    };
  };
}
