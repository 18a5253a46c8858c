/**
 * QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear on the addon's vectorised, threaded loops
 * (native/src/quantize_kernels.h). Same arithmetic as the TS kernels, so the outputs are identical
 * (quantize-native.test.ts checks bit for bit). Float32 data only: other dtypes (float16 scales of
 * opset 19, int32 QuantizeLinear inputs) go to the TS kernel, built beside each of these.
 */
import { SwitchyardError, type Graph, type Kernel, type KernelDef, type KernelInit, type KernelRunContext, type Node, type Tensor } from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { withNativeErrors, withNodeErrors } from './native-errors.js';
import { dispatchFor, float32Reason, MIN_ELEMENTS_PER_THREAD, SYNC_ELEMENT_LIMIT } from './native-support.js';
import { quantizeLinearKernel } from '../kernels/QuantizeLinear.js';
import { dequantizeLinearKernel } from '../kernels/DequantizeLinear.js';
import { dynamicQuantizeLinearKernel } from '../kernels/DynamicQuantizeLinear.js';
import { quantizedAddKernel } from '../kernels/QuantizedAdd.js';
import { FUSED_DOMAIN } from '../kernels/FusedMatMul.js';
import { normalizeAxis } from '../nn/float-io.js';

type Int8Data = Uint8Array | Int8Array;
type ZeroPointData = Uint8Array | Int8Array | Int32Array;

/** The [outer, channels, inner] view of a per-tensor (channels 1) or per-axis op, with one scale and zero point per channel. */
export interface QuantAxis {
  channels: number;
  inner: number;
  scales: Float32Array;
  zeroPoints: ZeroPointData | null;
}

const isPerTensor = (t: Tensor) => t.size === 1 && t.dims.length <= 1;

/** Whether a node uses the opset 21+ attributes the native loops do not serve (blocks, output_dtype, precision). */
function usesNewerAttributes(init: KernelInit): boolean {
  const a = init.attrs;
  return a.int('block_size', 0) !== 0 || a.int('output_dtype', 0) !== 0 || a.int('precision', 0) !== 0;
}

/**
 * The view for X of `dims` and its scale / zero point, validated as the TS kernels do (each is a scalar
 * or a 1-D tensor along `axis`); a per-tensor one beside a per-axis one is repeated per channel.
 */
export function quantAxis(op: string, dims: readonly number[], scale: Tensor<'float32'>, zeroPoint: Tensor | undefined, axisAttr: number): QuantAxis {
  const size = dims.reduce((a, b) => a * b, 1);
  const zpData = (zeroPoint?.data ?? null) as ZeroPointData | null;
  const perAxis = [scale, zeroPoint].filter((t): t is Tensor => t !== undefined && !isPerTensor(t));
  if (perAxis.length === 0) return { channels: 1, inner: size, scales: scale.data, zeroPoints: zpData };
  const axis = normalizeAxis(axisAttr, dims.length, op);
  const channels = dims[axis];
  for (const [t, what] of [[scale, 'scale'], [zeroPoint, 'zero point']] as const) {
    if (t && !isPerTensor(t) && (t.dims.length !== 1 || t.size !== channels)) {
      throw new SwitchyardError('INVALID_SHAPE', `${op}: ${what} must be a scalar or a 1-D tensor of ${channels} (axis ${axis}), got [${t.dims.join(', ')}]`);
    }
  }
  const inner = dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  const scales = scale.size === channels ? scale.data : new Float32Array(channels).fill(scale.data[0]);
  let zeroPoints = zpData;
  if (zpData && zpData.length !== channels) {
    zeroPoints = new (zpData.constructor as { new (n: number): ZeroPointData })(channels);
    zeroPoints.fill(zpData[0]);
  }
  return { channels, inner, scales, zeroPoints };
}

function isFloat32(t: Tensor): t is Tensor<'float32'> {
  return t.type === 'float32';
}

function supportsQuantize(node: Node, graph: Graph): true | string {
  const [x, scale] = node.inputs;
  if (!x || !scale) return `${node.opType} needs x and a scale`;
  return float32Reason(graph, x, 'x') ?? float32Reason(graph, scale, 'scale') ?? true;
}

function supportsDequantize(node: Node, graph: Graph): true | string {
  const [x, scale] = node.inputs;
  if (!x || !scale) return 'DequantizeLinear needs x and a scale';
  const type = graph.elemTypeOf(x);
  if (type !== 'uint8' && type !== 'int8' && type !== 'int32') return `x is ${type ?? 'of unknown dtype at session creation'}; onednn serves uint8, int8 and int32`;
  return float32Reason(graph, scale, 'scale') ?? true;
}

/** Runs `inline` on this thread or `queued` on the oneDNN thread, by size, as the other native kernels do. */
function dispatch(node: Node, binding: NativeBinding, ctx: KernelRunContext, elements: number, inline: (threads: number) => void, queued: (threads: number) => Promise<void>, outputs: Tensor[]): Tensor[] | Promise<Tensor[]> {
  const d = dispatchFor(binding, ctx.threads, elements, SYNC_ELEMENT_LIMIT, MIN_ELEMENTS_PER_THREAD);
  if (d.inline) {
    withNodeErrors(node, () => inline(d.threads));
    return outputs;
  }
  return withNativeErrors(node, () => queued(d.threads)).then(() => outputs);
}

function createQuantize(binding: NativeBinding, init: KernelInit): Kernel {
  const { node } = init;
  const fallback = quantizeLinearKernel.create(init);
  if (usesNewerAttributes(init)) return fallback;
  const axisAttr = init.opset >= 13 ? init.attrs.int('axis', 1) : 1;
  const quantize = binding.quantizeLinear!.bind(binding);
  const quantizeAsync = binding.quantizeLinearAsync!.bind(binding);
  return {
    implementation: 'onednn',
    run(ctx) {
      const x = ctx.input(0);
      const scale = ctx.input(1);
      const zp = ctx.optionalInput(2);
      const outType = zp?.type ?? 'uint8';
      if (!isFloat32(x) || !isFloat32(scale) || (outType !== 'uint8' && outType !== 'int8')) return fallback.run(ctx);
      const view = quantAxis('QuantizeLinear', x.dims, scale, zp, axisAttr);
      const y = ctx.output(0, outType, x.dims, { uninitialized: true });
      if (x.size === 0) return [y];
      const yData = y.data as Int8Data;
      const zpData = view.zeroPoints as Int8Data | null;
      return dispatch(
        node, binding, ctx, x.size,
        (threads) => quantize(x.data, view.scales, zpData, yData, view.channels, view.inner, threads),
        (threads) => quantizeAsync(x.data, view.scales, zpData, yData, view.channels, view.inner, threads),
        [y],
      );
    },
    dispose: () => fallback.dispose?.(),
  };
}

function createDequantize(binding: NativeBinding, init: KernelInit): Kernel {
  const { node } = init;
  const fallback = dequantizeLinearKernel.create(init);
  if (usesNewerAttributes(init)) return fallback;
  const axisAttr = init.opset >= 13 ? init.attrs.int('axis', 1) : 1;
  const dequantize = binding.dequantizeLinear!.bind(binding);
  const dequantizeAsync = binding.dequantizeLinearAsync!.bind(binding);
  return {
    implementation: 'onednn',
    run(ctx) {
      const x = ctx.input(0);
      const scale = ctx.input(1);
      const zp = ctx.optionalInput(2);
      const served = x.type === 'uint8' || x.type === 'int8' || x.type === 'int32';
      if (!served || !isFloat32(scale) || (zp && zp.type !== x.type)) return fallback.run(ctx);
      const view = quantAxis('DequantizeLinear', x.dims, scale, zp, axisAttr);
      const y = ctx.output(0, 'float32', x.dims, { uninitialized: true });
      if (x.size === 0) return [y];
      const xData = x.data as ZeroPointData;
      return dispatch(
        node, binding, ctx, x.size,
        (threads) => dequantize(xData, view.scales, view.zeroPoints, y.data as Float32Array, view.channels, view.inner, threads),
        (threads) => dequantizeAsync(xData, view.scales, view.zeroPoints, y.data as Float32Array, view.channels, view.inner, threads),
        [y],
      );
    },
    dispose: () => fallback.dispose?.(),
  };
}

function createDynamicQuantize(binding: NativeBinding, init: KernelInit): Kernel {
  const { node } = init;
  const fallback = dynamicQuantizeLinearKernel.create(init);
  const dynamicQuantize = binding.dynamicQuantizeLinear!.bind(binding);
  const dynamicQuantizeAsync = binding.dynamicQuantizeLinearAsync!.bind(binding);
  return {
    implementation: 'onednn',
    run(ctx) {
      const x = ctx.input(0);
      if (!isFloat32(x)) return fallback.run(ctx);
      const y = ctx.output(0, 'uint8', x.dims, { uninitialized: true });
      const scale = ctx.output(1, 'float32', []);
      const zp = ctx.output(2, 'uint8', []);
      const args = [x.data, y.data as Uint8Array, scale.data as Float32Array, zp.data as Uint8Array] as const;
      return dispatch(node, binding, ctx, x.size, (threads) => dynamicQuantize(...args, threads), (threads) => dynamicQuantizeAsync(...args, threads), [y, scale, zp]);
    },
    dispose: () => fallback.dispose?.(),
  };
}

const isInt8 = (t: Tensor | undefined): boolean => t !== undefined && (t.type === 'uint8' || t.type === 'int8');

/** QuantizedAdd(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp) with `relu`: one pass instead of DQ, DQ, Add, Relu, Q. */
function createQuantizedAdd(binding: NativeBinding, init: KernelInit): Kernel {
  const { node } = init;
  const fallback = quantizedAddKernel.create(init);
  const relu = init.attrs.int('relu', 0) !== 0;
  const add = binding.quantizedAdd!.bind(binding);
  const addAsync = binding.quantizedAddAsync!.bind(binding);
  return {
    implementation: 'onednn',
    run(ctx) {
      const [a, aScale, aZero, b, bScale, bZero, yScale, yZero] = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ctx.optionalInput(i));
      const zeroOk = (z: Tensor | undefined, of: Tensor | undefined) => !z || (z.size === 1 && z.type === of?.type);
      const served =
        isInt8(a) && isInt8(b) && a!.size === b!.size && a!.dims.every((d, i) => d === b!.dims[i]) && a!.dims.length === b!.dims.length &&
        [aScale, bScale, yScale].every((t) => t?.type === 'float32' && t.size === 1) &&
        zeroOk(aZero, a) && zeroOk(bZero, b) && (!yZero || (isInt8(yZero) && yZero.size === 1));
      if (!served) return fallback.run(ctx);
      const y = ctx.output(0, yZero?.type === 'int8' ? 'int8' : 'uint8', a!.dims, { uninitialized: true });
      if (a!.size === 0) return [y];
      const data = (t: Tensor | undefined) => (t ? (t.data as Int8Data) : null);
      const args = [
        a!.data as Int8Data, aScale!.data as Float32Array, data(aZero), b!.data as Int8Data, bScale!.data as Float32Array, data(bZero),
        yScale!.data as Float32Array, data(yZero), y.data as Int8Data, relu,
      ] as const;
      return dispatch(node, binding, ctx, a!.size, (threads) => add(...args, threads), (threads) => addAsync(...args, threads), [y]);
    },
    dispose: () => fallback.dispose?.(),
  };
}

/** The defs, when the loaded addon has the quantize functions. */
export function nativeQuantizeKernels(binding: NativeBinding): KernelDef[] {
  if (!binding.quantizeLinear || !binding.dequantizeLinear || !binding.dynamicQuantizeLinear) return [];
  const quantizedAdd: KernelDef[] = binding.quantizedAdd
    ? [{ ep: 'cpu', domain: FUSED_DOMAIN, opType: 'QuantizedAdd', sinceVersion: 1, implementation: 'onednn', create: (init) => createQuantizedAdd(binding, init) }]
    : [];
  const common = { ep: 'cpu', domain: '', sinceVersion: 10, implementation: 'onednn' } as const;
  return [
    { ...common, opType: 'QuantizeLinear', typeConstraints: { T1: ['float32'], T2: ['int8', 'uint8'] }, supports: supportsQuantize, create: (init) => createQuantize(binding, init) },
    { ...common, opType: 'DequantizeLinear', typeConstraints: { T: ['int8', 'uint8', 'int32'] }, supports: supportsDequantize, create: (init) => createDequantize(binding, init) },
    {
      ...common,
      opType: 'DynamicQuantizeLinear',
      sinceVersion: 11,
      typeConstraints: { T1: ['float32'], T2: ['uint8'] },
      supports: (node, graph) => (node.inputs[0] ? (float32Reason(graph, node.inputs[0], 'x') ?? true) : 'DynamicQuantizeLinear needs x'),
      create: (init) => createDynamicQuantize(binding, init),
    },
    ...quantizedAdd,
  ];
}
