/**
 * RoiAlign on the addon for float32 (avg and max, both coordinate transformation modes). Attribute,
 * shape and batch-index errors keep the TS kernel's messages: anything it would reject runs there.
 */
import type { Graph, Kernel, KernelDef, KernelInit, Node } from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { withNodeErrors } from './native-errors.js';
import { nativeBeside, runsInTs, teamSize, type SizeRule } from './movement-support.js';
import { SMALL_NORM_ELEMENTS } from './native-support.js';
import { roiAlignKernel } from '../kernels/RoiAlign.js';

function float32Inputs(node: Node, graph: Graph): true | string {
  for (const name of node.inputs.slice(0, 2)) {
    const t = name ? graph.elemTypeOf(name) : undefined;
    if (t !== undefined && t !== 'float32') return `${name} is ${t}; the native RoiAlign serves float32`;
  }
  return true;
}

function createRoiAlign(binding: NativeBinding, roiAlign: NonNullable<NativeBinding['roiAlign']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const a = init.attrs;
  const mode = a.string('mode', 'avg');
  const ctm = init.opset >= 16 ? a.string('coordinate_transformation_mode', 'half_pixel') : 'output_half_pixel';
  const outH = a.int('output_height', 1);
  const outW = a.int('output_width', 1);
  const ratio = a.int('sampling_ratio', 0);
  const scale = a.float('spatial_scale', 1);
  const served = (mode === 'avg' || mode === 'max') && (ctm === 'half_pixel' || ctm === 'output_half_pixel') && outH >= 1 && outW >= 1 && ratio >= 0;
  return {
    run(ctx) {
      const x = ctx.input(0);
      const rois = ctx.input(1);
      const batch = ctx.input(2);
      if (!served || x.type !== 'float32' || rois.type !== 'float32' || batch.type !== 'int64' || x.dims.length !== 4) return fallback.run(ctx);
      const [n, c, h, w] = x.dims;
      const R = rois.dims[0];
      if (rois.dims.length !== 2 || rois.dims[1] !== 4 || batch.size !== R || h < 1 || w < 1) return fallback.run(ctx);
      if (runsInTs(rule, R * c * outH * outW)) return fallback.run(ctx);
      const big = batch.data as BigInt64Array;
      const indices = new Int32Array(R);
      for (let i = 0; i < R; i++) {
        if (!(big[i] >= 0n && big[i] < BigInt(n))) return fallback.run(ctx); // the TS kernel names the bad index
        indices[i] = Number(big[i]);
      }
      const y = ctx.output(0, 'float32', [R, c, outH, outW], { uninitialized: true });
      withNodeErrors(init.node, () =>
        roiAlign(x.data as Float32Array, rois.data as Float32Array, indices, y.data as Float32Array, n, c, h, w, outH, outW, ratio, scale, mode === 'max', ctm === 'half_pixel', teamSize(binding, ctx)),
      );
      return [y];
    },
  };
}

/** The RoiAlign def when the loaded addon exports it; `smallOpsInTs` leaves outputs below SMALL_NORM_ELEMENTS to TS. */
export function nativeRoiAlignKernels(binding: NativeBinding, smallOpsInTs = true): KernelDef[] {
  const roiAlign = binding.roiAlign?.bind(binding);
  if (!roiAlign) return [];
  const rule: SizeRule = { smallOpsInTs, small: SMALL_NORM_ELEMENTS };
  return [
    nativeBeside(roiAlignKernel, rule, {
      types: ['float32'],
      constraints: ['T1'],
      supports: float32Inputs,
      create: (init, fallback) => createRoiAlign(binding, roiAlign, rule, init, fallback),
    }),
  ];
}
