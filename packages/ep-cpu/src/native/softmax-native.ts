/**
 * Softmax, LogSoftmax and Hardmax on the addon's vectorized loops, along any axis: opset 1–12 coerce the
 * input to 2-D at the axis (rows), opset 13+ normalize one axis ([outer, len, inner], a strided axis read
 * a cache-sized block of columns at a time). float32; float16/float64 go to the TS kernel.
 */
import { elementCount, type Kernel, type KernelDef, type KernelInit } from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { withNodeErrors } from './native-errors.js';
import { nativeBeside, runsInTs, teamSize, type SizeRule } from './movement-support.js';
import { SMALL_SOFTMAX_ELEMENTS } from './native-support.js';
import { softmaxKernels } from '../kernels/Softmax.js';
import { logSoftmaxKernels } from '../kernels/LogSoftmax.js';
import { hardmaxKernels } from '../kernels/Hardmax.js';

type Kind = 'softmax' | 'logSoftmax' | 'hardmax';

function createSoftmax(binding: NativeBinding, softmax: NonNullable<NativeBinding['softmax']>, kind: Kind, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const coerce2d = init.opset < 13;
  const axisAttr = init.attrs.int('axis', coerce2d ? 1 : -1);
  return {
    run(ctx) {
      const x = ctx.input(0);
      const rank = x.dims.length;
      const axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
      // Other dtypes, scalars and a bad axis (its error) go to the TS kernel.
      if (x.type !== 'float32' || rank === 0 || !(axis >= 0 && axis < rank) || runsInTs(rule, x.size)) return fallback.run(ctx);
      const outer = elementCount(x.dims.slice(0, axis));
      const len = coerce2d ? elementCount(x.dims.slice(axis)) : x.dims[axis];
      const inner = coerce2d ? 1 : elementCount(x.dims.slice(axis + 1));
      const y = ctx.output(0, 'float32', x.dims, { uninitialized: true });
      withNodeErrors(node, () => softmax(x.data as Float32Array, y.data as Float32Array, outer, len, inner, kind, teamSize(binding, ctx)));
      return [y];
    },
  };
}

/** Softmax, LogSoftmax and Hardmax defs (both opset forms) for what the loaded addon exports. */
export function nativeSoftmaxKernels(binding: NativeBinding, smallOpsInTs = true): KernelDef[] {
  const softmax = binding.softmax?.bind(binding);
  if (!softmax) return [];
  const rule: SizeRule = { smallOpsInTs, small: SMALL_SOFTMAX_ELEMENTS };
  const families: Array<[readonly KernelDef[], Kind]> = [
    [softmaxKernels, 'softmax'],
    [logSoftmaxKernels, 'logSoftmax'],
    [hardmaxKernels, 'hardmax'],
  ];
  return families.flatMap(([defs, kind]) =>
    defs.map((ts) => nativeBeside(ts, rule, { types: ['float32'], create: (init, fallback) => createSoftmax(binding, softmax, kind, rule, init, fallback) })),
  );
}
