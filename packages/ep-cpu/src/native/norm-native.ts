/**
 * Softmax and LayerNormalization on oneDNN's vectorized primitives, as row-wise operations over a
 * row-major [rows, cols] view. Softmax (opset 13+) is served when its axis is the last one; the
 * opset 1–12 form always is (it flattens at the axis). LayerNormalization (ai.onnx 17 and the
 * com.microsoft form the fusion emits) is served with Scale/B of exactly the normalized size and no
 * Mean/InvStdDev outputs. Everything else runs on the TS kernel, built beside each of these.
 */
import { elementCount, type Graph, type Kernel, type KernelDef, type KernelInit, type KernelRunContext, type Node } from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { withNativeErrors } from './native-errors.js';
import { effectiveThreads, float32Data, float32Reason } from './native-support.js';
import { softmaxKernels } from '../kernels/Softmax.js';
import { layerNormalizationKernel } from '../kernels/LayerNormalization.js';
import { fusedLayerNormalizationKernel } from '../kernels/FusedLayerNormalization.js';

/** The axis as a non-negative index, or undefined when out of range (the TS kernel reports that). */
function resolveAxis(axis: number, rank: number): number | undefined {
  const a = axis < 0 ? axis + rank : axis;
  return Number.isInteger(a) && a >= 0 && a < Math.max(rank, 1) ? a : undefined;
}

function supportsFloat32X(node: Node, graph: Graph): true | string {
  const x = node.inputs[0];
  if (!x) return `${node.opType} needs X`;
  return float32Reason(graph, x, 'X') ?? true;
}

function createSoftmax(
  binding: NativeBinding,
  softmaxRows: NonNullable<NativeBinding['softmaxRows']>,
  fallbackDef: KernelDef,
  coerce2d: boolean,
  init: KernelInit,
): Kernel {
  const { node } = init;
  const fallback = fallbackDef.create(init);
  const axisAttr = init.attrs.int('axis', coerce2d ? 1 : -1);
  return {
    implementation: 'onednn',
    async run(ctx: KernelRunContext) {
      const x = ctx.input(0);
      const rank = x.dims.length;
      const axis = resolveAxis(axisAttr, rank);
      // Opset 13+ normalizes one axis: as rows only when it is the last.
      if (x.type !== 'float32' || axis === undefined || x.size === 0 || rank === 0 || (!coerce2d && axis !== rank - 1)) return fallback.run(ctx);
      const rows = elementCount(x.dims.slice(0, axis));
      const cols = x.size / rows;
      const y = ctx.output(0, 'float32', x.dims);
      const xData = float32Data(node, x, 'X');
      const yData = float32Data(node, y, 'Y');
      await withNativeErrors(node, () => softmaxRows(xData, yData, rows, cols, effectiveThreads(binding, ctx.threads)));
      return [y];
    },
    dispose() {
      fallback.dispose?.();
    },
  };
}

function supportsLayerNorm(node: Node, graph: Graph): true | string {
  const [x, scale, bias] = node.inputs;
  if (!x || !scale) return 'LayerNormalization needs X and Scale';
  const dtype = float32Reason(graph, x, 'X') ?? float32Reason(graph, scale, 'Scale') ?? (bias ? float32Reason(graph, bias, 'B') : undefined);
  if (dtype) return dtype;
  if (node.outputs.slice(1).some(Boolean)) return 'Mean/InvStdDev outputs are served by the TS kernel';
  return true;
}

function createLayerNorm(
  binding: NativeBinding,
  layerNormRows: NonNullable<NativeBinding['layerNormRows']>,
  fallbackDef: KernelDef,
  init: KernelInit,
): Kernel {
  const { node } = init;
  const fallback = fallbackDef.create(init);
  const axisAttr = init.attrs.int('axis', -1);
  const epsilon = init.attrs.float('epsilon', 1e-5);
  return {
    implementation: 'onednn',
    async run(ctx: KernelRunContext) {
      const x = ctx.input(0);
      const scale = ctx.input(1);
      const bias = ctx.optionalInput(2);
      const rank = x.dims.length;
      const axis = resolveAxis(axisAttr, rank);
      if (axis === undefined || rank === 0 || x.size === 0 || !(epsilon >= 0)) return fallback.run(ctx);
      const rows = elementCount(x.dims.slice(0, axis));
      const cols = x.size / rows;
      // Broadcast Scale/B (fewer elements than the normalized size) and other dtypes: the TS kernel.
      const plain = x.type === 'float32' && scale.type === 'float32' && scale.size === cols && (!bias || (bias.type === 'float32' && bias.size === cols));
      if (!plain) return fallback.run(ctx);
      const y = ctx.output(0, 'float32', x.dims);
      const args = [float32Data(node, x, 'X'), float32Data(node, scale, 'Scale'), bias ? float32Data(node, bias, 'B') : null, float32Data(node, y, 'Y')] as const;
      await withNativeErrors(node, () => layerNormRows(...args, rows, cols, epsilon, effectiveThreads(binding, ctx.threads)));
      return node.outputs.length > 1 ? [y, ...node.outputs.slice(1).map(() => null)] : [y];
    },
    dispose() {
      fallback.dispose?.();
    },
  };
}

/** Softmax and LayerNormalization defs, for what the loaded addon exports. */
export function nativeNormKernels(binding: NativeBinding): KernelDef[] {
  const defs: KernelDef[] = [];
  const softmaxRows = binding.softmaxRows?.bind(binding);
  if (softmaxRows) {
    for (const fallback of softmaxKernels) {
      const coerce2d = fallback.sinceVersion < 13;
      defs.push({
        ep: 'cpu',
        domain: '',
        opType: 'Softmax',
        sinceVersion: fallback.sinceVersion,
        endVersion: fallback.endVersion,
        typeConstraints: { T: ['float32'] },
        implementation: 'onednn',
        supports: supportsFloat32X,
        create: (init) => createSoftmax(binding, softmaxRows, fallback, coerce2d, init),
      });
    }
  }
  const layerNormRows = binding.layerNormRows?.bind(binding);
  if (layerNormRows) {
    for (const fallback of [layerNormalizationKernel, fusedLayerNormalizationKernel]) {
      defs.push({
        ep: 'cpu',
        domain: fallback.domain,
        opType: 'LayerNormalization',
        sinceVersion: fallback.sinceVersion,
        typeConstraints: fallback.typeConstraints ? { ...fallback.typeConstraints, T: ['float32'] } : undefined,
        implementation: 'onednn',
        supports: supportsLayerNorm,
        create: (init) => createLayerNorm(binding, layerNormRows, fallback, init),
      });
    }
  }
  return defs;
}
