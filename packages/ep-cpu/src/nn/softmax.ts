/**
 * Softmax, LogSoftmax and Hardmax along one axis. Opset < 13 coerces the input to 2-D at `axis`
 * (default 1) and normalizes each row; opset ≥ 13 normalizes along the single axis (default -1).
 */
import { defineKernel, elementCount, simpleKernel, type KernelDef } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput, normalizeAxis, type FloatArray } from './float-io.js';

export type SoftmaxKind = 'softmax' | 'logsoftmax' | 'hardmax';

function run(kind: SoftmaxKind, x: FloatArray, y: FloatArray, outer: number, len: number, inner: number): void {
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const base = o * len * inner + i;
      let max = -Infinity;
      let arg = 0;
      for (let k = 0; k < len; k++) {
        const v = x[base + k * inner];
        if (v > max) {
          max = v;
          arg = k;
        }
      }
      if (kind === 'hardmax') {
        for (let k = 0; k < len; k++) y[base + k * inner] = k === arg ? 1 : 0;
        continue;
      }
      let sum = 0;
      for (let k = 0; k < len; k++) {
        const e = Math.exp(x[base + k * inner] - max);
        if (kind === 'softmax') y[base + k * inner] = e;
        sum += e;
      }
      if (kind === 'softmax') {
        const inv = 1 / sum;
        for (let k = 0; k < len; k++) y[base + k * inner] *= inv;
      } else {
        const logSum = Math.log(sum) + max;
        for (let k = 0; k < len; k++) y[base + k * inner] = x[base + k * inner] - logSum;
      }
    }
  }
}

/** The two definitions (coerced-2-D up to 12, single-axis from 13) for one of the three ops. */
export function softmaxFamilyKernels(opType: string, kind: SoftmaxKind): KernelDef[] {
  const make = (sinceVersion: number, endVersion: number | undefined, coerce2d: boolean): KernelDef =>
    defineKernel({
      ep: 'cpu',
      domain: '',
      opType,
      sinceVersion,
      endVersion,
      // bfloat16 (in ONNX's T since opset 13) computes in float32 as float16 does.
      typeConstraints: { T: [...FLOAT_KERNEL_TYPES, 'bfloat16'] },
      create: simpleKernel((ctx, init) => {
        const X = ctx.input(0);
        const rank = X.dims.length;
        const axis = normalizeAxis(init.attrs.int('axis', coerce2d ? 1 : -1), rank, opType);
        const outer = elementCount(X.dims.slice(0, axis));
        const len = coerce2d ? elementCount(X.dims.slice(axis)) : rank === 0 ? 1 : X.dims[axis];
        const inner = coerce2d ? 1 : elementCount(X.dims.slice(axis + 1));
        const y = floatOutput(ctx, 0, X.type, X.dims);
        if (X.size > 0) run(kind, floatData(X), y.data, outer, len, inner);
        return [y.commit()];
      }),
    });
  return [make(1, 12, true), make(13, undefined, false)];
}
