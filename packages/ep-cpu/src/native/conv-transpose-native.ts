/**
 * ConvTranspose (opsets 1, 11) on oneDNN's deconvolution (native/src/conv_transpose_kernel.h): float32,
 * 1-D to 3-D, group, strides, dilations, pads, auto_pad, output_padding, output_shape, bias. The geometry
 * is the TS kernel's (kernels/ConvTranspose.ts), so both produce the same shape. One primitive per node and
 * input shape: built at session creation when shape inference fixed X's shape, else on first sight
 * (dynamic H/W); constant weights and bias are packed once. What oneDNN does not take runs on the TS
 * kernel: empty tensors, and outputs reaching past the full extent by a stride or more (output_padding
 * at least the stride, allowed with a larger dilation; an output_shape beyond the extent).
 * com.switchyard BlockedConvTranspose (the blocked-layout pass's) runs the same with X and/or Y
 * channel-blocked (`x_block`, `y_block`) and an activation post-op (`activation`, FusedConv's names).
 */
import { SwitchyardError, elementCount, type Graph, type Kernel, type KernelDef, type KernelInit, type KernelResult, type KernelRunContext, type Node, type Tensor } from '@switchyard/core';
import type { ChannelBlock, ConvTransposePrimitive, ConvTransposePrimitiveOptions, NativeBinding } from './binding.js';
import { BLOCKED_DOMAIN, blockedDims, isChannelBlock, logicalDims } from './channel-blocked.js';
import { nodeActivation, type FusedActivation } from '../nn/fused-activation.js';
import { fromNativeError, withNativeErrors, withNodeErrors } from './native-errors.js';
import { dispatchFor, float32Data, float32Reason, hasZeroDim, sameDims, staticDims, staticRank, teamFor } from './native-support.js';
import { PrimitiveCache } from './primitive-cache.js';
import { convTransposeGeometry, convTransposeKernel } from '../kernels/ConvTranspose.js';

function supportsConvTranspose(node: Node, graph: Graph): true | string {
  const [x, w, b] = node.inputs;
  if (!x || !w) return 'ConvTranspose needs X and W';
  const dtype = float32Reason(graph, x, 'X') ?? float32Reason(graph, w, 'W') ?? (b ? float32Reason(graph, b, 'B') : undefined);
  if (dtype) return dtype;
  const rank = staticRank(graph, w);
  if (rank === undefined) return 'weight rank is unknown at session creation (onednn serves 1-D, 2-D and 3-D ConvTranspose)';
  if (rank < 3 || rank > 5) return `weights have rank ${rank}; onednn serves 1-D, 2-D and 3-D ConvTranspose (rank 3–5)`;
  return true;
}

/**
 * The primitive's options for X and W dims, or undefined where oneDNN cannot take the shape (the TS
 * kernel then runs it): empty tensors, an output_shape so far beyond the full extent that the output
 * starts before the first input position (a negative begin pad), and trailing outputs no input reaches
 * that span a stride or more (oneDNN's deconvolution rejects them).
 */
export function convTransposeOptions(init: KernelInit, xDims: readonly number[], wDims: readonly number[], threads: number): ConvTransposePrimitiveOptions | undefined {
  const { node, attrs } = init;
  const fail = (message: string) => new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (ConvTranspose): ${message}`);
  if (xDims.length < 3 || xDims.length > 5 || wDims.length !== xDims.length) throw fail(`X [${xDims.join(', ')}] and W [${wDims.join(', ')}] must have the same rank, 3 to 5`);
  const group = attrs.int('group', 1);
  if (!(group >= 1) || xDims[1] % group !== 0 || wDims[0] !== xDims[1]) throw fail(`W's first dim ${wDims[0]} must equal input channels ${xDims[1]}, divisible by group ${group}`);
  const kernel = wDims.slice(2);
  const g = convTransposeGeometry(attrs, xDims.slice(2), kernel);
  if (g.kernel.join() !== kernel.join()) throw fail(`kernel_shape [${g.kernel.join(', ')}] differs from W [${wDims.join(', ')}]`);
  if (hasZeroDim(xDims) || hasZeroDim(wDims) || g.padsBegin.some((p) => p < 0)) return undefined;
  const padsEnd: number[] = [];
  const outputPadding: number[] = [];
  g.output.forEach((out, i) => {
    // What is left of the full extent after the begin pad and the output: end padding, or (negative) trailing outputs.
    const rest = g.strides[i] * (xDims[i + 2] - 1) + (kernel[i] - 1) * g.dilations[i] + 1 - g.padsBegin[i] - out;
    padsEnd.push(Math.max(rest, 0));
    outputPadding.push(Math.max(-rest, 0));
  });
  if (outputPadding.some((p, i) => p >= g.strides[i])) return undefined;
  return {
    inputDims: xDims,
    weightDims: wDims,
    group,
    strides: g.strides,
    dilations: g.dilations,
    padsBegin: g.padsBegin,
    padsEnd,
    outputPadding,
    hasBias: Boolean(node.inputs[2]),
    threads,
  };
}

/**
 * A BlockedConvTranspose's layouts (the blocked-layout pass's ConvTranspose: X and/or Y channel-blocked)
 * and the activation it fused; undefined for a plain ConvTranspose.
 */
interface BlockedForm {
  xBlock: ChannelBlock;
  yBlock: ChannelBlock;
  activation: FusedActivation;
}

function blockedFormOf(init: KernelInit): BlockedForm {
  const { node, attrs } = init;
  const fail = (why: string) => new SwitchyardError('INVALID_MODEL', `node '${node.name}' (BlockedConvTranspose): ${why}`);
  const block = (name: string): ChannelBlock => {
    const v = attrs.int(name, 0);
    if (v !== 0 && !isChannelBlock(v)) throw fail(`${name} must be 0, 8 or 16, got ${v}`);
    return v as ChannelBlock;
  };
  const activation = nodeActivation(node);
  if (typeof activation === 'string') throw fail(activation);
  return { xBlock: block('x_block'), yBlock: block('y_block'), activation };
}

/** Multiply-adds of a ConvTranspose: every input element times one input channel's slice of W. */
function convTransposeMacs(xDims: readonly number[], wDims: readonly number[]): number {
  return elementCount(xDims) * elementCount(wDims.slice(1));
}

function createConvTranspose(binding: NativeBinding, Primitive: NonNullable<NativeBinding['ConvTransposePrimitive']>, init: KernelInit, blocked?: BlockedForm): Kernel {
  const { node } = init;
  // A blocked X or Y has no TS kernel: every shape must go native (the pass only blocks what can).
  const fallback = blocked ? undefined : convTransposeKernel.create(init);
  const epilogue = blocked ? { activation: blocked.activation.native, activationAlpha: blocked.activation.alpha, activationBeta: blocked.activation.beta } : {};
  const layouts = blocked ? { srcBlock: blocked.xBlock, dstBlock: blocked.yBlock } : {};
  /** X's logical [N, C, ...spatial]: a blocked X's C comes from W (its first dim). */
  const logicalX = (xDims: readonly number[], wDims: readonly number[]): readonly number[] => {
    if (!blocked?.xBlock) return xDims;
    if (xDims.length !== wDims.length + 1 || xDims[xDims.length - 1] !== blocked.xBlock || xDims[1] !== Math.ceil(wDims[0] / blocked.xBlock)) {
      throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (BlockedConvTranspose): X [${xDims.join(', ')}] is not blocked by ${blocked.xBlock} for weights [${wDims.join(', ')}]`);
    }
    return logicalDims(xDims, blocked.xBlock, wDims[0]);
  };
  const constW = init.constantInputs.get(1);
  const constB = init.constantInputs.get(2);
  const hasBiasInput = Boolean(node.inputs[2]);
  /** Per X dims, W dims and thread count: the primitive, or null where the TS kernel runs that shape. */
  const cache = new PrimitiveCache<{ primitive: ConvTransposePrimitive | null; dispose(): void }>();
  const entryFor = (xDims: readonly number[], w: Tensor, threads: number) =>
    cache.get(`${xDims.join(',')}|${w.dims.join(',')}|${threads}`, () => {
      const options = convTransposeOptions(init, logicalX(xDims, w.dims), w.dims, threads);
      if (!options && blocked) throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (BlockedConvTranspose): oneDNN cannot take X [${xDims.join(', ')}] with these attributes`);
      const primitive = options
        ? new Primitive({ ...options, ...epilogue, ...layouts, weights: constW ? float32Data(node, constW, 'W') : undefined, bias: constB ? float32Data(node, constB, 'B') : undefined })
        : null;
      return { primitive, dispose: () => primitive?.dispose() };
    });

  // Session creation: build now when X's shape is static and the weights are known.
  const xStatic = staticDims(init.inputTypes[0]);
  let packedAtCreate = false;
  if (xStatic && constW) {
    try {
      const threads = teamFor(binding, init.threads, convTransposeMacs(xStatic, constW.dims));
      packedAtCreate = entryFor(xStatic, constW, threads).primitive?.weightsPacked ?? false;
    } catch (error) {
      throw fromNativeError(node, error);
    }
  }

  /** The last run's dims and what followed from them: a static model's runs skip the cache key. */
  let last: { xDims: readonly number[]; wDims: readonly number[]; requestedThreads: number; primitive: ConvTransposePrimitive | null; inline: boolean } | undefined;
  const prepare = (x: Tensor, w: Tensor, requestedThreads: number) => {
    if (last && last.requestedThreads === requestedThreads && sameDims(last.xDims, x.dims) && sameDims(last.wDims, w.dims)) return last;
    const { inline, threads } = dispatchFor(binding, requestedThreads, convTransposeMacs(x.dims, w.dims));
    const { primitive } = withNodeErrors(node, () => entryFor(x.dims, w, threads));
    last = { xDims: [...x.dims], wDims: [...w.dims], requestedThreads, primitive, inline };
    return last;
  };

  return {
    implementation: 'onednn',
    releasedConstants: packedAtCreate ? [1] : undefined,
    run(ctx: KernelRunContext): KernelResult | Promise<KernelResult> {
      const x = ctx.input(0);
      const w = constW ?? ctx.input(1);
      const b = constB ?? ctx.optionalInput(2);
      if (hasBiasInput !== Boolean(b)) throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}': bias input is declared but empty`);
      const { primitive, inline } = prepare(x, w, ctx.threads);
      if (!primitive) {
        if (packedAtCreate || !fallback) throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (ConvTranspose): X [${x.dims.join(', ')}] differs from the shape the session was built for`);
        return fallback.run(ctx);
      }
      const logicalY = primitive.outputDims;
      const yDims = blocked?.yBlock ? blockedDims(logicalY, blocked.yBlock) : logicalY;
      if (b && (b.dims.length !== 1 || b.dims[0] !== logicalY[1])) {
        throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (ConvTranspose): bias [${b.dims.join(', ')}] must be [${logicalY[1]}]`);
      }
      const xData = float32Data(node, x, 'X');
      const wArg = primitive.weightsPacked ? null : float32Data(node, w, 'W');
      const bArg = !b || constB ? null : float32Data(node, b, 'B');
      // oneDNN writes every element of Y.
      const y = ctx.output(0, 'float32', yDims, { uninitialized: true });
      const yData = float32Data(node, y, 'Y');
      if (inline) {
        withNodeErrors(node, () => primitive.runSync(xData, wArg, bArg, yData));
        return [y];
      }
      return withNativeErrors(node, () => primitive.run(xData, wArg, bArg, yData)).then(() => [y]);
    },
    dispose() {
      cache.dispose();
      fallback?.dispose?.();
    },
  };
}

/** The ai.onnx ConvTranspose kernel def on oneDNN (and the blocked-layout pass's BlockedConvTranspose), when the loaded addon has ConvTransposePrimitive. */
export function nativeConvTransposeKernels(binding: NativeBinding): KernelDef[] {
  const Primitive = binding.ConvTransposePrimitive;
  if (!Primitive) return [];
  return [
    {
      ep: 'cpu',
      domain: '',
      opType: 'ConvTranspose',
      sinceVersion: 1,
      typeConstraints: { T: ['float32'] },
      implementation: 'onednn',
      supports: supportsConvTranspose,
      create: (init) => createConvTranspose(binding, Primitive, init),
    },
    {
      ep: 'cpu',
      domain: BLOCKED_DOMAIN,
      opType: 'BlockedConvTranspose',
      sinceVersion: 1,
      implementation: 'onednn',
      create: (init) => createConvTranspose(binding, Primitive, init, blockedFormOf(init)),
    },
  ];
}
