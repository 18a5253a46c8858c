/**
 * BlockedConv 1x1 → BlockedConv 3x3 depthwise (MobileNet's expand → depthwise pair, each with its
 * activation) becomes one com.switchyard BlockedConvDw, which oneDNN runs as one primitive with a
 * depthwise post-op: the wide expanded activation is computed a few rows at a time and never
 * written out whole, and the pair costs one call instead of two.
 *
 * Runs after the blocked-layout pass (both convs must be BlockedConv with the middle value blocked)
 * and matches only what oneDNN's post-op expresses: a 1x1 conv with stride 1, no padding, group 1
 * and no Z; then a depthwise conv (group = channels, W [M, 1, 3, 3]) with padding 1 on every side,
 * stride 1 or 2 on both axes, no dilation and no Z, reading nothing but that 1x1 output. Weights and
 * biases must be constants. oneDNN may still decline a shape, so each candidate is probed once with
 * the addon (a primitive built on zero weights) before the graph is changed.
 */
import type { AttributeValue, GraphPass, Node } from '@switchyard/core';
import type { ConvDwPrimitiveOptions, NativeBinding } from '../native/binding.js';
import { BLOCKED_DOMAIN } from '../native/channel-blocked.js';
import { convEpilogue } from '../native/conv-native.js';
import { GraphRewriter } from './graph-rewriter.js';

function isBlockedConv(node: Node | undefined): node is Node {
  return node?.opType === 'BlockedConv' && node.domain === BLOCKED_DOMAIN;
}

/** The ints attribute `name`, or `fallback` when absent. */
function ints(node: Node, name: string, fallback: number[]): number[] {
  const a = node.attributes.get(name);
  return a?.type === 'ints' ? a.value.map(Number) : fallback;
}

function int(node: Node, name: string, fallback: number): number {
  const a = node.attributes.get(name);
  return a?.type === 'int' ? Number(a.value) : fallback;
}

/** Explicit padding only: auto_pad would have to be resolved against the shape first. */
function explicitPads(node: Node): number[] | undefined {
  const autoPad = node.attributes.get('auto_pad');
  if (autoPad?.type === 'string' && autoPad.value !== 'NOTSET') return undefined;
  return ints(node, 'pads', [0, 0, 0, 0]);
}

const all = (values: number[], v: number) => values.every((x) => x === v);

/** A 1x1, stride-1, unpadded, ungrouped BlockedConv with no Z and a blocked Y. */
function isPointwise(rw: GraphRewriter, node: Node): boolean {
  const [, w, , z] = node.inputs;
  const wDims = rw.staticShape(w);
  const pads = explicitPads(node);
  return (
    !z && wDims?.length === 4 && wDims[2] === 1 && wDims[3] === 1 && int(node, 'group', 1) === 1 && int(node, 'y_block', 0) !== 0 &&
    pads !== undefined && all(pads, 0) && all(ints(node, 'strides', [1, 1]), 1) && all(ints(node, 'dilations', [1, 1]), 1)
  );
}

/** The stride of a 3x3 depthwise BlockedConv of `channels` channels (blocked X, padding 1, no Z) that oneDNN can fuse; else undefined. */
function depthwiseStride(rw: GraphRewriter, node: Node, channels: number): 1 | 2 | undefined {
  const [, w, , z] = node.inputs;
  const wDims = rw.staticShape(w);
  const pads = explicitPads(node);
  const strides = ints(node, 'strides', [1, 1]);
  if (z || wDims?.join() !== [channels, 1, 3, 3].join() || int(node, 'group', 1) !== channels || int(node, 'x_block', 0) === 0) return undefined;
  if (!pads || !all(pads, 1) || !all(ints(node, 'dilations', [1, 1]), 1) || strides.length !== 2 || strides[0] !== strides[1]) return undefined;
  return strides[0] === 1 || strides[0] === 2 ? strides[0] : undefined;
}

/** The epilogue attributes of a BlockedConv under new names (`prefix` + activation / activation_params). */
function renamedEpilogue(node: Node, prefix: string): [string, AttributeValue][] {
  const out: [string, AttributeValue][] = [];
  for (const name of ['activation', 'activation_params']) {
    const a = node.attributes.get(name);
    if (a) out.push([prefix + name, a]);
  }
  return out;
}

class ConvDwFusion {
  readonly #rw: GraphRewriter;
  readonly #binding: NativeBinding;
  readonly #Primitive: NonNullable<NativeBinding['ConvDwPrimitive']>;

  constructor(rw: GraphRewriter, binding: NativeBinding, Primitive: NonNullable<NativeBinding['ConvDwPrimitive']>) {
    this.#rw = rw;
    this.#binding = binding;
    this.#Primitive = Primitive;
  }

  run(): void {
    for (const node of this.#rw.nodes()) {
      if (this.#rw.isLive(node) && isBlockedConv(node) && isPointwise(this.#rw, node)) this.#fuse(node);
    }
  }

  #fuse(pw: Node): void {
    const rw = this.#rw;
    const [x, w, b = ''] = pw.inputs;
    const mid = pw.outputs[0];
    const dw = mid ? rw.soleReader(mid) : undefined;
    if (!isBlockedConv(dw) || dw.inputs[0] !== mid || dw.outputs.length !== 1) return;
    const [, dwW, dwB = ''] = dw.inputs;
    const [m, c] = rw.staticShape(w)!;
    const stride = depthwiseStride(rw, dw, m);
    if (!stride) return;
    if (!rw.constant(w) || !rw.constant(dwW) || (b && !rw.constant(b)) || (dwB && !rw.constant(dwB))) return;
    const epilogue = convEpilogue(pw);
    const dwEpilogue = convEpilogue(dw);
    if (typeof epilogue === 'string' || typeof dwEpilogue === 'string') return;
    // X's H and W (the same axes blocked or not) must be known to probe; the batch may be symbolic.
    const xType = rw.graph.typeOf(x);
    const xShape = xType?.kind === 'tensor' ? xType.shape : undefined;
    const [h, wd] = [xShape?.[2], xShape?.[3]];
    if (typeof h !== 'number' || typeof wd !== 'number' || !rw.owned([pw, dw])) return;
    const xBlock = int(pw, 'x_block', 0);
    const yBlock = int(dw, 'y_block', 0);
    const reason = this.#probe({
      inputDims: [1, c, h, wd],
      channels: m,
      stride,
      weights: new Float32Array(m * c),
      bias: b ? new Float32Array(m) : undefined,
      dwWeights: new Float32Array(m * 9),
      dwBias: dwB ? new Float32Array(m) : undefined,
      activation: epilogue.activation,
      activationAlpha: epilogue.alpha,
      activationBeta: epilogue.beta,
      dwActivation: dwEpilogue.activation,
      dwActivationAlpha: dwEpilogue.alpha,
      dwActivationBeta: dwEpilogue.beta,
      srcBlock: xBlock === 8 || xBlock === 16 ? xBlock : 0,
      dstBlock: yBlock === 8 || yBlock === 16 ? yBlock : 0,
    });
    if (reason) {
      rw.skip(pw, `onednn does not fuse this 1x1 + depthwise pair: ${reason}`);
      return;
    }
    const attributes = new Map<string, AttributeValue>([
      ['x_block', { type: 'int', value: xBlock }],
      ['y_block', { type: 'int', value: yBlock }],
      ['dw_stride', { type: 'int', value: stride }],
      ...renamedEpilogue(pw, ''),
      ...renamedEpilogue(dw, 'dw_'),
    ]);
    rw.replace([pw, dw], {
      opType: 'BlockedConvDw',
      domain: BLOCKED_DOMAIN,
      name: `${pw.name || 'Conv'}_dw`,
      inputs: [x, w, b, dwW, dwB],
      outputs: [dw.outputs[0]],
      attributes,
    });
  }

  /** Why oneDNN cannot build this fused primitive, or undefined when it can. */
  #probe(options: ConvDwPrimitiveOptions): string | undefined {
    try {
      new this.#Primitive({ ...options, threads: this.#binding.runtimeInfo().defaultThreads }).dispose();
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
}

/** The pass, when the addon has the fused primitive; it must run after the blocked-layout pass. */
export function blockedConvDwFusion(binding: NativeBinding): GraphPass | undefined {
  const Primitive = binding.ConvDwPrimitive;
  if (!Primitive) return undefined;
  return {
    name: 'cpu:blocked-conv-dw-fusion',
    level: 'all',
    run(graph, report, context) {
      new ConvDwFusion(new GraphRewriter(graph, report, context?.mayRewrite), binding, Primitive).run();
    },
  };
}
