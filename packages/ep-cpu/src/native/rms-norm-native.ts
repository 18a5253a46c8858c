/**
 * RMSNormalization (ai.onnx 23, and the com.switchyard form the RMSNorm fusion writes for older opsets) on
 * the addon's row loop (`rmsNormRows`): float32 X and Scale, Scale of exactly the normalized size. Anything
 * else (another dtype, a Scale that broadcasts) runs the TS kernel built beside it.
 */
import { elementCount, type Graph, type Kernel, type KernelDef, type KernelInit, type KernelRunContext, type Node } from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { withNodeErrors } from './native-errors.js';
import { effectiveThreads, float32Data, float32Reason } from './native-support.js';
import { fusedRmsNormalizationKernel, rmsNormalizationKernel } from '../kernels/RMSNormalization.js';
import { resolveAxis } from './norm-native.js';

function supportsRmsNorm(node: Node, graph: Graph): true | string {
  const [x, scale] = node.inputs;
  if (!x || !scale) return 'RMSNormalization needs X and Scale';
  return float32Reason(graph, x, 'X') ?? float32Reason(graph, scale, 'Scale') ?? true;
}

function createRmsNorm(binding: NativeBinding, rmsNormRows: NonNullable<NativeBinding['rmsNormRows']>, fallbackDef: KernelDef, init: KernelInit): Kernel {
  const { node } = init;
  const fallback = fallbackDef.create(init);
  const axisAttr = init.attrs.int('axis', -1);
  const epsilon = init.attrs.float('epsilon', 1e-5);
  return {
    implementation: 'native',
    run(ctx: KernelRunContext) {
      const x = ctx.input(0);
      const scale = ctx.input(1);
      const rank = x.dims.length;
      const axis = resolveAxis(axisAttr, rank);
      if (axis === undefined || rank === 0 || x.size === 0 || !(epsilon >= 0)) return fallback.run(ctx);
      const rows = elementCount(x.dims.slice(0, axis));
      const cols = x.size / rows;
      if (x.type !== 'float32' || scale.type !== 'float32' || scale.size !== cols || scale.dims.length > rank - axis) return fallback.run(ctx);
      const y = ctx.output(0, 'float32', x.dims, { uninitialized: true });
      withNodeErrors(node, () => rmsNormRows(float32Data(node, x, 'X'), float32Data(node, scale, 'Scale'), float32Data(node, y, 'Y'), rows, cols, epsilon, effectiveThreads(binding, ctx.threads)));
      return [y];
    },
    dispose() {
      fallback.dispose?.();
    },
  };
}

/** RMSNormalization defs (both domains), when the loaded addon exports `rmsNormRows`. */
export function nativeRmsNormKernels(binding: NativeBinding): KernelDef[] {
  const rmsNormRows = binding.rmsNormRows?.bind(binding);
  if (!rmsNormRows) return [];
  return [rmsNormalizationKernel, fusedRmsNormalizationKernel].map((fallback) => ({
    ep: 'cpu',
    domain: fallback.domain,
    opType: 'RMSNormalization',
    sinceVersion: fallback.sinceVersion,
    typeConstraints: { T: ['float32'], V: ['float32'] },
    implementation: 'native',
    supports: supportsRmsNorm,
    create: (init: KernelInit) => createRmsNorm(binding, rmsNormRows, fallback, init),
  }));
}
