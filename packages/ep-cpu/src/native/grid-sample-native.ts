/**
 * GridSample on the addon for float32 4-D images (every mode, padding mode and align_corners); other
 * ranks, dtypes and bad attributes go to the TS kernel, which also owns the error messages.
 */
import type { Graph, Kernel, KernelDef, KernelInit, Node } from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { withNodeErrors } from './native-errors.js';
import { nativeBeside, runsInTs, teamSize, type SizeRule } from './movement-support.js';
import { SMALL_NORM_ELEMENTS } from './native-support.js';
import { gridSampleKernel } from '../kernels/GridSample.js';

/** The addon's mode numbers by ONNX name; opset 16 spells linear and cubic bilinear and bicubic. */
const MODES_SINCE_20: Record<string, number> = { linear: 0, nearest: 1, cubic: 2 };
const MODES_BEFORE_20: Record<string, number> = { bilinear: 0, nearest: 1, bicubic: 2 };
const PADDINGS: Record<string, number> = { zeros: 0, border: 1, reflection: 2 };

function float32Inputs(node: Node, graph: Graph): true | string {
  for (const name of node.inputs.slice(0, 2)) {
    const t = name ? graph.elemTypeOf(name) : undefined;
    if (t !== undefined && t !== 'float32') return `${name} is ${t}; the native GridSample serves float32`;
  }
  return true;
}

function createGridSample(binding: NativeBinding, gridSample: NonNullable<NativeBinding['gridSample']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const modes = init.opset >= 20 ? MODES_SINCE_20 : MODES_BEFORE_20;
  const modeName = init.attrs.string('mode', init.opset >= 20 ? 'linear' : 'bilinear');
  const paddingName = init.attrs.string('padding_mode', 'zeros');
  const mode = modes[modeName];
  const padding = PADDINGS[paddingName];
  const align = init.attrs.int('align_corners', 0) !== 0;
  const served = Object.hasOwn(modes, modeName) && Object.hasOwn(PADDINGS, paddingName);
  return {
    run(ctx) {
      const x = ctx.input(0);
      const grid = ctx.input(1);
      const ok = served && x.type === 'float32' && grid.type === 'float32' && x.dims.length === 4 && grid.dims.length === 4;
      if (!ok || grid.dims[0] !== x.dims[0] || grid.dims[3] !== 2 || x.dims[2] < 1 || x.dims[3] < 1) return fallback.run(ctx);
      const [n, c, h, w] = x.dims;
      const [, outH, outW] = grid.dims;
      if (runsInTs(rule, n * c * outH * outW)) return fallback.run(ctx);
      const y = ctx.output(0, 'float32', [n, c, outH, outW], { uninitialized: true });
      withNodeErrors(init.node, () => gridSample(x.data as Float32Array, grid.data as Float32Array, y.data as Float32Array, n, c, h, w, outH, outW, mode, padding, align, teamSize(binding, ctx)));
      return [y];
    },
  };
}

/** The GridSample def when the loaded addon exports it; `smallOpsInTs` leaves outputs below SMALL_NORM_ELEMENTS to TS. */
export function nativeGridSampleKernels(binding: NativeBinding, smallOpsInTs = true): KernelDef[] {
  const gridSample = binding.gridSample?.bind(binding);
  if (!gridSample) return [];
  const rule: SizeRule = { smallOpsInTs, small: SMALL_NORM_ELEMENTS };
  return [
    nativeBeside(gridSampleKernel, rule, {
      types: ['float32'],
      constraints: ['T1', 'T2'],
      supports: float32Inputs,
      create: (init, fallback) => createGridSample(binding, gridSample, rule, init, fallback),
    }),
  ];
}
