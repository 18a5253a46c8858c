/**
 * MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool on oneDNN (float32, 1-D to 3-D, no dilation, no Indices
 * output). ceil_mode becomes extra end padding, so oneDNN's floor division yields the same windows.
 * What oneDNN cannot express exactly is left to the TS kernel, built beside this one: at session
 * creation through `supports`, at run time (shape-dependent cases) by delegating the run.
 */
import { elementCount, type AttributeReader, type Graph, type Kernel, type KernelDef, type KernelInit, type KernelResult, type KernelRunContext, type Node } from '@switchyard/core';
import type { NativeBinding, PoolPrimitive, PoolPrimitiveOptions } from './binding.js';
import { fromNativeError, withNativeErrors, withNodeErrors } from './native-errors.js';
import { MIN_ELEMENTS_PER_THREAD, SYNC_ELEMENT_LIMIT, dispatchFor, float32Data, float32Reason, hasZeroDim, staticDims, staticRank, teamFor } from './native-support.js';
import { PrimitiveCache } from './primitive-cache.js';
import { readWindowAttrs, windowGeometry } from '../nn/geometry.js';
import { maxPoolKernel } from '../kernels/MaxPool.js';
import { averagePoolKernel } from '../kernels/AveragePool.js';
import { globalAveragePoolKernel } from '../kernels/GlobalAveragePool.js';
import { globalMaxPoolKernel } from '../kernels/GlobalMaxPool.js';

export type PoolOp = 'MaxPool' | 'AveragePool' | 'GlobalAveragePool' | 'GlobalMaxPool';

function supportsPool(node: Node, graph: Graph): true | string {
  const x = node.inputs[0];
  if (!x) return `${node.opType} needs X`;
  const dtype = float32Reason(graph, x, 'X');
  if (dtype) return dtype;
  const rank = staticRank(graph, x);
  if (rank === undefined || rank < 3 || rank > 5) return 'onednn pools inputs of known rank 3 to 5';
  if (node.opType === 'MaxPool' && node.outputs.length > 1 && node.outputs[1]) return 'MaxPool with an Indices output is served by the TS kernel';
  const dil = node.attributes.get('dilations');
  if (dil?.type === 'ints' && dil.value.some((d) => d !== 1)) return 'dilated pooling is served by the TS kernel';
  return true;
}

/** The primitive's options for one input shape, or undefined when oneDNN would not match ONNX exactly. */
export function poolOptions(op: PoolOp, attrs: AttributeReader, xDims: readonly number[], threads: number): PoolPrimitiveOptions | undefined {
  const spatial = xDims.slice(2);
  if (op === 'GlobalAveragePool') return { inputDims: xDims, kind: 'avgExcludePad', kernel: spatial, threads };
  if (op === 'GlobalMaxPool') return { inputDims: xDims, kind: 'max', kernel: spatial, threads };
  const w = readWindowAttrs(op, attrs, spatial.length);
  const g = windowGeometry(op, spatial, w);
  const includePad = op === 'AveragePool' && attrs.int('count_include_pad', 0) !== 0;
  const padsEnd: number[] = [];
  for (let i = 0; i < spatial.length; i++) {
    // The end padding oneDNN needs for `output[i]` windows; only ceil_mode makes it exceed the model's.
    const needed = (g.output[i] - 1) * g.strides[i] + g.kernel[i] - spatial[i] - g.padsBegin[i];
    const end = Math.max(g.padsEnd[i], needed);
    // Padding added for ceil_mode must not count in the divisor, as it would in oneDNN's include-pad mode.
    if (includePad && end !== g.padsEnd[i]) return undefined;
    // oneDNN wants every pad smaller than the kernel.
    if (g.padsBegin[i] >= g.kernel[i] || end >= g.kernel[i]) return undefined;
    padsEnd.push(end);
  }
  return {
    inputDims: xDims,
    kind: op === 'MaxPool' ? 'max' : includePad ? 'avgIncludePad' : 'avgExcludePad',
    kernel: g.kernel,
    strides: g.strides,
    padsBegin: g.padsBegin,
    padsEnd,
    threads,
  };
}

/**
 * Whether poolOptions serves this pool exactly at every input size (for dynamic H and W, where the
 * blocked-layout pass cannot ask it per shape): a sufficient condition on the attributes. oneDNN needs
 * every pad below the kernel; explicit pads must be, SAME pads always are (at most kernel − 1 in all),
 * and ceil_mode adds up to stride − 1 at the end, which must not count in an include-pad divisor.
 */
export function poolExactForEverySize(op: PoolOp, attrs: AttributeReader, spatialRank: number): boolean {
  if (op === 'GlobalAveragePool' || op === 'GlobalMaxPool') return true;
  let w;
  try {
    w = readWindowAttrs(op, attrs, spatialRank);
  } catch {
    return false; // bad attributes: the node's own kernel reports them
  }
  if (w.dilations.some((d) => d !== 1)) return false;
  const includePad = op === 'AveragePool' && attrs.int('count_include_pad', 0) !== 0;
  if (w.ceilMode && includePad) return false;
  for (let i = 0; i < spatialRank; i++) {
    const k = w.kernel[i];
    if (w.autoPad === 'SAME_UPPER' || w.autoPad === 'SAME_LOWER') {
      if (w.ceilMode) return false;
      continue;
    }
    const [begin, end] = w.autoPad === 'VALID' ? [0, 0] : [w.pads[i], w.pads[i + spatialRank]];
    if (begin >= k || end + (w.ceilMode ? w.strides[i] - 1 : 0) >= k) return false;
  }
  return true;
}

function createPool(op: PoolOp, fallbackDef: KernelDef, binding: NativeBinding, Primitive: NonNullable<NativeBinding['PoolPrimitive']>, init: KernelInit): Kernel {
  const { node } = init;
  const fallback = fallbackDef.create(init);
  /** Per shape and thread count: the primitive, or null where the TS kernel serves that shape. */
  const cache = new PrimitiveCache<{ primitive: PoolPrimitive | null; dispose(): void }>();
  const entryFor = (xDims: readonly number[], threads: number) =>
    cache.get(`${xDims.join(',')}|${threads}`, () => {
      const options = poolOptions(op, init.attrs, xDims, threads);
      const primitive = options ? new Primitive(options) : null;
      return { primitive, dispose: () => primitive?.dispose() };
    });

  const xStatic = staticDims(init.inputTypes[0]);
  if (xStatic && !hasZeroDim(xStatic)) {
    try {
      entryFor(xStatic, teamFor(binding, init.threads, elementCount(xStatic), MIN_ELEMENTS_PER_THREAD));
    } catch (error) {
      throw fromNativeError(node, error);
    }
  }

  return {
    implementation: 'onednn',
    // Synchronous when the call runs inline: no promise or microtask per node.
    run(ctx: KernelRunContext): KernelResult | Promise<KernelResult> {
      const x = ctx.input(0);
      if (x.dims.length < 3 || x.dims.length > 5 || hasZeroDim(x.dims) || x.type !== 'float32') return fallback.run(ctx);
      const { inline, threads } = dispatchFor(binding, ctx.threads, x.size, SYNC_ELEMENT_LIMIT, MIN_ELEMENTS_PER_THREAD);
      const { primitive } = withNodeErrors(node, () => entryFor(x.dims, threads));
      if (!primitive) return fallback.run(ctx);
      const xData = float32Data(node, x, 'X');
      const y = ctx.output(0, 'float32', primitive.outputDims, { uninitialized: true });
      const yData = y.data as Float32Array;
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

/** Pooling kernel defs on oneDNN, when the loaded addon has PoolPrimitive. */
export function nativePoolKernels(binding: NativeBinding): KernelDef[] {
  const Primitive = binding.PoolPrimitive;
  if (!Primitive) return [];
  const def = (op: PoolOp, fallback: KernelDef): KernelDef => ({
    ep: 'cpu',
    domain: '',
    opType: op,
    sinceVersion: 1,
    typeConstraints: { T: ['float32'] },
    implementation: 'onednn',
    supports: supportsPool,
    create: (init) => createPool(op, fallback, binding, Primitive, init),
  });
  return [def('MaxPool', maxPoolKernel), def('AveragePool', averagePoolKernel), def('GlobalAveragePool', globalAveragePoolKernel), def('GlobalMaxPool', globalMaxPoolKernel)];
}
