/**
 * Data movement on the addon's dtype-generic kernels: Transpose, Slice, Expand, Tile, DepthToSpace and
 * SpaceToDepth as one strided copy (transposes in cache-sized tiles, trivial permutations as one copy),
 * Concat and Split as row copies split over the session's threads, Trilu as a fill and a copy per row. Any dtype but strings; shapes and
 * attributes are resolved by the TS kernels' own helpers, so both paths accept and reject the same nodes.
 */
import { SwitchyardError, elementCount, type Kernel, type KernelDef, type KernelInit, type KernelRunContext, type Tensor } from '@switchyard/core';
import type { NativeBinding, NativeElements } from './binding.js';
import { withNodeErrors } from './native-errors.js';
import { nativeBeside, nativeElements, runsInTs, teamSize, type SizeRule } from './movement-support.js';
import { SMALL_MOVE_ELEMENTS } from './native-support.js';
import { checkPermutation, transposeKernel } from '../kernels/Transpose.js';
import { cachedSliceView, constantSliceSpec, sliceKernel, sliceSpecFromInputs, sliceV1Kernel, sliceView, type SliceSpec } from '../kernels/Slice.js';
import { broadcastDims, broadcastStrides, expandKernel } from '../kernels/Expand.js';
import { tileKernel, tileRepeats, tileV1Kernel, tileView } from '../kernels/Tile.js';
import { depthToSpaceKernel } from '../kernels/DepthToSpace.js';
import { spaceToDepthKernel } from '../kernels/SpaceToDepth.js';
import { concatDims, concatKernel } from '../kernels/Concat.js';
import { splitKernel, splitPlan } from '../kernels/Split.js';
import { triluKernel } from '../kernels/Trilu.js';
import { normalizeAxis, product, readInts, readScalarInt } from '../tensor-ops/indices.js';
import { rowMajorStrides } from '../tensor-ops/strided.js';

type CopyStrided = NonNullable<NativeBinding['copyStrided']>;

/** A strided view of x to copy into a fresh output, or undefined to leave the run to the TS kernel. */
interface View {
  outDims: readonly number[];
  offset: number;
  strides: readonly number[];
  dims: readonly number[];
}

/** A kernel that copies one strided view of input 0 per run. */
function viewKernel(binding: NativeBinding, copy: CopyStrided, rule: SizeRule, init: KernelInit, fallback: Kernel, viewOf: (ctx: KernelRunContext, x: Tensor) => View): Kernel {
  const { node } = init;
  return {
    run(ctx) {
      const x = ctx.input(0);
      const src = nativeElements(x);
      if (!src) return fallback.run(ctx);
      const view = viewOf(ctx, x);
      if (runsInTs(rule, elementCount(view.outDims))) return fallback.run(ctx);
      const out = ctx.output(0, x.type, view.outDims, { uninitialized: true });
      if (out.size > 0) withNodeErrors(node, () => copy(src, view.offset, view.strides, view.dims, out.data as NativeElements, teamSize(binding, ctx)));
      return [out];
    },
  };
}

function transposeView(perm: readonly number[] | undefined) {
  return (_ctx: KernelRunContext, x: Tensor): View => {
    const r = x.dims.length;
    const p = perm ?? Array.from({ length: r }, (_, i) => r - 1 - i);
    checkPermutation(p, r, 'Transpose');
    const strides = rowMajorStrides(x.dims);
    const dims = p.map((a) => x.dims[a]);
    return { outDims: dims, offset: 0, strides: p.map((a) => strides[a]), dims };
  };
}

function sliceViewOf(spec: (ctx: KernelRunContext) => SliceSpec) {
  return (ctx: KernelRunContext, x: Tensor): View => {
    const view = sliceView(x.dims, spec(ctx));
    return { outDims: view.dims, ...view };
  };
}

/** A Slice with constant starts/ends/axes/steps: its view depends on X's dims alone, kept for the last dims. */
function constantSliceViewOf(spec: SliceSpec) {
  const viewOf = cachedSliceView(spec);
  let lastView: ReturnType<typeof viewOf> | undefined;
  let last: View | undefined;
  return (_ctx: KernelRunContext, x: Tensor): View => {
    const view = viewOf(x.dims);
    if (view !== lastView) {
      lastView = view;
      last = { outDims: view.dims, ...view };
    }
    return last!;
  };
}

function expandView(ctx: KernelRunContext, x: Tensor): View {
  const shape = readInts(ctx.input(1), 'Expand shape');
  if (shape.some((d) => d < 0)) throw new SwitchyardError('INVALID_SHAPE', `Expand: negative dimension in [${shape.join(', ')}]`);
  const dims = broadcastDims(x.dims, shape, 'Expand');
  return { outDims: dims, offset: 0, strides: broadcastStrides(x.dims, dims), dims };
}

function tileViewOf(opset: number) {
  return (ctx: KernelRunContext, x: Tensor): View => {
    const view = tileView(x.dims, tileRepeats(ctx, x, opset));
    return { outDims: view.outDims, offset: 0, strides: view.strides, dims: view.dims };
  };
}

/** A transpose of x seen with `dims6` (a reshape), as Depth/SpaceToDepth are defined. */
function reshapedTranspose(dims6: readonly number[], perm: readonly number[], outDims: readonly number[]): View {
  const strides = rowMajorStrides(dims6);
  return { outDims, offset: 0, strides: perm.map((a) => strides[a]), dims: perm.map((a) => dims6[a]) };
}

function depthToSpaceView(init: KernelInit) {
  const b = init.attrs.int('blocksize');
  const mode = init.attrs.string('mode', 'DCR');
  return (_ctx: KernelRunContext, x: Tensor): View => {
    if (x.dims.length !== 4) throw new SwitchyardError('INVALID_SHAPE', 'DepthToSpace: input must be 4-D');
    const [N, C, H, W] = x.dims;
    if (b < 1 || C % (b * b) !== 0 || (mode !== 'DCR' && mode !== 'CRD')) {
      throw new SwitchyardError('INVALID_SHAPE', `DepthToSpace: channels ${C} are not divisible by blocksize² ${b * b} (mode ${mode})`);
    }
    const c = C / (b * b);
    const out = [N, c, H * b, W * b];
    return mode === 'DCR' ? reshapedTranspose([N, b, b, c, H, W], [0, 3, 4, 1, 5, 2], out) : reshapedTranspose([N, c, b, b, H, W], [0, 1, 4, 2, 5, 3], out);
  };
}

function spaceToDepthView(init: KernelInit) {
  const b = init.attrs.int('blocksize');
  return (_ctx: KernelRunContext, x: Tensor): View => {
    if (x.dims.length !== 4) throw new SwitchyardError('INVALID_SHAPE', 'SpaceToDepth: input must be 4-D');
    const [N, C, H, W] = x.dims;
    if (b < 1 || H % b !== 0 || W % b !== 0) throw new SwitchyardError('INVALID_SHAPE', `SpaceToDepth: spatial dims ${H}×${W} are not divisible by blocksize ${b}`);
    return reshapedTranspose([N, C, H / b, b, W / b, b], [0, 3, 5, 1, 2, 4], [N, C * b * b, H / b, W / b]);
  };
}

function createConcat(binding: NativeBinding, concat: NonNullable<NativeBinding['concat']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const axisAttr = init.attrs.int('axis', init.opset < 4 ? 1 : undefined);
  return {
    run(ctx) {
      const inputs: Tensor[] = [];
      for (let i = 0; i < ctx.inputs.length; i++) {
        const t = ctx.optionalInput(i);
        if (t) inputs.push(t);
      }
      if (inputs.length === 0 || !nativeElements(inputs[0])) return fallback.run(ctx);
      const axis = normalizeAxis(axisAttr, inputs[0].dims.length, 'Concat');
      const dims = concatDims(inputs, axis, 'Concat');
      if (runsInTs(rule, elementCount(dims))) return fallback.run(ctx);
      const out = ctx.output(0, inputs[0].type, dims, { uninitialized: true });
      const inner = product(dims, axis + 1);
      const srcs = inputs.map((t) => t.data as NativeElements);
      const runs = inputs.map((t) => t.dims[axis] * inner);
      withNodeErrors(node, () => concat(srcs, out.data as NativeElements, product(dims, 0, axis), runs, teamSize(binding, ctx)));
      return [out];
    },
  };
}

function createSplit(binding: NativeBinding, split: NonNullable<NativeBinding['split']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const plan = splitPlan(init.attrs, init.opset, node.outputs.length);
  return {
    run(ctx) {
      const x = ctx.input(0);
      const src = nativeElements(x);
      if (!src || runsInTs(rule, x.size)) return fallback.run(ctx);
      const { axis, sizes } = plan(ctx, x);
      const inner = product(x.dims, axis + 1);
      const outs = sizes.map((s, i) => {
        const dims = [...x.dims];
        dims[axis] = s;
        return ctx.output(i, x.type, dims, { uninitialized: true });
      });
      const runs = sizes.map((s) => s * inner);
      withNodeErrors(node, () => split(src, outs.map((t) => t.data as NativeElements), product(x.dims, 0, axis), runs, teamSize(binding, ctx)));
      return outs;
    },
  };
}

function createTrilu(binding: NativeBinding, trilu: NonNullable<NativeBinding['trilu']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const upper = init.attrs.int('upper', 1) !== 0;
  return {
    run(ctx) {
      const x = ctx.input(0);
      const src = nativeElements(x);
      // Rank < 2 gets the TS kernel's error.
      if (!src || x.dims.length < 2 || runsInTs(rule, x.size)) return fallback.run(ctx);
      const kT = ctx.optionalInput(1);
      const k = kT ? readScalarInt(kT, 'Trilu k', { clamp: true }) : 0;
      const out = ctx.output(0, x.type, x.dims, { uninitialized: true });
      const r = x.dims.length;
      withNodeErrors(node, () => trilu(src, out.data as NativeElements, x.dims[r - 2], x.dims[r - 1], k, upper, teamSize(binding, ctx)));
      return [out];
    },
  };
}

/** The data-movement defs for what the loaded addon exports; `smallOpsInTs` leaves tensors below SMALL_MOVE_ELEMENTS to TS. */
export function nativeMovementKernels(binding: NativeBinding, smallOpsInTs = true): KernelDef[] {
  const rule: SizeRule = { smallOpsInTs, small: SMALL_MOVE_ELEMENTS };
  const defs: KernelDef[] = [];
  const copy = binding.copyStrided?.bind(binding);
  if (copy) {
    const views: Array<[KernelDef, (init: KernelInit) => (ctx: KernelRunContext, x: Tensor) => View]> = [
      [transposeKernel, (init) => transposeView(init.attrs.has('perm') ? init.attrs.ints('perm') : undefined)],
      [sliceV1Kernel, (init) => {
        const spec: SliceSpec = { starts: init.attrs.ints('starts'), ends: init.attrs.ints('ends'), axes: init.attrs.has('axes') ? init.attrs.ints('axes') : undefined };
        return sliceViewOf(() => spec);
      }],
      [sliceKernel, (init) => {
        const spec = constantSliceSpec(init);
        return spec ? constantSliceViewOf(spec) : sliceViewOf(sliceSpecFromInputs);
      }],
      [expandKernel, () => expandView],
      [tileV1Kernel, () => tileViewOf(1)],
      [tileKernel, () => tileViewOf(6)],
      [depthToSpaceKernel, depthToSpaceView],
      [spaceToDepthKernel, spaceToDepthView],
    ];
    for (const [ts, viewOf] of views) {
      defs.push(nativeBeside(ts, rule, { create: (init, fallback) => viewKernel(binding, copy, rule, init, fallback, viewOf(init)) }));
    }
  }
  const concat = binding.concat?.bind(binding);
  if (concat) defs.push(nativeBeside(concatKernel, rule, { create: (init, fallback) => createConcat(binding, concat, rule, init, fallback) }));
  const split = binding.split?.bind(binding);
  if (split) defs.push(nativeBeside(splitKernel, { ...rule, measure: 'input' }, { create: (init, fallback) => createSplit(binding, split, rule, init, fallback) }));
  const trilu = binding.trilu?.bind(binding);
  if (trilu) defs.push(nativeBeside(triluKernel, rule, { create: (init, fallback) => createTrilu(binding, trilu, rule, init, fallback) }));
  return defs;
}
