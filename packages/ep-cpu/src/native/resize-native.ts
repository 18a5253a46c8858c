/**
 * Resize (10–19) and Upsample (7–9) on the addon's ResizePrimitive (native/src/resize_kernel.h): float32,
 * any rank, every mode, coordinate transform and nearest rounding, antialias, axes and
 * keep_aspect_ratio_policy. The node's scales / sizes / roi inputs are resolved as the TS kernels do
 * (nn/resize-spec.ts); one primitive per input shape and target, built at session creation when both are
 * known then, else on first sight (dynamic H/W), and kept in a PrimitiveCache. Empty tensors and other
 * dtypes go to the TS kernel.
 */
import { elementCount, type Graph, type Kernel, type KernelDef, type KernelInit, type KernelResult, type KernelRunContext, type Node, type Tensor } from '@switchyard/core';
import type { NativeBinding, ResizePrimitive, ResizePrimitiveOptions } from './binding.js';
import { fromNativeError, withNativeErrors, withNodeErrors } from './native-errors.js';
import { SYNC_ELEMENT_LIMIT, dispatchFor, effectiveThreads, float32Data, float32Reason, hasZeroDim, sameDims, staticDims } from './native-support.js';
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

function createResize(op: ResizeOp, binding: NativeBinding, Primitive: NonNullable<NativeBinding['ResizePrimitive']>, init: KernelInit): Kernel {
  const { node } = init;
  const spec = readResizeSpec(op, init.attrs, init.opset);
  const fallback = (op === 'Resize' ? resizeKernel : upsampleKernel).create(init);
  const cache = new PrimitiveCache<ResizePrimitive>();
  const primitiveFor = (xDims: readonly number[], target: ResizeTarget, threads: number) => {
    const key = `${xDims.join(',')}|${target.outDims.join(',')}|${target.scales.join(',')}|${target.roi?.join(',') ?? ''}|${threads}`;
    return cache.get(key, () => new Primitive(resizeOptions(spec, xDims, target, threads)));
  };
  const constantInputs = constantTargetInputs(spec, init);

  // Session creation: build now when X's shape and the target are both known.
  const xStatic = staticDims(init.inputTypes[0]);
  if (xStatic && constantInputs && !hasZeroDim(xStatic)) {
    try {
      const target = resizeTarget(spec, xStatic, constantInputs);
      if (!hasZeroDim(target.outDims)) primitiveFor(xStatic, target, effectiveThreads(binding, init.threads));
    } catch (error) {
      throw fromNativeError(node, error);
    }
  }

  /** The last run's X dims and what followed from them: with constant targets, a static model's runs skip the target and the cache key. */
  let last: { xDims: readonly number[]; requestedThreads: number; primitive: ResizePrimitive | undefined; target: ResizeTarget; inline: boolean } | undefined;
  const prepare = (ctx: KernelRunContext, x: Tensor) => {
    if (constantInputs && last && last.requestedThreads === ctx.threads && sameDims(last.xDims, x.dims)) return last;
    const target = resizeTarget(spec, x.dims, constantInputs ?? ((i) => ctx.optionalInput(i)));
    const outputs = elementCount(target.outDims);
    const { inline, threads } = dispatchFor(binding, ctx.threads, resizeWork(spec, outputs), SYNC_ELEMENT_LIMIT);
    const primitive = outputs === 0 || hasZeroDim(x.dims) ? undefined : withNodeErrors(node, () => primitiveFor(x.dims, target, threads));
    last = { xDims: [...x.dims], requestedThreads: ctx.threads, primitive, target, inline };
    return last;
  };

  return {
    implementation: 'native',
    run(ctx: KernelRunContext): KernelResult | Promise<KernelResult> {
      const x = ctx.input(0);
      if (x.type !== 'float32') return fallback.run(ctx);
      const { primitive, target, inline } = prepare(ctx, x);
      if (!primitive) return fallback.run(ctx);  // an empty X or Y
      const xData = float32Data(node, x, 'X');
      const y = ctx.output(0, 'float32', target.outDims, { uninitialized: true });
      const yData = float32Data(node, y, 'Y');
      if (inline) {
        withNodeErrors(node, () => primitive.runSync(xData, yData));
        return [y];
      }
      return withNativeErrors(node, () => primitive.run(xData, yData)).then(() => [y]);
    },
    dispose() {
      cache.dispose();
      fallback.dispose?.();
    },
  };
}

/** Resize and Upsample kernel defs on the addon, when the loaded build has ResizePrimitive. */
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
  return [def('Resize', 10), def('Upsample', 7)];
}
