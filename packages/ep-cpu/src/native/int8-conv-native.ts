/**
 * ConvInteger, QLinearConv and the fusions' QuantizedConv / DynamicQuantizedConv on oneDNN's int8
 * convolution (native/src/int8_conv.h): exact int32 sums for any uint8/int8 data, weights and zero points,
 * requantized or scaled as the TS kernels do, so the outputs are identical to theirs (int8-conv-native.test.ts).
 * W (and its zero points) must be constants: they are packed once. One primitive per node and input shape
 * (a bounded cache for dynamic shapes); anything else (empty tensors, mismatched zero-point types, other
 * dtypes) runs on the TS kernel, built beside each.
 */
import { type AttributeReader, type Graph, type Kernel, type KernelDef, type KernelInit, type KernelRunContext, type Node, type Tensor } from '@switchyard/core';
import type { Int8Array8, Int8ConvOptions, NativeBinding } from './binding.js';
import { buildOrDecline, is8Bit, MultiplierCache, perChannel, runInt8Primitive } from './int8-native-support.js';
import { dispatchFor, float32Reason, sameDims } from './native-support.js';
import { PrimitiveCache } from './primitive-cache.js';
import { FUSED_DOMAIN } from '../kernels/FusedMatMul.js';
import { convIntegerKernel } from '../kernels/ConvInteger.js';
import { qLinearConvKernel } from '../kernels/QLinearConv.js';
import { quantizedConvKernel } from '../kernels/QuantizedConv.js';
import { dynamicQuantizedConvKernel } from '../kernels/DynamicQuantizedConv.js';
import { convShape } from '../nn/conv.js';
import { readWindowAttrs, windowGeometry } from '../nn/geometry.js';

/** What a primitive for one input shape needs: ONNX's geometry, resolved exactly as the TS kernels resolve it. */
interface Int8ConvGeometry {
  outDims: number[];
  strides: number[];
  dilations: number[];
  padsBegin: number[];
  padsEnd: number[];
  group: number;
  /** Multiply-adds, for the inline / oneDNN-thread choice. */
  macs: number;
}

function int8ConvGeometry(op: string, xDims: readonly number[], wDims: readonly number[], attrs: AttributeReader): Int8ConvGeometry {
  const shape = convShape(op, xDims, wDims, attrs);
  const g = windowGeometry(op, xDims.slice(2), readWindowAttrs(op, attrs, xDims.length - 2, wDims.slice(2)));
  const perOutput = wDims.slice(1).reduce((a, b) => a * b, 1);
  const macs = shape.outDims.reduce((a, b) => a * b, 1) * perOutput;
  return { outDims: shape.outDims, strides: g.strides, dilations: g.dilations, padsBegin: g.padsBegin, padsEnd: g.padsEnd, group: shape.group, macs };
}

/** Why the node's weights (input `w`, zero points `wZero`) cannot be packed, or undefined when they can. */
function constantWeightsReason(node: Node, graph: Graph, w: number, wZero: number): string | undefined {
  const wName = node.inputs[w];
  if (!wName || !graph.initializerOf(wName)) return 'W is not a constant initializer; onednn packs int8 weights at session creation';
  const rank = graph.initializerOf(wName)!.dims.length;
  if (rank < 3 || rank > 5) return `W has rank ${rank}; onednn serves 1-D, 2-D and 3-D int8 conv`;
  const zName = node.inputs[wZero];
  if (zName && !graph.initializerOf(zName)) return 'the weight zero point is not a constant initializer';
  return undefined;
}

/**
 * The shared machinery of the three kernels: W and its zero points as packed data, the geometry of the
 * last input shape, and a primitive per shape (and per `variant`, e.g. the output type).
 */
class Int8ConvNode<P extends { dispose(): void }> {
  readonly #cache = new PrimitiveCache<P>();
  /** Shapes the addon declined (UNSUPPORTED): they run on the TS kernel. */
  readonly #declined = new Set<string>();
  #last: { dims: readonly number[]; variant: string; threads: number; geometry: Int8ConvGeometry; primitive: P; inline: boolean } | undefined;

  constructor(
    private readonly binding: NativeBinding,
    private readonly op: string,
    private readonly node: Node,
    private readonly attrs: AttributeReader,
    private readonly weights: Tensor,
    private readonly weightZero: Tensor | undefined,
    private readonly build: (options: Int8ConvOptions, variant: string) => P,
  ) {}

  /** Whether the zero points are ones the addon takes (W's type, 1 or M elements); the TS kernel reports the rest. */
  get weightsServed(): boolean {
    const z = this.weightZero;
    return is8Bit(this.weights) && (!z || (z.type === this.weights.type && (z.size === 1 || z.size === this.weights.dims[0])));
  }

  /** The primitive for input dims `dims` and `variant` at the run's thread count, with the geometry and dispatch. */
  prepare(dims: readonly number[], variant: string, requestedThreads: number) {
    const last = this.#last;
    if (last && last.variant === variant && last.threads === requestedThreads && sameDims(last.dims, dims)) return last;
    const geometry = int8ConvGeometry(this.op, dims, this.weights.dims, this.attrs);
    const { inline, threads } = dispatchFor(this.binding, requestedThreads, geometry.macs);
    const key = `${dims.join(',')}|${variant}|${threads}`;
    if (this.#declined.has(key)) return undefined;
    const primitive = buildOrDecline(this.node, () =>
      this.#cache.get(key, () =>
        this.build(
          {
            inputDims: dims,
            weightDims: this.weights.dims,
            group: geometry.group,
            strides: geometry.strides,
            dilations: geometry.dilations,
            padsBegin: geometry.padsBegin,
            padsEnd: geometry.padsEnd,
            threads,
            weights: this.weights.data as Int8Array8,
            weightZeroPoints: this.weightZero?.data as Int8Array8 | undefined,
          },
          variant,
        ),
      ),
    );
    if (!primitive) {
      this.#declined.add(key);
      return undefined;
    }
    this.#last = { dims: [...dims], variant, threads: requestedThreads, geometry, primitive, inline };
    return this.#last;
  }

  /** Runs the prepared primitive inline or on the oneDNN thread, then returns `outputs`. */
  execute<A extends unknown[]>(p: { inline: boolean; primitive: P & { run(...a: A): Promise<void>; runSync(...a: A): void } }, args: A, outputs: Tensor[]): Tensor[] | Promise<Tensor[]> {
    return runInt8Primitive(this.node, p.inline, p.primitive, args, outputs);
  }

  dispose(): void {
    this.#cache.dispose();
  }
}

function createConvInteger(binding: NativeBinding, init: KernelInit): Kernel {
  const { node } = init;
  const fallback = convIntegerKernel.create(init);
  const w = init.constantInputs.get(1)!;
  const conv = new Int8ConvNode(binding, 'ConvInteger', node, init.attrs, w, init.constantInputs.get(3), (options, inputType) =>
    new binding.ConvIntegerPrimitive!({ ...options, inputType: inputType as 'uint8' | 'int8' }),
  );
  return {
    implementation: 'onednn',
    run(ctx: KernelRunContext) {
      const x = ctx.input(0);
      const xZero = ctx.optionalInput(2);
      const served = is8Bit(x) && x.size > 0 && conv.weightsServed && (!xZero || (xZero.size === 1 && xZero.type === x.type));
      if (!served) return fallback.run(ctx);
      const p = conv.prepare(x.dims, x.type, ctx.threads);
      if (!p) return fallback.run(ctx);
      const y = ctx.output(0, 'int32', p.geometry.outDims, { uninitialized: true });
      return conv.execute(p, [x.data as Int8Array8, (xZero?.data ?? null) as Int8Array8 | null, y.data as Int32Array], [y]);
    },
    dispose() {
      conv.dispose();
      fallback.dispose?.();
    },
  };
}

/** QLinearConv and QuantizedConv: inputs (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B). */
function createQLinearConv(binding: NativeBinding, init: KernelInit, fallbackDef: KernelDef, relu: boolean): Kernel {
  const { node } = init;
  const fallback = fallbackDef.create(init);
  const w = init.constantInputs.get(3)!;
  const channels = w.dims[0];
  const conv = new Int8ConvNode(binding, node.opType, node, init.attrs, w, init.constantInputs.get(5), (options, variant) => {
    const [inputType, outputType] = variant.split('>') as ['uint8' | 'int8', 'uint8' | 'int8'];
    return new binding.QLinearConvPrimitive!({ ...options, inputType, outputType, relu });
  });
  const multipliers = new MultiplierCache();
  return {
    implementation: 'onednn',
    run(ctx: KernelRunContext) {
      const x = ctx.input(0);
      const [xScale, xZero, wScale, yScale, yZero] = [ctx.input(1), ctx.optionalInput(2), ctx.input(4), ctx.input(6), ctx.input(7)];
      const bias = ctx.optionalInput(8);
      const served =
        is8Bit(x) && x.size > 0 && conv.weightsServed && is8Bit(yZero) && yZero.size === 1 &&
        (!xZero || (xZero.size === 1 && xZero.type === x.type)) &&
        [xScale, wScale, yScale].every((s) => s.type === 'float32') && (wScale.size === 1 || wScale.size === channels) &&
        (!bias || (bias.type === 'int32' && bias.size === channels));
      if (!served) return fallback.run(ctx);
      const mult = multipliers.get(xScale, wScale, yScale, channels);
      const p = conv.prepare(x.dims, `${x.type}>${yZero.type}`, ctx.threads);
      if (!p) return fallback.run(ctx);
      const y = ctx.output(0, yZero.type, p.geometry.outDims, { uninitialized: true });
      const args: [Int8Array8, Int8Array8 | null, Int32Array | null, Float32Array, Int8Array8 | null, Int8Array8] = [
        x.data as Int8Array8,
        (xZero?.data ?? null) as Int8Array8 | null,
        (bias?.data ?? null) as Int32Array | null,
        mult,
        yZero.data as Int8Array8,
        y.data as Int8Array8,
      ];
      return conv.execute(p, args, [y]);
    },
    dispose() {
      conv.dispose();
      fallback.dispose?.();
    },
  };
}

/** DynamicQuantizedConv(X float32, W, w_zero_point?, scales, B?). */
function createDynamicQuantizedConv(binding: NativeBinding, init: KernelInit): Kernel {
  const { node } = init;
  const fallback = dynamicQuantizedConvKernel.create(init);
  const w = init.constantInputs.get(1)!;
  const channels = w.dims[0];
  const hasBias = Boolean(node.inputs[4]);
  const scales = perChannel(init.constantInputs.get(3), channels);
  const bias = hasBias ? perChannel(init.constantInputs.get(4), channels) : undefined;
  const relu = init.attrs.int('relu', 0) !== 0;
  const conv = new Int8ConvNode(binding, node.opType, node, init.attrs, w, init.constantInputs.get(2), (options) =>
    new binding.DynamicQuantizedConvPrimitive!({ ...options, hasBias, relu }),
  );
  return {
    implementation: 'onednn',
    run(ctx: KernelRunContext) {
      const x = ctx.input(0);
      if (x.type !== 'float32' || x.size === 0 || !scales || (hasBias && !bias) || !conv.weightsServed) return fallback.run(ctx);
      const p = conv.prepare(x.dims, 'float32', ctx.threads);
      if (!p) return fallback.run(ctx);
      const y = ctx.output(0, 'float32', p.geometry.outDims, { uninitialized: true });
      return conv.execute(p, [x.data as Float32Array, scales, bias ?? null, y.data as Float32Array], [y]);
    },
    dispose() {
      conv.dispose();
      fallback.dispose?.();
    },
  };
}

function supportsDynamicQuantizedConv(node: Node, graph: Graph): true | string {
  const reason = constantWeightsReason(node, graph, 1, 2) ?? (node.inputs[0] ? float32Reason(graph, node.inputs[0], 'X') : 'X is missing');
  if (reason) return reason;
  for (const [i, what] of [[3, 'scales'], [4, 'B']] as const) {
    const name = node.inputs[i];
    if (name && !graph.initializerOf(name)) return `${what} is not a constant initializer`;
  }
  return true;
}

/** The int8 conv defs, when the loaded addon has the classes. */
export function nativeInt8ConvKernels(binding: NativeBinding): KernelDef[] {
  if (!binding.ConvIntegerPrimitive || !binding.QLinearConvPrimitive || !binding.DynamicQuantizedConvPrimitive) return [];
  const int8 = ['int8', 'uint8'] as const;
  return [
    {
      ep: 'cpu',
      domain: '',
      opType: 'ConvInteger',
      sinceVersion: 10,
      typeConstraints: { T1: int8, T2: int8, T3: ['int32'] },
      implementation: 'onednn',
      supports: (node, graph) => constantWeightsReason(node, graph, 1, 3) ?? true,
      create: (init) => createConvInteger(binding, init),
    },
    {
      ep: 'cpu',
      domain: '',
      opType: 'QLinearConv',
      sinceVersion: 10,
      typeConstraints: { T1: int8, T2: int8, T3: int8, T4: ['int32'] },
      implementation: 'onednn',
      supports: (node, graph) => constantWeightsReason(node, graph, 3, 5) ?? true,
      create: (init) => createQLinearConv(binding, init, qLinearConvKernel, false),
    },
    {
      ep: 'cpu',
      domain: FUSED_DOMAIN,
      opType: 'QuantizedConv',
      sinceVersion: 1,
      implementation: 'onednn',
      supports: (node, graph) => constantWeightsReason(node, graph, 3, 5) ?? true,
      create: (init) => createQLinearConv(binding, init, quantizedConvKernel, init.attrs.int('relu', 0) !== 0),
    },
    {
      ep: 'cpu',
      domain: FUSED_DOMAIN,
      opType: 'DynamicQuantizedConv',
      sinceVersion: 1,
      implementation: 'onednn',
      supports: supportsDynamicQuantizedConv,
      create: (init) => createDynamicQuantizedConv(binding, init),
    },
  ];
}
