/**
 * The normalizations beyond norm-native.ts's oneDNN rows, on the addon's vectorized loops (float32):
 * InstanceNormalization, GroupNormalization (opset 18's per-group and 21's per-channel scale),
 * LayerNormalization where oneDNN does not serve it (Scale/B broadcast along the normalized axes, Mean /
 * InvStdDev outputs), BatchNormalization inference, LpNormalization along any axis,
 * MeanVarianceNormalization over any axes, and LRN. Everything else: the TS kernels.
 */
import { elementCount, type Graph, type Kernel, type KernelDef, type KernelInit, type Node, type Tensor } from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { withNodeErrors } from './native-errors.js';
import { nativeBeside, runsInTs, teamSize, type SizeRule } from './movement-support.js';
import { SMALL_NORM_ELEMENTS } from './native-support.js';
import { instanceNormalizationKernel } from '../kernels/InstanceNormalization.js';
import { groupNormalizationKernel } from '../kernels/GroupNormalization.js';
import { layerNormalizationKernel } from '../kernels/LayerNormalization.js';
import { fusedLayerNormalizationKernel } from '../kernels/FusedLayerNormalization.js';
import { batchNormalizationKernel } from '../kernels/BatchNormalization.js';
import { lpNormalizationKernel } from '../kernels/LpNormalization.js';
import { meanVarianceNormalizationKernel } from '../kernels/MeanVarianceNormalization.js';
import { lrnKernel } from '../kernels/LRN.js';

type NormalizeGroups = NonNullable<NativeBinding['normalizeGroups']>;

const f32 = (t: Tensor | undefined): t is Tensor => t !== undefined && t.type === 'float32';

function createInstanceNorm(binding: NativeBinding, normalize: NormalizeGroups, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const epsilon = init.attrs.float('epsilon', 1e-5);
  return {
    run(ctx) {
      const [x, scale, bias] = [ctx.input(0), ctx.input(1), ctx.input(2)];
      if (!f32(x) || !f32(scale) || !f32(bias) || x.dims.length < 3 || runsInTs(rule, x.size)) return fallback.run(ctx);
      const [n, c] = x.dims;
      const spatial = elementCount(x.dims.slice(2));
      if (scale.size !== c || bias.size !== c || spatial === 0 || !(epsilon >= 0)) return fallback.run(ctx);
      const y = ctx.output(0, 'float32', x.dims, { uninitialized: true });
      const args = [x.data as Float32Array, y.data as Float32Array, n * c, spatial, epsilon, scale.data as Float32Array, bias.data as Float32Array, c, spatial] as const;
      withNodeErrors(node, () => normalize(...args, null, null, teamSize(binding, ctx)));
      return [y];
    },
  };
}

function createGroupNorm(binding: NativeBinding, normalize: NormalizeGroups, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const epsilon = init.attrs.float('epsilon', 1e-5);
  const groups = init.attrs.int('num_groups');
  const perChannel = init.opset >= 21;
  return {
    run(ctx) {
      const [x, scale, bias] = [ctx.input(0), ctx.input(1), ctx.input(2)];
      if (!f32(x) || !f32(scale) || !f32(bias) || x.dims.length < 2 || runsInTs(rule, x.size)) return fallback.run(ctx);
      const [n, c] = x.dims;
      const spatial = elementCount(x.dims.slice(2));
      const params = perChannel ? c : groups;
      // Bad group counts and parameter sizes get the TS kernel's errors.
      if (!(groups >= 1) || c % groups !== 0 || scale.size !== params || bias.size !== params || spatial === 0 || !(epsilon >= 0)) return fallback.run(ctx);
      const cols = (c / groups) * spatial;
      const y = ctx.output(0, 'float32', x.dims, { uninitialized: true });
      // Per channel (21): a scale per block of `spatial` columns; per group (18): one per row.
      const args = [x.data as Float32Array, y.data as Float32Array, n * groups, cols, epsilon, scale.data as Float32Array, bias.data as Float32Array, groups, perChannel ? spatial : cols] as const;
      withNodeErrors(node, () => normalize(...args, null, null, teamSize(binding, ctx)));
      return [y];
    },
  };
}

/** How many of Scale's elements repeat along the normalized dims, when Scale's dims (leading 1s dropped) are their suffix. */
function suffixPeriod(param: readonly number[], normDims: readonly number[]): number | undefined {
  let k = 0;
  while (k < param.length && param[k] === 1 && param.length - k > normDims.length) k++;
  const own = param.slice(k);
  if (own.length > normDims.length) return undefined;
  const tail = normDims.slice(normDims.length - own.length);
  return own.every((d, i) => d === tail[i]) ? elementCount(own) : undefined;
}

function createLayerNorm(binding: NativeBinding, normalize: NormalizeGroups, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const axisAttr = init.attrs.int('axis', -1);
  const epsilon = init.attrs.float('epsilon', 1e-5);
  return {
    run(ctx) {
      const x = ctx.input(0);
      const scale = ctx.input(1);
      const bias = ctx.optionalInput(2);
      const rank = x.dims.length;
      const axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
      if (!f32(x) || !f32(scale) || (bias && !f32(bias)) || !(axis >= 0 && axis < rank) || x.size === 0 || !(epsilon >= 0) || runsInTs(rule, x.size)) return fallback.run(ctx);
      const normDims = x.dims.slice(axis);
      const period = suffixPeriod(scale.dims, normDims);
      if (period === undefined || (bias && suffixPeriod(bias.dims, normDims) !== period)) return fallback.run(ctx);
      const cols = elementCount(normDims);
      const rows = x.size / cols;
      const statDims = [...x.dims.slice(0, axis), ...normDims.map(() => 1)];
      const outs = node.outputs;
      const y = ctx.output(0, 'float32', x.dims, { uninitialized: true });
      const mean = outs[1] ? ctx.output(1, 'float32', statDims, { uninitialized: true }) : undefined;
      const inv = outs[2] ? ctx.output(2, 'float32', statDims, { uninitialized: true }) : undefined;
      const args = [x.data as Float32Array, y.data as Float32Array, rows, cols, epsilon, scale.data as Float32Array, bias ? (bias.data as Float32Array) : null, 1, 1] as const;
      withNodeErrors(node, () => normalize(...args, mean ? (mean.data as Float32Array) : null, inv ? (inv.data as Float32Array) : null, teamSize(binding, ctx)));
      const results: Array<Tensor | null> = [y];
      if (outs.length > 1) results.push(mean ?? null);
      if (outs.length > 2) results.push(inv ?? null);
      return results;
    },
  };
}

function createBatchNorm(binding: NativeBinding, batchNorm: NonNullable<NativeBinding['batchNorm']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const epsilon = init.attrs.float('epsilon', 1e-5);
  const training = init.opset >= 14 && init.attrs.int('training_mode', 0) !== 0;
  const extraOutputs = node.outputs.slice(1).some(Boolean);
  return {
    run(ctx) {
      const x = ctx.input(0);
      const params = [1, 2, 3, 4].map((i) => ctx.input(i));
      if (training || extraOutputs || !f32(x) || x.dims.length < 2 || runsInTs(rule, x.size) || !(epsilon >= 0)) return fallback.run(ctx);
      const c = x.dims[1];
      // Per-activation parameters (opset < 9, spatial = 0) and bad sizes: the TS kernel.
      if (params.some((p) => !f32(p) || p.size !== c)) return fallback.run(ctx);
      const y = ctx.output(0, 'float32', x.dims, { uninitialized: true });
      const [scale, bias, mean, variance] = params.map((p) => p.data as Float32Array);
      const spatial = elementCount(x.dims.slice(2));
      withNodeErrors(node, () => batchNorm(x.data as Float32Array, y.data as Float32Array, x.dims[0], c, spatial, scale, bias, mean, variance, epsilon, teamSize(binding, ctx)));
      return [y];
    },
  };
}

function createLpNorm(binding: NativeBinding, lpNormalize: NonNullable<NativeBinding['lpNormalize']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const p = init.attrs.int('p', 2);
  const axisAttr = init.attrs.int('axis', -1);
  return {
    run(ctx) {
      const x = ctx.input(0);
      const rank = x.dims.length;
      const axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
      if (!f32(x) || (p !== 1 && p !== 2) || !(axis >= 0 && axis < rank) || runsInTs(rule, x.size)) return fallback.run(ctx);
      const y = ctx.output(0, 'float32', x.dims, { uninitialized: true });
      const outer = elementCount(x.dims.slice(0, axis));
      const inner = elementCount(x.dims.slice(axis + 1));
      withNodeErrors(node, () => lpNormalize(x.data as Float32Array, y.data as Float32Array, outer, x.dims[axis], inner, p, teamSize(binding, ctx)));
      return [y];
    },
  };
}

function createMeanVariance(binding: NativeBinding, mvn: NonNullable<NativeBinding['meanVariance']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const axesAttr = init.attrs.ints('axes', [0, 2, 3]);
  return {
    run(ctx) {
      const x = ctx.input(0);
      const rank = x.dims.length;
      // Axes out of range get the TS kernel's error.
      if (!f32(x) || runsInTs(rule, x.size) || axesAttr.some((a) => !(a >= -rank && a < rank))) return fallback.run(ctx);
      const y = ctx.output(0, 'float32', x.dims, { uninitialized: true });
      const axes = axesAttr.map((a) => (a < 0 ? a + rank : a));
      withNodeErrors(node, () => mvn(x.data as Float32Array, y.data as Float32Array, x.dims, axes, teamSize(binding, ctx)));
      return [y];
    },
  };
}

function createLrn(binding: NativeBinding, lrn: NonNullable<NativeBinding['lrn']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const size = init.attrs.int('size', 0);
  const alpha = init.attrs.float('alpha', 1e-4);
  const beta = init.attrs.float('beta', 0.75);
  const bias = init.attrs.float('bias', 1);
  // A bad size, rank or non-finite attribute gets the TS kernel's error or result.
  const served = size >= 1 && [alpha, beta, bias].every(Number.isFinite);
  return {
    run(ctx) {
      const x = ctx.input(0);
      if (!served || !f32(x) || x.dims.length < 2 || runsInTs(rule, x.size)) return fallback.run(ctx);
      const y = ctx.output(0, 'float32', x.dims, { uninitialized: true });
      const spatial = elementCount(x.dims.slice(2));
      withNodeErrors(node, () => lrn(x.data as Float32Array, y.data as Float32Array, x.dims[0], x.dims[1], spatial, size, alpha, beta, bias, teamSize(binding, ctx)));
      return [y];
    },
  };
}

function float32Inputs(count: number) {
  return (node: Node, graph: Graph): true | string => {
    for (const name of node.inputs.slice(0, count)) {
      const t = name ? graph.elemTypeOf(name) : undefined;
      if (t !== undefined && t !== 'float32') return `${name} is ${t}; the native normalizations serve float32`;
    }
    return true;
  };
}

/** The normalization defs for what the loaded addon exports; `smallOpsInTs` leaves tensors below SMALL_NORM_ELEMENTS to TS. */
export function nativeGroupNormKernels(binding: NativeBinding, smallOpsInTs = true): KernelDef[] {
  const rule: SizeRule = { smallOpsInTs, small: SMALL_NORM_ELEMENTS };
  const defs: KernelDef[] = [];
  const options = (create: (init: KernelInit, fallback: Kernel) => Kernel, inputs = 1) => ({ types: ['float32'] as const, supports: float32Inputs(inputs), create });
  const normalize = binding.normalizeGroups?.bind(binding);
  if (normalize) {
    defs.push(nativeBeside(instanceNormalizationKernel, rule, options((init, fb) => createInstanceNorm(binding, normalize, rule, init, fb), 3)));
    defs.push(nativeBeside(groupNormalizationKernel, rule, options((init, fb) => createGroupNorm(binding, normalize, rule, init, fb), 3)));
    for (const ts of [layerNormalizationKernel, fusedLayerNormalizationKernel]) {
      defs.push(nativeBeside(ts, rule, options((init, fb) => createLayerNorm(binding, normalize, rule, init, fb), 3)));
    }
  }
  const batchNorm = binding.batchNorm?.bind(binding);
  if (batchNorm) defs.push(nativeBeside(batchNormalizationKernel, rule, options((init, fb) => createBatchNorm(binding, batchNorm, rule, init, fb), 5)));
  const lpNormalize = binding.lpNormalize?.bind(binding);
  if (lpNormalize) defs.push(nativeBeside(lpNormalizationKernel, rule, options((init, fb) => createLpNorm(binding, lpNormalize, rule, init, fb))));
  const mvn = binding.meanVariance?.bind(binding);
  if (mvn) defs.push(nativeBeside(meanVarianceNormalizationKernel, rule, options((init, fb) => createMeanVariance(binding, mvn, rule, init, fb))));
  const lrn = binding.lrn?.bind(binding);
  if (lrn) defs.push(nativeBeside(lrnKernel, rule, options((init, fb) => createLrn(binding, lrn, rule, init, fb))));
  return defs;
}
