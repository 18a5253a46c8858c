/**
 * MeanVarianceNormalization: (x - E[x]) / (sqrt(E[x²] - E[x]²) + 1e-9) with the expectations over
 * `axes` (default [0, 2, 3]), as in the ONNX function definition.
 */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput, normalizeAxis } from '../nn/float-io.js';

export const meanVarianceNormalizationKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'MeanVarianceNormalization',
  sinceVersion: 9,
  typeConstraints: { T: [...FLOAT_KERNEL_TYPES, 'bfloat16'] },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    const rank = X.dims.length;
    const axes = new Set(init.attrs.ints('axes', [0, 2, 3]).map((a) => normalizeAxis(a, rank, 'MeanVarianceNormalization')));
    // Group elements by their coordinates on the kept axes: key = flat index over kept axes.
    const keptDims = X.dims.map((d, i) => (axes.has(i) ? 1 : d));
    const groups = keptDims.reduce((a, b) => a * b, 1);
    const groupOf = new Int32Array(X.size);
    const strides = new Array<number>(rank);
    let st = 1;
    for (let i = rank - 1; i >= 0; i--) {
      strides[i] = st;
      st *= keptDims[i];
    }
    for (let flat = 0; flat < X.size; flat++) {
      let rem = flat;
      let g = 0;
      for (let i = rank - 1; i >= 0; i--) {
        const idx = rem % X.dims[i];
        rem = (rem - idx) / X.dims[i];
        if (!axes.has(i)) g += idx * strides[i];
      }
      groupOf[flat] = g;
    }
    const x = floatData(X);
    const sum = new Float64Array(groups);
    const sumSq = new Float64Array(groups);
    const count = X.size / groups;
    for (let i = 0; i < X.size; i++) {
      sum[groupOf[i]] += x[i];
      sumSq[groupOf[i]] += x[i] * x[i];
    }
    const y = floatOutput(ctx, 0, X.type, X.dims);
    for (let i = 0; i < X.size; i++) {
      const g = groupOf[i];
      const mean = sum[g] / count;
      const std = Math.sqrt(Math.max(0, sumSq[g] / count - mean * mean));
      y.data[i] = (x[i] - mean) / (std + 1e-9);
    }
    return [y.commit()];
  }),
});
