/**
 * com.switchyard BlockedConvDw (from the blocked-conv-dw fusion): Y = dwAct(DepthwiseConv3x3(act(Conv1x1(X, W) + B), DW) + DB)
 * as one oneDNN primitive (ConvDwPrimitive). Inputs X, W [M, C, 1, 1], B [M] or '', DW [M, 1, 3, 3],
 * DB [M] or ''; attributes x_block / y_block (0 plain, 8 / 16 blocked), dw_stride (1 or 2),
 * activation / activation_params and dw_activation / dw_activation_params (FusedConv's names).
 * The depthwise conv pads 1 on every side, so Y is [N, M, ceil(H / stride), ceil(W / stride)].
 * Weights and biases are constants (the fusion only matches those); only the oneDNN addon runs it.
 */
import { SwitchyardError, type Kernel, type KernelDef, type KernelInit, type KernelRunContext, type Node, type Tensor } from '@switchyard/core';
import type { ChannelBlock, ConvDwPrimitive, NativeBinding } from './binding.js';
import { BLOCKED_DOMAIN, blockedDims, isChannelBlock } from './channel-blocked.js';
import { epilogueAttributes, type ConvEpilogue } from './conv-native.js';
import { fromNativeError, withNativeErrors, withNodeErrors } from './native-errors.js';
import { dispatchFor, float32Data, sameDims, staticDims, teamFor } from './native-support.js';
import { PrimitiveCache } from './primitive-cache.js';

function invalidModel(node: Node, message: string): SwitchyardError {
  return new SwitchyardError('INVALID_MODEL', `node '${node.name}' (BlockedConvDw): ${message}`);
}

function blockAttr(init: KernelInit, name: string): ChannelBlock {
  const v = init.attrs.int(name, 0);
  if (v === 0 || isChannelBlock(v)) return v;
  throw invalidModel(init.node, `${name} must be 0, 8 or 16, got ${v}`);
}

function epilogueOrThrow(node: Node, prefix: string): ConvEpilogue {
  const e = epilogueAttributes(node, prefix);
  if (typeof e === 'string') throw new SwitchyardError('UNSUPPORTED', `node '${node.name}' (BlockedConvDw): ${e}`);
  return e;
}

/** A constant float32 input of the expected dims (the fusion only creates the op over initializers). */
function constantInput(init: KernelInit, index: number, what: string, dims: readonly number[] | undefined): Float32Array | undefined {
  const { node } = init;
  if (!node.inputs[index]) return undefined;
  const t = init.constantInputs.get(index);
  if (!t) throw invalidModel(node, `${what} must be a constant initializer`);
  if (dims && !sameDims(t.dims, dims)) throw invalidModel(node, `${what} [${t.dims.join(', ')}] must be [${dims.join(', ')}]`);
  return float32Data(node, t, what);
}

interface PreparedRun {
  xDims: readonly number[];
  requestedThreads: number;
  yDims: number[];
  inline: boolean;
  primitive: ConvDwPrimitive;
}

function createConvDw(binding: NativeBinding, Primitive: NonNullable<NativeBinding['ConvDwPrimitive']>, init: KernelInit): Kernel {
  const { node } = init;
  const xBlock = blockAttr(init, 'x_block');
  const yBlock = blockAttr(init, 'y_block');
  const stride = init.attrs.int('dw_stride', 1);
  if (stride !== 1 && stride !== 2) throw invalidModel(node, `dw_stride must be 1 or 2, got ${stride}`);
  const pointwise = epilogueOrThrow(node, '');
  const depthwise = epilogueOrThrow(node, 'dw_');
  const wTensor: Tensor | undefined = init.constantInputs.get(1);
  if (!wTensor || wTensor.dims.length !== 4 || wTensor.dims[2] !== 1 || wTensor.dims[3] !== 1) {
    throw invalidModel(node, 'W must be a constant [M, C, 1, 1] initializer');
  }
  const [m, c] = wTensor.dims;
  const weights = float32Data(node, wTensor, 'W');
  const bias = constantInput(init, 2, 'B', [m]);
  const dwWeights = constantInput(init, 3, 'DW', [m, 1, 3, 3]);
  if (!dwWeights) throw invalidModel(node, 'DW (the depthwise weights) is required');
  const dwBias = constantInput(init, 4, 'DB', [m]);

  /** X's logical [N, C, H, W], checked against W and the block. */
  const logicalX = (x: readonly number[]): number[] => {
    const rank = xBlock ? 5 : 4;
    const channels = xBlock ? Math.ceil(c / xBlock) : c;
    if (x.length !== rank || x[1] !== channels || (xBlock && x[4] !== xBlock) || x.some((d) => d < 1)) {
      throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (BlockedConvDw): X [${x.join(', ')}] does not hold ${c} channels${xBlock ? ` in blocks of ${xBlock}` : ''}`);
    }
    return [x[0], c, x[2], x[3]];
  };
  const cache = new PrimitiveCache<ConvDwPrimitive>();
  const primitiveFor = (xLogical: readonly number[], threads: number) =>
    cache.get(`${xLogical.join(',')}|${threads}`, () =>
      new Primitive({
        inputDims: xLogical,
        channels: m,
        stride,
        weights,
        bias,
        dwWeights,
        dwBias,
        activation: pointwise.activation,
        activationAlpha: pointwise.alpha,
        activationBeta: pointwise.beta,
        dwActivation: depthwise.activation,
        dwActivationAlpha: depthwise.alpha,
        dwActivationBeta: depthwise.beta,
        threads,
        srcBlock: xBlock,
        dstBlock: yBlock,
      }),
    );

  const yLogicalOf = ([n, , h, w]: readonly number[]) => [n, m, Math.ceil(h / stride), Math.ceil(w / stride)];
  /** Both convolutions' multiply-adds: the 1x1 over the input, the 3x3 depthwise over the output. */
  const macsOf = (xLogical: readonly number[]) => {
    const [n, , h, w] = xLogical;
    const y = yLogicalOf(xLogical);
    return n * h * w * m * c + y[2] * y[3] * n * m * 9;
  };

  let last: PreparedRun | undefined;
  const prepare = (x: Tensor, requestedThreads: number): PreparedRun => {
    if (last && last.requestedThreads === requestedThreads && sameDims(last.xDims, x.dims)) return last;
    const xLogical = logicalX(x.dims);
    const yLogical = yLogicalOf(xLogical);
    const { inline, threads } = dispatchFor(binding, requestedThreads, macsOf(xLogical));
    const primitive = withNodeErrors(node, () => primitiveFor(xLogical, threads));
    last = { xDims: [...x.dims], requestedThreads, yDims: blockedDims(yLogical, yBlock), inline, primitive };
    return last;
  };

  const xStatic = staticDims(init.inputTypes[0]);
  if (xStatic) {
    try {
      const xLogical = logicalX(xStatic);
      primitiveFor(xLogical, teamFor(binding, init.threads, macsOf(xLogical)));
    } catch (error) {
      throw fromNativeError(node, error);
    }
  }
  // Packed now for the only shape runs will see (a static X): the weights are never read again.
  const released = xStatic ? [1, 2, 3, 4].filter((i) => Boolean(node.inputs[i])) : undefined;
  return {
    implementation: 'onednn',
    releasedConstants: released,
    run(ctx: KernelRunContext): Tensor[] | Promise<Tensor[]> {
      const x = ctx.input(0);
      const xData = float32Data(node, x, 'X');
      const prepared = prepare(x, ctx.threads);
      // oneDNN writes every element of Y, the zero padding of a blocked layout included.
      const y = ctx.output(0, 'float32', prepared.yDims, { uninitialized: true });
      const yData = float32Data(node, y, 'Y');
      const primitive = prepared.primitive;
      if (prepared.inline) {
        withNodeErrors(node, () => primitive.runSync(xData, yData));
        return [y];
      }
      return withNativeErrors(node, () => primitive.run(xData, yData)).then(() => [y]);
    },
    dispose() {
      cache.dispose();
    },
  };
}

/** The BlockedConvDw kernel, when the addon has the fused primitive. */
export function nativeConvDwKernels(binding: NativeBinding): KernelDef[] {
  const Primitive = binding.ConvDwPrimitive;
  if (!Primitive) return [];
  return [
    {
      ep: 'cpu',
      domain: BLOCKED_DOMAIN,
      opType: 'BlockedConvDw',
      sinceVersion: 1,
      implementation: 'onednn',
      create: (init) => createConvDw(binding, Primitive, init),
    },
  ];
}
