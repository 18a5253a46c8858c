/**
 * Conv (and com.microsoft FusedConv: + Z, then Relu / LeakyRelu / Clip / nothing) on oneDNN. One ConvPrimitive per node
 * and input shape: built at session creation when shape inference fixed the input shape, else on the
 * first run; constant weights and bias are packed into oneDNN's layout once.
 */
import {
  SwitchyardError,
  elementCount,
  type Graph,
  type Kernel,
  type KernelDef,
  type KernelInit,
  type KernelRunContext,
  type Node,
  type Tensor,
} from '@switchyard/core';
import type { ChannelBlock, ConvPrimitive, ConvPrimitiveOptions, NativeActivation, NativeBinding } from './binding.js';
import { BLOCKED_DOMAIN, blockedDims, isChannelBlock } from './channel-blocked.js';
import { fromNativeError, withNativeErrors, withNodeErrors } from './native-errors.js';
import {
  dispatchFor,
  float32Data,
  float32Reason,
  hasZeroDim,
  sameDims,
  staticDims,
  staticRank,
  teamFor,
} from './native-support.js';
import { RepackingCache } from './primitive-cache.js';
import { nodeActivation, type FusedActivation } from '../nn/fused-activation.js';

type AutoPad = 'NOTSET' | 'SAME_UPPER' | 'SAME_LOWER' | 'VALID';
const AUTO_PADS: readonly string[] = ['NOTSET', 'SAME_UPPER', 'SAME_LOWER', 'VALID'];

/** A conv implementation that is a Winograd algorithm: the addon's own (AVX2) or oneDNN's (AVX-512: jit_*wino*). */
function isWinograd(implementation: string): boolean {
  return implementation.startsWith('winograd') || implementation.includes('wino_');
}

function isAutoPad(s: string): s is AutoPad {
  return AUTO_PADS.includes(s);
}

interface ConvAttributes {
  autoPad: AutoPad;
  group: number;
  strides?: number[];
  dilations?: number[];
  pads?: number[];
  kernelShape?: number[];
  epilogue: ConvEpilogue;
}

/** FusedConv's activation as the addon takes it (plain Conv has none), with its TS form for empty inputs. */
export interface ConvEpilogue {
  activation: NativeActivation;
  alpha: number;
  beta: number;
  apply(v: number): number;
}

/**
 * FusedConv's / BlockedConv's `activation` / `activation_params` → the addon's epilogue, or the reason
 * it does not serve it. Plain Conv has none.
 */
export function convEpilogue(node: Node): ConvEpilogue | string {
  if (node.opType !== 'FusedConv' && node.opType !== 'BlockedConv') return NO_EPILOGUE;
  return epilogueAttributes(node, '');
}

/** The epilogue in attributes `${prefix}activation` / `${prefix}activation_params` (FusedConv's names with no prefix). */
export function epilogueAttributes(node: Node, prefix: string): ConvEpilogue | string {
  const a = nodeActivation(node, prefix);
  return typeof a === 'string' ? `${node.opType}: ${a}` : epilogueOf(a);
}

const NO_EPILOGUE: ConvEpilogue = { activation: 'none', alpha: 0, beta: 0, apply: (v) => v };

function epilogueOf(a: FusedActivation): ConvEpilogue {
  return { activation: a.native, alpha: a.alpha, beta: a.beta, apply: a.apply };
}

/**
 * Layouts of X, Y and Z: all plain for Conv/FusedConv; com.switchyard BlockedConv (the blocked-layout
 * pass) says per tensor (`x_block`, `y_block`, `z_block`: 0 plain, 8/16 channel-blocked).
 */
interface ConvLayout {
  x: ChannelBlock;
  y: ChannelBlock;
  z: ChannelBlock;
}

const PLAIN_LAYOUT: ConvLayout = { x: 0, y: 0, z: 0 };

function convLayout(node: Node): ConvLayout {
  if (node.opType !== 'BlockedConv') return PLAIN_LAYOUT;
  const block = (name: string): ChannelBlock => {
    const a = node.attributes.get(name);
    const v = a?.type === 'int' ? Number(a.value) : 0;
    if (v === 0 || isChannelBlock(v)) return v;
    throw new SwitchyardError('INVALID_MODEL', `node '${node.name}' (BlockedConv): ${name} must be 0, 8 or 16, got ${v}`);
  };
  return { x: block('x_block'), y: block('y_block'), z: block('z_block') };
}

function readAttributes(init: KernelInit): ConvAttributes {
  const { attrs, node } = init;
  const autoPad = attrs.string('auto_pad', 'NOTSET');
  if (!isAutoPad(autoPad)) throw new SwitchyardError('INVALID_MODEL', `node '${node.name}' (Conv): unknown auto_pad '${autoPad}'`);
  return {
    autoPad,
    group: attrs.int('group', 1),
    strides: attrs.has('strides') ? attrs.ints('strides') : undefined,
    dilations: attrs.has('dilations') ? attrs.ints('dilations') : undefined,
    pads: attrs.has('pads') ? attrs.ints('pads') : undefined,
    kernelShape: attrs.has('kernel_shape') ? attrs.ints('kernel_shape') : undefined,
    epilogue: epilogueOrThrow(node),
  };
}

function epilogueOrThrow(node: Node): ConvEpilogue {
  const e = convEpilogue(node);
  if (typeof e === 'string') throw new SwitchyardError('UNSUPPORTED', `node '${node.name}': ${e}`);
  return e;
}

/** Largest stride, dilation or pad a model may state: beyond it no output fits in a tensor anyway. */
const MAX_WINDOW_ATTRIBUTE = 2 ** 31 - 1;

/** Everything a ConvPrimitive needs that depends on the input shape: auto_pad resolved, defaults filled. */
interface ConvGeometry {
  strides: number[];
  dilations: number[];
  padsBegin: number[];
  padsEnd: number[];
  outputDims: number[];
}

/** Multiply-adds of one conv (a grouped conv's W covers one group's input channels per output channel). */
function convMacs(geometry: ConvGeometry, wDims: readonly number[]): number {
  return (elementCount(geometry.outputDims) * elementCount(wDims)) / wDims[0];
}

function convGeometry(node: Node, a: ConvAttributes, x: readonly number[], w: readonly number[]): ConvGeometry {
  const fail = (message: string) => new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (${node.opType}): ${message}`);
  const spatial = x.length - 2;
  if (spatial < 1 || spatial > 3) throw fail(`input [${x.join(', ')}] must have rank 3, 4 or 5`);
  if (w.length !== x.length) throw fail(`weights [${w.join(', ')}] must have the input's rank ${x.length}`);
  if (w[1] * a.group !== x[1]) throw fail(`input has ${x[1]} channels; weights [${w.join(', ')}] with group ${a.group} need ${w[1] * a.group}`);
  const perAxis = (v: number[] | undefined, fallback: number, name: string, len = spatial) => {
    if (v === undefined) return Array<number>(len).fill(fallback);
    if (v.length !== len) throw fail(`${name} has ${v.length} entries, expected ${len}`);
    return v;
  };
  const kernel = w.slice(2);
  if (a.kernelShape && a.kernelShape.join() !== kernel.join()) throw fail(`kernel_shape [${a.kernelShape.join(', ')}] differs from weights [${w.join(', ')}]`);
  const strides = perAxis(a.strides, 1, 'strides');
  const dilations = perAxis(a.dilations, 1, 'dilations');
  let padsBegin: number[];
  let padsEnd: number[];
  if (a.autoPad === 'NOTSET') {
    const pads = perAxis(a.pads, 0, 'pads', 2 * spatial);
    padsBegin = pads.slice(0, spatial);
    padsEnd = pads.slice(spatial);
  } else if (a.autoPad === 'VALID') {
    padsBegin = Array<number>(spatial).fill(0);
    padsEnd = Array<number>(spatial).fill(0);
  } else {
    // SAME_*: output = ceil(input / stride); the odd pad goes to the end (UPPER) or the beginning (LOWER).
    padsBegin = [];
    padsEnd = [];
    for (let i = 0; i < spatial; i++) {
      const out = Math.ceil(x[i + 2] / strides[i]);
      const total = Math.max(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - x[i + 2]);
      const small = Math.floor(total / 2);
      padsBegin.push(a.autoPad === 'SAME_UPPER' ? small : total - small);
      padsEnd.push(total - padsBegin[i]);
    }
  }
  // The addon takes these as int64 and refuses others with a bare TypeError: a model's absurd
  // attribute gets the same coded error here as in the TS kernels (nn/geometry.ts).
  const limits: Array<[string, number[], number]> = [
    ['strides', strides, 1],
    ['dilations', dilations, 1],
    ['pads', [...padsBegin, ...padsEnd], 0],
    // Static shapes a model states (no tensor of these sizes exists yet) are checked too.
    ['input dims', [...x], 0],
    ['weight dims', [...w], 0],
  ];
  for (const [name, values, min] of limits) {
    if (!values.every((v) => Number.isSafeInteger(v) && v >= min && v <= MAX_WINDOW_ATTRIBUTE)) throw fail(`${name} [${values.join(', ')}] must be integers from ${min} to ${MAX_WINDOW_ATTRIBUTE}`);
  }
  const outputDims = [x[0], w[0]];
  for (let i = 0; i < spatial; i++) {
    const extent = (kernel[i] - 1) * dilations[i] + 1;
    const padded = x[i + 2] + padsBegin[i] + padsEnd[i];
    if (strides[i] < 1 || dilations[i] < 1) throw fail('strides and dilations must be >= 1');
    if (padded < extent) throw fail(`spatial axis ${i}: padded input ${padded} is smaller than the dilated kernel ${extent}`);
    outputDims.push(Math.floor((padded - extent) / strides[i]) + 1);
  }
  return { strides, dilations, padsBegin, padsEnd, outputDims };
}

function supportsConv(node: Node, graph: Graph): true | string {
  const [x, w, , z] = node.inputs;
  if (!x || !w) return 'Conv needs X and W';
  const dtype = float32Reason(graph, x, 'X') ?? float32Reason(graph, w, 'W');
  if (dtype) return dtype;
  const rank = staticRank(graph, w);
  if (rank === undefined) return 'weight rank is unknown at session creation (onednn serves 1-D, 2-D and 3-D conv)';
  if (rank < 3 || rank > 5) return `weights have rank ${rank}; onednn serves 1-D, 2-D and 3-D conv (rank 3–5)`;
  if (z) {
    const zType = float32Reason(graph, z, 'Z');
    if (zType) return zType;
  }
  const epilogue = convEpilogue(node);
  return typeof epilogue === 'string' ? epilogue : true;
}

/**
 * oneDNN rejects empty tensors. With an empty batch the output is empty; with no input channels (or
 * only padding in view) every output is just the bias of its channel.
 */
function fillWithoutInput(y: Tensor, bias: Float32Array | null, z: Float32Array | null, epilogue: ConvEpilogue): void {
  if (y.size === 0 || !(y.data instanceof Float32Array)) return;
  const out = y.data;
  const perChannel = y.size / (y.dims[0] * y.dims[1]);
  for (let i = 0; i < y.size; i++) {
    const v = (bias ? bias[Math.floor(i / perChannel) % y.dims[1]] : 0) + (z ? z[i] : 0);
    out[i] = epilogue.apply(v);
  }
}

function createConv(binding: NativeBinding, init: KernelInit): Kernel {
  const { node } = init;
  const attrs = readAttributes(init);
  const constW = init.constantInputs.get(1);
  const constB = init.constantInputs.get(2);
  const hasBiasInput = Boolean(node.inputs[2]);
  const hasSumInput = (node.opType === 'FusedConv' || node.opType === 'BlockedConv') && Boolean(node.inputs[3]);
  const layout = convLayout(node);
  /** X's logical [N, C, ...spatial]: a blocked X's channels come from W (C = W[1] · group, padding excluded). */
  const logicalX = (xDims: readonly number[], wDims: readonly number[]): readonly number[] => {
    if (layout.x === 0) return xDims;
    if (xDims.length !== wDims.length + 1 || xDims[xDims.length - 1] !== layout.x) {
      throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (BlockedConv): X [${xDims.join(', ')}] is not blocked by ${layout.x} for weights [${wDims.join(', ')}]`);
    }
    const logical = [xDims[0], wDims[1] * attrs.group, ...xDims.slice(2, -1)];
    if (Math.ceil(logical[1] / layout.x) !== xDims[1]) {
      throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (BlockedConv): X [${xDims.join(', ')}] does not hold ${logical[1]} channels in blocks of ${layout.x}`);
    }
    return logical;
  };
  // A donor must have weights another primitive can unpack (not Winograd's or im2col's).
  const cache = new RepackingCache<ConvPrimitive>((p) => p.weightsUnpackable);

  const optionsFor = (xDims: readonly number[], w: Tensor, geometry: ConvGeometry, threads: number): ConvPrimitiveOptions => {
    // The addon packs the constant W and B for W's run-time dims: a model whose W or B disagrees with
    // them (a value of another shape bound to W, a B not one per output channel) is refused here, coded.
    const refuse = (why: string) => new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (${node.opType}): ${why}`);
    if (constW && !sameDims(constW.dims, w.dims)) throw refuse(`W [${w.dims.join(', ')}] differs from its constant [${constW.dims.join(', ')}]`);
    if (constB && (constB.dims.length !== 1 || constB.size !== w.dims[0])) throw refuse(`B [${constB.dims.join(', ')}] must hold one value per output channel (${w.dims[0]})`);
    // W was packed at creation and its buffer freed (releasedConstants): a primitive for another shape
    // packs from one already built when that one's packing can be undone (donor), else it cannot be built.
    if (constW && packedAtCreate) {
      const donor = cache.donor;
      if (!donor) throw refuse(`W was packed for the input shape the model states and released; input [${xDims.join(', ')}] contradicts that shape`);
      return { ...convOptions(xDims, w, geometry, threads), weights: undefined, packedFrom: donor };
    }
    return convOptions(xDims, w, geometry, threads);
  };
  const convOptions = (xDims: readonly number[], w: Tensor, geometry: ConvGeometry, threads: number): ConvPrimitiveOptions => ({
    inputDims: xDims,
    weightDims: w.dims,
    group: attrs.group,
    strides: geometry.strides,
    dilations: geometry.dilations,
    padsBegin: geometry.padsBegin,
    padsEnd: geometry.padsEnd,
    hasBias: hasBiasInput,
    activation: attrs.epilogue.activation,
    activationAlpha: attrs.epilogue.alpha,
    activationBeta: attrs.epilogue.beta,
    hasSum: hasSumInput,
    threads,
    srcBlock: layout.x,
    dstBlock: layout.y,
    sumBlock: layout.z,
    weights: constW ? float32Data(node, constW, 'W') : undefined,
    bias: constB ? float32Data(node, constB, 'B') : undefined,
  });
  /**
   * With only the batch symbolic, W is packed at creation for batch 1 and the model's copy released when
   * that packing can be undone (oneDNN's own layouts): a primitive for another batch packs from the last
   * one built that can serve (`packedFrom`), and the batch-1 one is dropped once a run builds its own.
   */
  let packedAtCreate = false;
  const keyFor = (xDims: readonly number[], w: Tensor, threads: number) => `${xDims.join(',')}|${w.dims.join(',')}|${threads}`;
  const primitiveFor = (xDims: readonly number[], w: Tensor, geometry: ConvGeometry, threads: number): ConvPrimitive =>
    cache.get(keyFor(xDims, w, threads), () => new binding.ConvPrimitive(optionsFor(xDims, w, geometry, threads)));

  // Session creation: build now when the input shape is static and the weights are known.
  const xTyped = staticDims(init.inputTypes[0]);
  // Packed now for the only shape runs will see (packedAtCreate, above): W's data is never read again.
  // The placement says `winograd` or `im2col` for convs run with those algorithms rather than oneDNN's direct conv.
  let implementation = 'onednn';
  if (xTyped && constW && !hasZeroDim(xTyped)) {
    try {
      const xStatic = logicalX(xTyped, constW.dims);
      const geometry = convGeometry(node, attrs, xStatic, constW.dims);
      const primitive = primitiveFor(xStatic, constW, geometry, teamFor(binding, init.threads, convMacs(geometry, constW.dims)));
      packedAtCreate = primitive.weightsPacked;
      if (isWinograd(primitive.implementation)) implementation = 'winograd';
      else if (primitive.implementation.startsWith('im2col')) implementation = 'im2col';
    } catch (error) {
      throw fromNativeError(node, error);
    }
  } else if (constW && binding.ConvPrimitive.algorithm) {
    // Only the batch unknown (a symbolic N): the choice at N = 1 holds for every N (more work only favours Winograd).
    const xType = init.inputTypes[0];
    const rest = xType?.kind === 'tensor' ? xType.shape?.slice(1) : undefined;
    if (rest && rest.every((d): d is number => typeof d === 'number') && !hasZeroDim(rest)) {
      try {
        const xProbe = logicalX([1, ...rest], constW.dims);
        const geometry = convGeometry(node, attrs, xProbe, constW.dims);
        const threads = teamFor(binding, init.threads, convMacs(geometry, constW.dims));
        const options = optionsFor(xProbe, constW, geometry, threads);
        implementation = binding.ConvPrimitive.algorithm(options);
        // Batch 1 packed now when another batch can be packed from it: the model's copy is then released.
        if (implementation === 'onednn' && 'weightsUnpackable' in binding.ConvPrimitive.prototype) {
          const probe = new binding.ConvPrimitive(options);
          if (probe.weightsPacked && probe.weightsUnpackable) {
            const key = keyFor(xProbe, constW, threads);
            cache.get(key, () => probe);
            cache.markProbe(key);
            packedAtCreate = true;
          } else {
            probe.dispose();
          }
        }
      } catch (error) {
        throw fromNativeError(node, error);
      }
    }
  }

  /**
   * What a run needs that depends only on X's dims, W's dims and the thread count: the last one is
   * kept, so a stream of same-shaped runs (every run of a static model) skips the geometry, the
   * cache key and their allocations (tens of microseconds a node, a tenth of MobileNetV2's time).
   */
  interface PreparedRun {
    xDims: readonly number[];
    wDims: readonly number[];
    requestedThreads: number;
    logicalX: readonly number[];
    yDims: number[];
    zDims: number[];
    empty: boolean;
    inline: boolean;
    primitive: ConvPrimitive | undefined;
  }
  let last: PreparedRun | undefined;
  const prepare = (x: Tensor, w: Tensor, requestedThreads: number): PreparedRun => {
    if (last && last.requestedThreads === requestedThreads && sameDims(last.xDims, x.dims) && sameDims(last.wDims, w.dims)) return last;
    const xDims = logicalX(x.dims, w.dims);
    const geometry = convGeometry(node, attrs, xDims, w.dims);
    const empty = hasZeroDim(xDims) || hasZeroDim(w.dims) || elementCount(geometry.outputDims) === 0;
    if (empty && layout !== PLAIN_LAYOUT) throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (BlockedConv): empty tensors are not served`);
    // From the logical output: the padding lanes of a blocked Y are no work.
    const macs = empty ? 0 : convMacs(geometry, w.dims);
    const { inline, threads } = dispatchFor(binding, requestedThreads, macs);
    const primitive = empty ? undefined : withNodeErrors(node, () => primitiveFor(xDims, w, geometry, threads));
    last = {
      xDims: [...x.dims],
      wDims: [...w.dims],
      requestedThreads,
      logicalX: xDims,
      yDims: blockedDims(geometry.outputDims, layout.y),
      zDims: blockedDims(geometry.outputDims, layout.z),
      empty,
      inline,
      primitive,
    };
    return last;
  };

  return {
    implementation,
    releasedConstants: packedAtCreate ? [1] : undefined,
    // The sum post-op reads each element of Z before writing that element of Y (oneDNN's in-place sum, and
    // the Winograd output transform), so Y may take Z's memory when both share a layout: no copy of Z into Y.
    inPlace: hasSumInput && layout.z === layout.y ? { input: 3, output: 0 } : undefined,
    // Synchronous when the call runs inline: the executor then skips a promise and a microtask per node.
    run(ctx: KernelRunContext): Tensor[] | Promise<Tensor[]> {
      const x = ctx.input(0);
      const w = constW ?? ctx.input(1);
      const b = constB ?? ctx.optionalInput(2);
      const xData = float32Data(node, x, 'X');
      const wData = float32Data(node, w, 'W');
      const bData = b ? float32Data(node, b, 'B') : null;
      if (hasBiasInput !== Boolean(b)) throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}': bias input is declared but empty`);
      if (b && (b.dims.length !== 1 || b.dims[0] !== w.dims[0])) {
        throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (${node.opType}): bias [${b.dims.join(', ')}] must be [${w.dims[0]}]`);
      }
      const prepared = prepare(x, w, ctx.threads);
      const z = hasSumInput ? ctx.input(3) : undefined;
      if (z && !sameDims(z.dims, prepared.zDims)) {
        throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (${node.opType}): Z [${z.dims.join(', ')}] must have Y's shape [${prepared.zDims.join(', ')}]`);
      }
      const zData = z ? float32Data(node, z, 'Z') : null;
      // oneDNN writes every element of Y, the zero padding of a blocked layout included.
      const y = ctx.output(0, 'float32', prepared.yDims, { uninitialized: true });
      const primitive = prepared.primitive;
      if (!primitive) {
        fillWithoutInput(y, bData, zData, attrs.epilogue);
        return [y];
      }
      const yData = float32Data(node, y, 'Y');
      const wArg = primitive.weightsPacked ? null : wData;
      const bArg = constB ? null : bData;
      const zArg = zData ?? undefined;
      if (prepared.inline) {
        withNodeErrors(node, () => primitive.runSync(xData, wArg, bArg, yData, zArg));
        return [y];
      }
      return withNativeErrors(node, () => primitive.run(xData, wArg, bArg, yData, zArg)).then(() => [y]);
    },
    dispose() {
      cache.dispose();
    },
  };
}

/**
 * Kernel defs for ai.onnx Conv, com.microsoft FusedConv (Z sum; Relu, LeakyRelu, Clip) and
 * com.switchyard BlockedConv (FusedConv with channel-blocked X / Y / Z, from the blocked-layout pass) on oneDNN.
 */
export function nativeConvKernels(binding: NativeBinding): KernelDef[] {
  const common = {
    ep: 'cpu',
    implementation: 'onednn',
    supports: supportsConv,
    create: (init: KernelInit) => createConv(binding, init),
  } satisfies Partial<KernelDef>;
  return [
    { ...common, domain: '', opType: 'Conv', sinceVersion: 1, typeConstraints: { T: ['float32'] } },
    { ...common, domain: 'com.microsoft', opType: 'FusedConv', sinceVersion: 1, typeConstraints: { T: ['float32'] } },
    { ...common, domain: BLOCKED_DOMAIN, opType: 'BlockedConv', sinceVersion: 1 },
  ];
}
