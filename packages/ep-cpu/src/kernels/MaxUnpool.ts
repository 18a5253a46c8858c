/**
 * MaxUnpool: scatters X into a zero tensor at the flat positions in I (as produced by MaxPool's Indices).
 * Output spatial size: (in - 1)·stride + kernel - pads, unless the `output_shape` input (opset 11) gives it.
 */
import { SwitchyardError, defineKernel, elementCount, simpleKernel } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput } from '../nn/float-io.js';
import { readWindowAttrs } from '../nn/geometry.js';

export const maxUnpoolKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'MaxUnpool',
  sinceVersion: 9,
  typeConstraints: { T1: FLOAT_KERNEL_TYPES, T2: ['int64'] },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    const I = ctx.input(1);
    const shapeInput = ctx.optionalInput(2);
    if (X.dims.length < 3) throw new SwitchyardError('INVALID_SHAPE', `MaxUnpool: X must have rank ≥ 3, got [${X.dims.join(', ')}]`);
    if (I.type !== 'int64' || I.size !== X.size) throw new SwitchyardError('INVALID_SHAPE', 'MaxUnpool: I must be int64 with the shape of X');
    const n = X.dims.length - 2;
    const w = readWindowAttrs('MaxUnpool', init.attrs, n);
    // Indices address the default output shape; an explicit output_shape keeps each value's coordinates.
    const defDims = [X.dims[0], X.dims[1]];
    for (let i = 0; i < n; i++) defDims.push((X.dims[i + 2] - 1) * w.strides[i] + w.kernel[i] - w.pads[i] - w.pads[i + n]);
    const defSize = elementCount(defDims, 'MaxUnpool output');
    let outDims = defDims;
    if (shapeInput) {
      outDims = Array.from(shapeInput.data as BigInt64Array, Number);
      if (outDims.length !== X.dims.length || outDims[0] !== X.dims[0] || outDims[1] !== X.dims[1]) {
        throw new SwitchyardError('INVALID_SHAPE', `MaxUnpool: output_shape [${outDims.join(', ')}] must be [${X.dims[0]}, ${X.dims[1]}, ...${n} spatial sizes]`);
      }
    }
    elementCount(outDims, 'MaxUnpool output');
    const defPlane = elementCount(defDims.slice(2));
    const outPlane = elementCount(outDims.slice(2));
    const x = floatData(X);
    const idx = I.data as BigInt64Array;
    const y = floatOutput(ctx, 0, X.type, outDims);
    y.data.fill(0);
    for (let j = 0; j < X.size; j++) {
      const at = Number(idx[j]);
      if (!(at >= 0 && at < defSize)) throw new SwitchyardError('INVALID_ARGUMENT', `MaxUnpool: index ${at} is outside the unpooled size ${defSize}`);
      const plane = Math.floor(at / defPlane);
      let local = at - plane * defPlane;
      let target = 0;
      let stride = 1;
      for (let i = n - 1; i >= 0; i--) {
        const coord = local % defDims[i + 2];
        local = (local - coord) / defDims[i + 2];
        if (coord >= outDims[i + 2]) throw new SwitchyardError('INVALID_ARGUMENT', `MaxUnpool: index ${at} falls outside output_shape`);
        target += coord * stride;
        stride *= outDims[i + 2];
      }
      y.data[plane * outPlane + target] = x[j];
    }
    return [y.commit()];
  }),
});
