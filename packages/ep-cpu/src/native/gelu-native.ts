/**
 * com.microsoft Gelu (what the Gelu fusion emits) on oneDNN's vectorized eltwise_gelu_erf: the TS
 * kernel's careful scalar erf costs ~50 ns an element, most of BERT's non-MatMul time. float64
 * (and any non-float32 input) goes to the TS kernel, built beside this one.
 */
import type { Graph, Kernel, KernelDef, KernelInit, KernelRunContext, Node } from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { withNativeErrors } from './native-errors.js';
import { effectiveThreads, float32Data, float32Reason } from './native-support.js';
import { fusedGeluKernel } from '../kernels/FusedGelu.js';

function supportsGelu(node: Node, graph: Graph): true | string {
  const x = node.inputs[0];
  if (!x) return 'Gelu needs X';
  return float32Reason(graph, x, 'X') ?? true;
}

function createGelu(binding: NativeBinding, geluErf: NonNullable<NativeBinding['geluErf']>, init: KernelInit): Kernel {
  const { node } = init;
  const fallback = fusedGeluKernel.create(init);
  return {
    implementation: 'onednn',
    async run(ctx: KernelRunContext) {
      const x = ctx.input(0);
      if (x.type !== 'float32') return fallback.run(ctx);
      const y = ctx.output(0, 'float32', x.dims, { uninitialized: true });
      const xData = float32Data(node, x, 'X');
      const yData = float32Data(node, y, 'Y');
      await withNativeErrors(node, () => geluErf(xData, yData, effectiveThreads(binding, ctx.threads)));
      return [y];
    },
    dispose() {
      fallback.dispose?.();
    },
  };
}

/** The Gelu kernel def, when the loaded addon has `geluErf`. */
export function nativeGeluKernels(binding: NativeBinding): KernelDef[] {
  const geluErf = binding.geluErf?.bind(binding);
  if (!geluErf) return [];
  return [
    {
      ep: 'cpu',
      domain: 'com.microsoft',
      opType: 'Gelu',
      sinceVersion: 1,
      typeConstraints: { T: ['float32'] },
      implementation: 'onednn',
      supports: supportsGelu,
      create: (init) => createGelu(binding, geluErf, init),
    },
  ];
}
