/**
 * Resize (10–19) and Upsample (7–9) on the addon's ResizePrimitive (native/src/resize_kernel.h): float32,
 * any rank, every mode, coordinate transform and nearest rounding, antialias, axes and
 * keep_aspect_ratio_policy. The node's scales / sizes / roi inputs are resolved as the TS kernels do
 * (nn/resize-spec.ts); one primitive per input shape and target, built at session creation when both are
 * known then, else on first sight (dynamic H/W), and kept in a PrimitiveCache. Empty tensors and other
 * dtypes go to the TS kernel. com.switchyard BlockedResize (the blocked-layout pass's) runs the same on a
 * channel-blocked X (N and C not resized), with the op and opset it stands for in its attributes.
 */
import { SwitchyardError, elementCount, type Graph, type Kernel, type KernelDef, type KernelInit, type KernelResult, type KernelRunContext, type Node, type Tensor } from '@switchyard/core';
import type { ChannelBlock, NativeBinding, ResizePrimitive, ResizePrimitiveOptions } from './binding.js';
import { BLOCKED_DOMAIN, blockedDims, isChannelBlock, logicalDims } from './channel-blocked.js';
import { fromNativeError, withNativeErrors, withNodeErrors } from './native-errors.js';
import { MIN_ELEMENTS_PER_THREAD, SYNC_ELEMENT_LIMIT, dispatchFor, float32Data, float32Reason, hasZeroDim, sameDims, staticDims, teamFor } from './native-support.js';
import { PrimitiveCache } from './primitive-cache.js';
import { readResizeSpec, resizeTarget, type ResizeSpec, type ResizeTarget } from '../nn/resize-spec.js';
import { resizeKernel } from '../kernels/Resize.js';
import { upsampleKernel } from '../kernels/Upsample.js';

type ResizeOp = 'Resize' | 'Upsample';

function supportsResize(node: Node, graph: Graph): true | string {
  const x = node.inputs[0];
  if (!x) return `${node.opType} needs X`;
  return float32Reason(graph, x, 'X') ?? true;
}

/**
 * The work of one run in SYNC_ELEMENT_LIMIT's units (elements at 1–4 ns): interpolating outputs cost about
 * that, nearest ones are copies at about a quarter (one AVX-512 core: [1,96,160,160] x2 nearest 1.2 ms,
 * linear 10 ms for 9.8M outputs), so a nearest x2 of a 96-channel 160x160 map runs inline rather than
 * paying the hop to the addon's thread.
 */
function resizeWork(spec: ResizeSpec, outputs: number): number {
  return spec.options.mode === 'nearest' ? outputs / 4 : outputs;
}

/** The primitive's options for one input shape and target. */
export function resizeOptions(spec: ResizeSpec, xDims: readonly number[], target: ResizeTarget, threads: number): ResizePrimitiveOptions {
  const o = spec.options;
  return {
    inputDims: xDims,
    outputDims: target.outDims,
    scales: target.scales,
    roi: target.roi,
    mode: o.mode,
    coordinateMode: o.coordinate,
    nearestMode: o.nearest,
    cubicCoeffA: o.cubicA,
    excludeOutside: o.excludeOutside,
    antialias: o.antialias,
    extrapolationValue: o.extrapolation,
    threads,
  };
}

/** The inputs that set the target (roi, scales, sizes), when every one present is a constant: the target then depends on X's dims only. */
function constantTargetInputs(spec: ResizeSpec, init: KernelInit): ((i: number) => Tensor | undefined) | undefined {
  const indices = [spec.roiInput, spec.scalesInput, spec.sizesInput].filter((i): i is number => i !== undefined);
  for (const i of indices) if (init.node.inputs[i] && !init.constantInputs.has(i)) return undefined;
  return (i) => (init.node.inputs[i] ? init.constantInputs.get(i) : undefined);
}

/**
 * How a BlockedResize (the blocked-layout pass's Resize on a channel-blocked X) is laid out: the block,
 * the true channel count, and the op and opset it stands for (which decide the inputs' meaning).
 */
interface BlockedLayout {
  block: Exclude<ChannelBlock, 0>;
  channels: number;
}

function blockedLayoutOf(init: KernelInit): { op: ResizeOp; opset: number; layout: BlockedLayout } {
  const { node, attrs } = init;
  const fail = (why: string) => new SwitchyardError('INVALID_MODEL', `node '${node.name}' (BlockedResize): ${why}`);
  const op = attrs.string('resize_op', 'Resize');
  if (op !== 'Resize' && op !== 'Upsample') throw fail(`resize_op must be Resize or Upsample, got '${op}'`);
  const opset = attrs.int('resize_opset', 0);
  if (!(opset >= 7)) throw fail(`resize_opset must be the model's opset (7 or more), got ${opset}`);
  const block = attrs.int('block', 0);
  if (!isChannelBlock(block)) throw fail(`block must be 8 or 16, got ${block}`);
  const channels = attrs.int('channels', 0);
  if (!(channels >= 1)) throw fail(`channels must be >= 1, got ${channels}`);
  return { op, opset, layout: { block, channels } };
}

function createResize(op: ResizeOp, binding: NativeBinding, Primitive: NonNullable<NativeBinding['ResizePrimitive']>, init: KernelInit, blocked?: BlockedLayout & { opset: number }): Kernel {
  const { node } = init;
  const spec = readResizeSpec(op, init.attrs, blocked?.opset ?? init.opset);
  // A blocked X has no TS kernel: every shape must go native (the pass only makes BlockedResize where it can).
  const fallback = blocked ? undefined : (op === 'Resize' ? resizeKernel : upsampleKernel).create(init);
  const cache = new PrimitiveCache<ResizePrimitive>();
  const primitiveFor = (xDims: readonly number[], target: ResizeTarget, threads: number) => {
    const key = `${xDims.join(',')}|${target.outDims.join(',')}|${target.scales.join(',')}|${target.roi?.join(',') ?? ''}|${threads}`;
    return cache.get(key, () => new Primitive({ ...resizeOptions(spec, xDims, target, threads), block: blocked?.block ?? 0 }));
  };
  /** X's logical dims (a blocked X's [N, C/b, …, b] as [N, C, …]) and Y's dims as stored. */
  const logical = (xDims: readonly number[]): readonly number[] => {
    if (!blocked) return xDims;
    if (xDims.length < 4 || xDims[xDims.length - 1] !== blocked.block || xDims[1] !== Math.ceil(blocked.channels / blocked.block)) {
      throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (BlockedResize): X [${xDims.join(', ')}] is not ${blocked.channels} channels blocked by ${blocked.block}`);
    }
    return logicalDims(xDims, blocked.block, blocked.channels);
  };
  const stored = (outDims: readonly number[]) => (blocked ? blockedDims(outDims, blocked.block) : [...outDims]);
  const constantInputs = constantTargetInputs(spec, init);

  // Session creation: build now when X's shape and the target are both known.
  const xStatic = staticDims(init.inputTypes[0]);
  if (xStatic && constantInputs && !hasZeroDim(xStatic)) {
    try {
      const xLogical = logical(xStatic);
      const target = resizeTarget(spec, xLogical, constantInputs);
      const work = resizeWork(spec, elementCount(target.outDims));
      if (!hasZeroDim(target.outDims)) primitiveFor(xLogical, target, teamFor(binding, init.threads, work, MIN_ELEMENTS_PER_THREAD));
    } catch (error) {
      throw fromNativeError(node, error);
    }
  }

  /** The last run's X dims and what followed from them: with constant targets, a static model's runs skip the target and the cache key. */
  let last: { xDims: readonly number[]; requestedThreads: number; primitive: ResizePrimitive | undefined; yDims: number[]; inline: boolean } | undefined;
  const prepare = (ctx: KernelRunContext, x: Tensor) => {
    if (constantInputs && last && last.requestedThreads === ctx.threads && sameDims(last.xDims, x.dims)) return last;
    const xLogical = withNodeErrors(node, () => logical(x.dims));
    const target = resizeTarget(spec, xLogical, constantInputs ?? ((i) => ctx.optionalInput(i)));
    if (blocked && (target.outDims[0] !== xLogical[0] || target.outDims[1] !== xLogical[1])) {
      throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (BlockedResize): resizes N or C ([${xLogical.join(', ')}] → [${target.outDims.join(', ')}]), which a channel-blocked tensor cannot`);
    }
    const outputs = elementCount(target.outDims);
    const { inline, threads } = dispatchFor(binding, ctx.threads, resizeWork(spec, outputs), SYNC_ELEMENT_LIMIT, MIN_ELEMENTS_PER_THREAD);
    const primitive = outputs === 0 || hasZeroDim(x.dims) ? undefined : withNodeErrors(node, () => primitiveFor(xLogical, target, threads));
    last = { xDims: [...x.dims], requestedThreads: ctx.threads, primitive, yDims: stored(target.outDims), inline };
    return last;
  };

  return {
    implementation: 'native',
    run(ctx: KernelRunContext): KernelResult | Promise<KernelResult> {
      const x = ctx.input(0);
      if (x.type !== 'float32' && fallback) return fallback.run(ctx);
      const { primitive, yDims, inline } = prepare(ctx, x);
      if (!primitive) {
        // An empty X or Y: nothing to interpolate.
        if (fallback) return fallback.run(ctx);
        return [ctx.output(0, 'float32', yDims)];
      }
      const xData = float32Data(node, x, 'X');
      const y = ctx.output(0, 'float32', yDims, { uninitialized: true });
      const yData = float32Data(node, y, 'Y');
      if (inline) {
        withNodeErrors(node, () => primitive.runSync(xData, yData));
        return [y];
      }
      return withNativeErrors(node, () => primitive.run(xData, yData)).then(() => [y]);
    },
    dispose() {
      cache.dispose();
      fallback?.dispose?.();
    },
  };
}

/** Resize and Upsample kernel defs on the addon (and the blocked-layout pass's BlockedResize), when the loaded build has ResizePrimitive. */
export function nativeResizeKernels(binding: NativeBinding): KernelDef[] {
  const Primitive = binding.ResizePrimitive;
  if (!Primitive) return [];
  const def = (op: ResizeOp, sinceVersion: number): KernelDef => ({
    ep: 'cpu',
    domain: '',
    opType: op,
    sinceVersion,
    // X is T in Resize 10 and Upsample, T1 from Resize 11.
    typeConstraints: { T: ['float32'], T1: ['float32'] },
    implementation: 'native',
    supports: supportsResize,
    create: (init) => createResize(op, binding, Primitive, init),
  });
  const blocked: KernelDef = {
    ep: 'cpu',
    domain: BLOCKED_DOMAIN,
    opType: 'BlockedResize',
    sinceVersion: 1,
    implementation: 'native',
    create: (init) => {
      const { op, opset, layout } = blockedLayoutOf(init);
      return createResize(op, binding, Primitive, init, { ...layout, opset });
    },
  };
  return [def('Resize', 10), def('Upsample', 7), blocked];
}
