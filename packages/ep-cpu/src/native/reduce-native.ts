/**
 * The float32 reductions (ReduceSum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSum, LogSumExp) over
 * any set of axes, ArgMax/ArgMin and TopK, on the addon's loops: axes from the attribute or the
 * input per opset, keepdims and noop_with_empty_axes as the TS kernels read them (math/reduce.ts), which
 * serve every other dtype.
 */
import type { Kernel, KernelDef, KernelInit } from '@switchyard/core';
import type { NativeBinding, NativeReduceOp } from './binding.js';
import { withNodeErrors } from './native-errors.js';
import { nativeBeside, runsInTs, teamSize, type SizeRule } from './movement-support.js';
import { SMALL_REDUCE_ELEMENTS } from './native-support.js';
import { normalizeAxes, readAxes } from '../math/reduce.js';
import { reduceL1Kernel } from '../kernels/ReduceL1.js';
import { reduceL2Kernel } from '../kernels/ReduceL2.js';
import { reduceLogSumKernel } from '../kernels/ReduceLogSum.js';
import { reduceLogSumExpKernel } from '../kernels/ReduceLogSumExp.js';
import { reduceMaxKernel } from '../kernels/ReduceMax.js';
import { reduceMeanKernel } from '../kernels/ReduceMean.js';
import { reduceMinKernel } from '../kernels/ReduceMin.js';
import { reduceProdKernel } from '../kernels/ReduceProd.js';
import { reduceSumKernel } from '../kernels/ReduceSum.js';
import { reduceSumSquareKernel } from '../kernels/ReduceSumSquare.js';
import { argMaxKernel } from '../kernels/ArgMax.js';
import { argMinKernel } from '../kernels/ArgMin.js';
import { topKKernel } from '../kernels/TopK.js';
import { readScalarInt } from '../tensor-ops/indices.js';

const REDUCTIONS: ReadonlyArray<[KernelDef, NativeReduceOp]> = [
  [reduceSumKernel, 'sum'],
  [reduceMeanKernel, 'mean'],
  [reduceSumSquareKernel, 'sumSquare'],
  [reduceL1Kernel, 'l1'],
  [reduceL2Kernel, 'l2'],
  [reduceLogSumKernel, 'logSum'],
  [reduceLogSumExpKernel, 'logSumExp'],
  [reduceMaxKernel, 'max'],
  [reduceMinKernel, 'min'],
  [reduceProdKernel, 'prod'],
];

function createReduce(binding: NativeBinding, reduce: NonNullable<NativeBinding['reduce']>, op: NativeReduceOp, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const keepdims = init.attrs.int('keepdims', 1) !== 0;
  const noopWithEmptyAxes = init.attrs.int('noop_with_empty_axes', 0) !== 0;
  return {
    run(ctx) {
      const x = ctx.input(0);
      if (x.type !== 'float32' || runsInTs(rule, x.size)) return fallback.run(ctx);
      let axes = readAxes(init, ctx.optionalInput(1));
      if (axes.length === 0) {
        if (noopWithEmptyAxes) return fallback.run(ctx); // a copy
        axes = [...x.dims.keys()];
      }
      const sorted = normalizeAxes(axes, x.dims.length, node.opType);
      const reduced = new Set(sorted);
      const dims = keepdims ? x.dims.map((d, a) => (reduced.has(a) ? 1 : d)) : x.dims.filter((_, a) => !reduced.has(a));
      const y = ctx.output(0, 'float32', dims, { uninitialized: true });
      withNodeErrors(node, () => reduce(x.data as Float32Array, x.dims, sorted, op, y.data as Float32Array, teamSize(binding, ctx)));
      return [y];
    },
  };
}

function createArgReduce(binding: NativeBinding, argReduce: NonNullable<NativeBinding['argReduce']>, isMax: boolean, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const axisAttr = init.attrs.int('axis', 0);
  const keepdims = init.attrs.int('keepdims', 1) !== 0;
  const selectLast = init.attrs.int('select_last_index', 0) !== 0;
  return {
    run(ctx) {
      const x = ctx.input(0);
      const rank = x.dims.length;
      const axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
      // Other dtypes, a bad axis and an empty axis get the TS kernel (and its errors).
      if (x.type !== 'float32' || runsInTs(rule, x.size) || !(axis >= 0 && axis < rank) || x.dims[axis] === 0) return fallback.run(ctx);
      const outer = x.dims.slice(0, axis).reduce((a, b) => a * b, 1);
      const inner = x.dims.slice(axis + 1).reduce((a, b) => a * b, 1);
      const dims = keepdims ? x.dims.map((d, i) => (i === axis ? 1 : d)) : x.dims.filter((_, i) => i !== axis);
      const y = ctx.output(0, 'int64', dims, { uninitialized: true });
      withNodeErrors(node, () => argReduce(x.data as Float32Array, outer, x.dims[axis], inner, isMax, selectLast, y.data as BigInt64Array, teamSize(binding, ctx)));
      return [y];
    },
  };
}

/** TopK along one axis (always sorted: `sorted` = 0 allows any order), K from the attribute before opset 10. */
function createTopK(binding: NativeBinding, topK: NonNullable<NativeBinding['topK']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const axisAttr = init.attrs.int('axis', -1);
  const largest = init.attrs.int('largest', 1) !== 0;
  const kAttr = init.opset < 10 ? init.attrs.int('k') : undefined;
  return {
    run(ctx) {
      const x = ctx.input(0);
      const rank = x.dims.length;
      const axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
      const k = kAttr ?? readScalarInt(ctx.input(1), 'TopK K');
      // Other dtypes, a bad axis or K, and lanes past 2^31 get the TS kernel (and its errors).
      if (x.type !== 'float32' || runsInTs(rule, x.size) || !(axis >= 0 && axis < rank) || !(k >= 0 && k <= x.dims[axis]) || x.dims[axis] >= 2 ** 31) {
        return fallback.run(ctx);
      }
      const outer = x.dims.slice(0, axis).reduce((a, b) => a * b, 1);
      const inner = x.dims.slice(axis + 1).reduce((a, b) => a * b, 1);
      const dims = x.dims.map((d, i) => (i === axis ? k : d));
      const values = ctx.output(0, 'float32', dims, { uninitialized: true });
      const indices = ctx.output(1, 'int64', dims, { uninitialized: true });
      withNodeErrors(node, () =>
        topK(x.data as Float32Array, outer, x.dims[axis], inner, k, largest, values.data as Float32Array, indices.data as BigInt64Array, teamSize(binding, ctx)),
      );
      return [values, indices];
    },
  };
}

/** The reduction and arg-reduction defs for what the loaded addon exports. */
export function nativeReduceKernels(binding: NativeBinding, smallOpsInTs = true): KernelDef[] {
  const rule: SizeRule = { smallOpsInTs, small: SMALL_REDUCE_ELEMENTS, measure: 'input' };
  const defs: KernelDef[] = [];
  const reduce = binding.reduce?.bind(binding);
  if (reduce) {
    for (const [ts, op] of REDUCTIONS) {
      defs.push(nativeBeside(ts, rule, { types: ['float32'], create: (init, fallback) => createReduce(binding, reduce, op, rule, init, fallback) }));
    }
  }
  const argReduce = binding.argReduce?.bind(binding);
  if (argReduce) {
    for (const [ts, isMax] of [[argMaxKernel, true], [argMinKernel, false]] as const) {
      defs.push(nativeBeside(ts, rule, { types: ['float32'], create: (init, fallback) => createArgReduce(binding, argReduce, isMax, rule, init, fallback) }));
    }
  }
  const topK = binding.topK?.bind(binding);
  if (topK) defs.push(nativeBeside(topKKernel, rule, { types: ['float32'], create: (init, fallback) => createTopK(binding, topK, rule, init, fallback) }));
  return defs;
}
