/**
 * LayerNormalization on oneDNN's vectorized primitive, as a row-wise operation over a row-major
 * [rows, cols] view: ai.onnx 17 and the com.microsoft form the fusion emits, with Scale/B of exactly the
 * normalized size and no Mean/InvStdDev outputs (group-norm-native.ts serves the other float32 forms;
 * the TS kernel, built beside each, the rest). Softmax on any axis is softmax-native.ts.
 */
import { AttributeReader, SwitchyardError, elementCount, type Graph, type Kernel, type KernelDef, type KernelInit, type KernelRunContext, type Node } from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { withNativeErrors } from './native-errors.js';
import { effectiveThreads, float32Data, float32Reason, staticDims } from './native-support.js';
import { layerNormalizationKernel } from '../kernels/LayerNormalization.js';
import { fusedLayerNormalizationKernel } from '../kernels/FusedLayerNormalization.js';
import { FUSED_DOMAIN } from '../kernels/FusedMatMul.js';

/** The axis as a non-negative index, or undefined when out of range (the TS kernel reports that). */
export function resolveAxis(axis: number, rank: number): number | undefined {
  const a = axis < 0 ? axis + rank : axis;
  return Number.isInteger(a) && a >= 0 && a < Math.max(rank, 1) ? a : undefined;
}

function supportsLayerNorm(node: Node, graph: Graph): true | string {
  const [x, scale, bias] = node.inputs;
  if (!x || !scale) return 'LayerNormalization needs X and Scale';
  const dtype = float32Reason(graph, x, 'X') ?? float32Reason(graph, scale, 'Scale') ?? (bias ? float32Reason(graph, bias, 'B') : undefined);
  if (dtype) return dtype;
  if (node.outputs.slice(1).some(Boolean)) return 'Mean/InvStdDev outputs: oneDNN layer normalization writes neither';
  // Scale/B broadcast along the normalized axes, when the static shapes show it.
  const xDims = staticDims(graph.typeOf(x));
  const axis = xDims ? resolveAxis(new AttributeReader(node).int('axis', -1), xDims.length) : undefined;
  if (xDims && axis !== undefined) {
    const cols = xDims.slice(axis).reduce((a, b) => a * b, 1);
    for (const p of [scale, bias]) {
      const dims = p ? staticDims(graph.typeOf(p)) : undefined;
      if (dims && dims.reduce((a, b) => a * b, 1) !== cols) return 'Scale/B broadcast along the normalized axes: oneDNN takes them whole';
    }
  }
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

/** Whether the addon runs the skip-LayerNorm fusion's op (the pass is left out otherwise). */
export function supportsSkipLayerNorm(binding: NativeBinding): boolean {
  return typeof binding.skipLayerNormRows === 'function';
}

function supportsSkipLayerNormNode(node: Node, graph: Graph): true | string {
  const [a, b, scale, bias] = node.inputs;
  if (!a || !b || !scale) return 'SkipLayerNormalization needs A, B and Scale';
  return float32Reason(graph, a, 'A') ?? float32Reason(graph, b, 'B') ?? float32Reason(graph, scale, 'Scale') ?? (bias ? float32Reason(graph, bias, 'B') : undefined) ?? true;
}

/**
 * com.switchyard SkipLayerNormalization(A, B, Scale[, Bias]) → (Y[, Sum]): Y = LayerNormalization(A + B)
 * over axes ≥ `axis`, Sum = A + B. Created by the skip-LayerNorm fusion only where A and B share one
 * shape and Scale/Bias span the normalized axes, so anything else is an input error.
 */
function createSkipLayerNorm(binding: NativeBinding, skipLayerNormRows: NonNullable<NativeBinding['skipLayerNormRows']>, init: KernelInit): Kernel {
  const { node } = init;
  const axisAttr = init.attrs.int('axis', -1);
  const epsilon = init.attrs.float('epsilon', 1e-5);
  const fail = (message: string) => new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (SkipLayerNormalization): ${message}`);
  return {
    implementation: 'onednn',
    async run(ctx: KernelRunContext) {
      const a = ctx.input(0);
      const b = ctx.input(1);
      const scale = ctx.input(2);
      const bias = ctx.optionalInput(3);
      if (a.dims.length !== b.dims.length || a.dims.some((d, i) => d !== b.dims[i])) {
        throw fail(`A [${a.dims.join(', ')}] and B [${b.dims.join(', ')}] must have one shape`);
      }
      const axis = resolveAxis(axisAttr, a.dims.length);
      if (axis === undefined || a.dims.length === 0) throw fail(`axis ${axisAttr} is out of range for rank ${a.dims.length}`);
      const rows = elementCount(a.dims.slice(0, axis));
      const cols = elementCount(a.dims.slice(axis));
      if (scale.size !== cols || (bias && bias.size !== cols)) throw fail(`Scale and B must have ${cols} elements (the normalized size)`);
      const y = ctx.output(0, 'float32', a.dims);
      const sum = node.outputs[1] ? ctx.output(1, 'float32', a.dims) : undefined;
      if (a.size === 0) return sum ? [y, sum] : [y];
      const args = [
        float32Data(node, a, 'A'),
        float32Data(node, b, 'B'),
        float32Data(node, scale, 'Scale'),
        bias ? float32Data(node, bias, 'Bias') : null,
        float32Data(node, y, 'Y'),
        sum ? float32Data(node, sum, 'Sum') : null,
      ] as const;
      await withNativeErrors(node, () => skipLayerNormRows(...args, rows, cols, epsilon, effectiveThreads(binding, ctx.threads)));
      return sum ? [y, sum] : [y];
    },
  };
}

/** LayerNormalization and SkipLayerNormalization defs, for what the loaded addon exports. */
export function nativeNormKernels(binding: NativeBinding): KernelDef[] {
  const defs: KernelDef[] = [];
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
  const skipLayerNormRows = binding.skipLayerNormRows?.bind(binding);
  if (skipLayerNormRows) {
    defs.push({
      ep: 'cpu',
      domain: FUSED_DOMAIN,
      opType: 'SkipLayerNormalization',
      sinceVersion: 1,
      typeConstraints: { T: ['float32'] },
      implementation: 'onednn',
      supports: supportsSkipLayerNormNode,
      create: (init) => createSkipLayerNorm(binding, skipLayerNormRows, init),
    });
  }
  return defs;
}
