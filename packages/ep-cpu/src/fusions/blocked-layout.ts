/**
 * Keeps activations in oneDNN's channel-blocked layout (nChw8c on AVX2) between consecutive
 * convolutions and pools, as onnxruntime's NCHWc transformer does. Without it every Conv reorders
 * its NCHW input into the blocked layout and its output back, each time (a fifth of ResNet-50's time).
 *
 * Walking in topological order, a value becomes blocked when its producer can produce it blocked:
 * - Conv / FusedConv (float32, static 2-D shapes) → com.switchyard BlockedConv with blocked Y; its X
 *   (and Z) are taken blocked when already so, else plain (a network's first conv, C = 3, runs from
 *   NCHW straight into a blocked Y with no reorder at all);
 * - MaxPool / AveragePool / GlobalAveragePool / GlobalMaxPool of a blocked value → BlockedPool; Resize / Upsample of a
 *   blocked value that keeps N and C → BlockedResize (lane by lane); a 2-D ConvTranspose with constant
 *   weights → BlockedConvTranspose, with the activation after it as a post-op;
 * - layout-agnostic ops of blocked values run unchanged on the 5-D tensors: elementwise ops (every
 *   activation, Add / Sub / Mul / Max / Min / Sum / Mean / PRelu, broadcasting over N, H, W, with scalar or
 *   per-channel constant operands, the latter given a blocked copy), Concat on channels when every
 *   input's C is a multiple of the block (then the blocks just line up), and a Slice of channels at
 *   block boundaries (constant starts and ends; CSP / C2f blocks split a conv's output in halves), which
 *   becomes a Slice of whole blocks, and a Split of channels whose parts all start on block boundaries,
 *   which becomes a Split into whole blocks.
 * Where a blocked value is read by anything else, or is a graph output, a ReorderFromBlocked gives the
 * original NCHW value back under its original name.
 *
 * Padding lanes (C not a multiple of the block): oneDNN writes a conv's as its activation of zero, and
 * elementwise ops may leave other values there (Sigmoid makes them 0.5). No real lane ever reads them —
 * a blocked conv's padded weights are zero, pools and elementwise ops work lane by lane, reorders drop
 * them — as long as they stay finite (0 · Inf is NaN): ops that can make a finite value infinite (Div,
 * Pow, Log, …) stay blocked only when C has no padding.
 */
import { Tensor, type AttributeValue, type Dim, type GraphPass, type Node } from '@switchyard/core';
import { BLOCKED_DOMAIN } from '../native/channel-blocked.js';
import { convEpilogue } from '../native/conv-native.js';
import { poolExactForEverySize, poolOptions, type PoolOp } from '../native/pool-native.js';
import { readInts } from '../tensor-ops/indices.js';
import { matchActivation } from './activation-match.js';
import { GraphRewriter, float32Tensor, hasOp } from './graph-rewriter.js';

/** A value the pass made blocked: its blocked twin's name and the original's logical dims. */
interface Blocked {
  name: string;
  dims: Dim[];
}

/** Logical [N, C, H, W] with a known C; N, H and W may be symbolic (a dynamic batch is common). */
function channelsOf(dims: readonly Dim[]): number {
  return dims[1] as number;
}

/** Equal shapes for certain: every dim known and the same number or symbol. */
function sameDims(a: readonly Dim[], b: readonly Dim[]): boolean {
  return a.length === b.length && a.every((d, i) => d !== undefined && d === b[i]);
}

/** Whether `a` and `b` can be equal at run time: no axis holds two different numbers. */
function mayEqual(a: readonly Dim[], b: readonly Dim[]): boolean {
  return a.length === b.length && a.every((d, i) => typeof d !== 'number' || typeof b[i] !== 'number' || d === b[i]);
}

/** Whether two [N, C, H, W] values can agree on N, H and W at run time (channel ops check C themselves). */
function mayShareNhw(a: readonly Dim[], b: readonly Dim[]): boolean {
  return mayEqual([a[0], a[2], a[3]], [b[0], b[2], b[3]]);
}

const POOLS: readonly string[] = ['MaxPool', 'AveragePool', 'GlobalAveragePool', 'GlobalMaxPool'];

/** Elementwise ops that map finite values to finite values: blocked whatever the padding lanes hold. */
const FINITE_ELEMENTWISE: readonly string[] = [
  'Relu', 'LeakyRelu', 'Clip', 'Sigmoid', 'Tanh', 'HardSigmoid', 'HardSwish', 'Elu', 'Selu', 'Celu', 'Softsign', 'Softplus', 'Mish',
  'Erf', 'Abs', 'Neg', 'Floor', 'Ceil', 'Round', 'Sign', 'Identity', 'Add', 'Sub', 'Mul', 'Max', 'Min', 'Sum', 'Mean', 'PRelu',
];
/** com.microsoft activations the fusions write, also finite to finite. */
const FINITE_CONTRIB: readonly string[] = ['Gelu', 'FastGelu', 'QuickGelu'];
/** Elementwise ops that can make a finite value infinite (x / 0, log 0, exp of a large x): blocked only without padding lanes. */
const PADDING_SENSITIVE: readonly string[] = ['Div', 'Pow', 'Sqrt', 'Exp', 'Log', 'Reciprocal'];

function elementwiseKind(node: Node): 'finite' | 'padding-sensitive' | undefined {
  if (node.domain === 'com.microsoft') return FINITE_CONTRIB.includes(node.opType) && node.inputs.length === 1 ? 'finite' : undefined;
  if (FINITE_ELEMENTWISE.some((op) => hasOp(node, op))) return 'finite';
  return PADDING_SENSITIVE.some((op) => hasOp(node, op)) ? 'padding-sensitive' : undefined;
}

/** Marks an operand name as a per-channel constant whose blocked copy is made once the node is rewired. */
const PENDING = '\u0000blocked-constant:';

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function isConv(node: Node): boolean {
  return hasOp(node, 'Conv') || (node.opType === 'FusedConv' && node.domain === 'com.microsoft');
}

function intAttr(value: number): AttributeValue {
  return { type: 'int', value };
}

class BlockedLayout {
  readonly #rw: GraphRewriter;
  readonly #block: number;
  /** Original (NCHW) value name → its blocked twin. */
  readonly #blocked = new Map<string, Blocked>();
  /** Per-channel constant → its blocked copy. */
  readonly #blockedConstants = new Map<string, string>();

  constructor(rw: GraphRewriter, block: number) {
    this.#rw = rw;
    this.#block = block;
  }

  run(): void {
    for (const node of this.#rw.nodes()) {
      if (!this.#rw.isLive(node)) continue;
      if (isConv(node) && this.#conv(node)) continue;
      if (POOLS.some((op) => hasOp(node, op)) && this.#pool(node)) continue;
      if ((hasOp(node, 'Resize') || hasOp(node, 'Upsample')) && this.#resize(node)) continue;
      if (hasOp(node, 'ConvTranspose') && this.#convTranspose(node)) continue;
      this.#agnostic(node);
    }
    this.#addBoundaries();
  }

  /**
   * Dims of a float32 4-D value whose channel count is known (its logical dims when already blocked);
   * undefined otherwise: the blocked layout needs C to size the blocks.
   */
  #dims(name: string): Dim[] | undefined {
    const b = this.#blocked.get(name);
    if (b) return b.dims;
    if (this.#rw.elemType(name) !== 'float32') return undefined;
    const t = this.#rw.graph.typeOf(name);
    const s = t?.kind === 'tensor' ? t.shape : undefined;
    if (!s || s.length !== 4 || typeof s[1] !== 'number' || s.some((d) => typeof d === 'number' && d <= 0)) return undefined;
    return [...s];
  }

  /** The blocked twin's dims: [N, ceil(C / b), H, W, b]. */
  #blockedShape(dims: readonly Dim[]): Dim[] {
    const [n, c, ...spatial] = dims;
    return [n, Math.ceil((c as number) / this.#block), ...spatial, this.#block];
  }

  #freshName(base: string): string {
    let name = `${base}__blocked`;
    for (let i = 1; this.#rw.isNameTaken(name); i++) name = `${base}__blocked_${i}`;
    return name;
  }

  /** Records that `original` (logical `dims`) now lives blocked as a fresh value, typed 5-D. */
  #makeBlocked(original: string, dims: Dim[]): string {
    const name = this.#freshName(original);
    this.#rw.graph.valueInfo.set(name, { name, type: { kind: 'tensor', elemType: 'float32', shape: this.#blockedShape(dims) } });
    this.#rw.graph.valueInfo.delete(original);
    this.#blocked.set(original, { name, dims });
    return name;
  }

  #conv(node: Node): boolean {
    const rw = this.#rw;
    const [x, w, b = '', z = ''] = node.inputs;
    const y = node.outputs[0];
    if (!x || !w || !y || node.outputs.length !== 1) return false;
    const xDims = this.#dims(x);
    const yDims = this.#dims(y);
    const wDims = rw.staticShape(w);
    if (!xDims || !yDims || wDims?.length !== 4 || rw.elemType(w) !== 'float32') return false;
    // BlockedConv takes X's channel count from W: a model where they disagree keeps Conv, which reports it.
    if (wDims[1] * rw.attrs(node).int('group', 1) !== channelsOf(xDims) || wDims[0] !== channelsOf(yDims)) return false;
    if (typeof convEpilogue(node) === 'string') return false;
    const zDims = z ? this.#dims(z) : undefined;
    if (z && !(zDims && sameDims(zDims, yDims))) return false;
    const xb = this.#blocked.get(x);
    const zb = z ? this.#blocked.get(z) : undefined;
    // A conv that starts no region and feeds none would only trade its inner reorders for a node.
    if (!xb && !zb && !this.#feedsBlocked(y, 0)) return false;
    if (!rw.owned([node])) return false;
    const attributes = new Map(node.attributes);
    attributes.set('x_block', intAttr(xb ? this.#block : 0));
    attributes.set('y_block', intAttr(this.#block));
    if (z) attributes.set('z_block', intAttr(zb ? this.#block : 0));
    const inputs = [xb?.name ?? x, w, b];
    if (z) inputs.push(zb?.name ?? z);
    const out = this.#makeBlocked(y, yDims);
    rw.replace([node], { opType: 'BlockedConv', domain: BLOCKED_DOMAIN, name: `${node.name || 'Conv'}_blocked`, inputs, outputs: [out], attributes });
    return true;
  }

  /** Whether `name` reaches a conv or pool, directly or through layout-agnostic ops (a hint, not a promise). */
  #feedsBlocked(name: string, depth: number): boolean {
    if (depth > 4) return false;
    for (const r of this.#rw.readers(name)) {
      if (isConv(r) && (r.inputs[0] === name || r.inputs[3] === name)) return true;
      if (POOLS.some((op) => hasOp(r, op)) || hasOp(r, 'Resize') || hasOp(r, 'Upsample') || (hasOp(r, 'ConvTranspose') && r.inputs[0] === name)) return true;
      if ((elementwiseKind(r) || hasOp(r, 'Concat') || hasOp(r, 'Slice')) && r.outputs[0] && this.#feedsBlocked(r.outputs[0], depth + 1)) return true;
      if (hasOp(r, 'Split') && r.outputs.some((o) => o && this.#feedsBlocked(o, depth + 1))) return true;
    }
    return false;
  }

  #pool(node: Node): boolean {
    const rw = this.#rw;
    const x = node.inputs[0];
    const y = node.outputs[0];
    const xb = this.#blocked.get(x);
    const yDims = y ? this.#dims(y) : undefined;
    if (!xb || !yDims || node.outputs.filter(Boolean).length !== 1 || node.outputs[0] !== y) return false;
    const dilations = node.attributes.get('dilations');
    if (dilations?.type === 'ints' && dilations.value.some((d) => d !== 1)) return false;
    // Whether oneDNN pools these windows exactly may depend on H and W: asked for them when known, else
    // decided from the attributes for every size (dynamic H and W, as detectors and segmenters have).
    const [, , h, w] = xb.dims;
    let exact: boolean;
    if (typeof h === 'number' && typeof w === 'number') {
      const padded = [1, Math.ceil(channelsOf(xb.dims) / this.#block) * this.#block, h, w];
      try {
        exact = poolOptions(node.opType as PoolOp, rw.attrs(node), padded, 1) !== undefined;
      } catch {
        exact = false; // bad attributes: leave the node to its own kernel, which reports them
      }
    } else {
      exact = poolExactForEverySize(node.opType as PoolOp, rw.attrs(node), 2);
    }
    if (!exact || !rw.owned([node])) return false;
    const attributes = new Map(node.attributes);
    attributes.set('pool_op', { type: 'string', value: node.opType, bytes: new TextEncoder().encode(node.opType) });
    attributes.set('block', intAttr(this.#block));
    const out = this.#makeBlocked(y, yDims);
    rw.replace([node], { opType: 'BlockedPool', domain: BLOCKED_DOMAIN, name: `${node.name || node.opType}_blocked`, inputs: [xb.name], outputs: [out], attributes });
    return true;
  }

  /**
   * A 2-D ConvTranspose with constant float32 weights, reading a blocked value or feeding the region →
   * BlockedConvTranspose (oneDNN's deconvolution on blocked X and Y), taking an activation after it as a
   * post-op. Only attributes oneDNN serves at every input size: no output_shape, output_padding below
   * the stride, no SAME auto_pad (whose pads depend on the size).
   */
  /**
   * A kernel-equals-stride ConvTranspose (k2 s2 upsampling heads) runs as a 1x1 conv plus a depth-to-space
   * copy, but on blocked Y only when its output channels fill whole blocks. With fewer (a DB head's 24 → 24
   * or 24 → 1 on 16-blocks) oneDNN's blocked deconvolution is left, 3-10x slower than the plain path with a
   * reorder on each side (measured on the DB text detector, AVX-512): such nodes stay out of the region.
   */
  #upsamplesBetterPlain(wDims: readonly number[], group: number, strides: readonly number[], pads: readonly number[], dilations: readonly number[]): boolean {
    const kernelIsStride = wDims.slice(2).every((k, i) => k === (strides[i] ?? 1));
    return group === 1 && kernelIsStride && pads.every((p) => p === 0) && dilations.every((d) => d === 1) && wDims[1] % this.#block !== 0;
  }

  #convTranspose(node: Node): boolean {
    const rw = this.#rw;
    const [x, w, b = ''] = node.inputs;
    const y = node.outputs[0];
    if (!x || !w || !y || node.outputs.length !== 1) return false;
    const xDims = this.#dims(x);
    const yDims = this.#dims(y);
    const wDims = rw.staticShape(w);
    if (!xDims || !yDims || wDims?.length !== 4 || rw.elemType(w) !== 'float32' || !rw.constant(w)) return false;
    const a = rw.attrs(node);
    const group = a.int('group', 1);
    if (wDims[0] !== channelsOf(xDims) || wDims[1] * group !== channelsOf(yDims)) return false;
    if (a.has('output_shape') || a.string('auto_pad', 'NOTSET').startsWith('SAME')) return false;
    const strides = a.ints('strides', [1, 1]);
    const outputPadding = a.ints('output_padding', [0, 0]);
    if (outputPadding.some((p, i) => !(p >= 0 && p < (strides[i] ?? 1)))) return false;
    if (a.ints('pads', [0, 0, 0, 0]).some((p) => p < 0)) return false;
    if (this.#upsamplesBetterPlain(wDims, group, strides, a.ints('pads', [0, 0, 0, 0]), a.ints('dilations', [1, 1]))) return false;
    const xb = this.#blocked.get(x);
    if (!xb && !this.#feedsBlocked(y, 0)) return false;
    const activation = matchActivation(rw, y);
    const matched = [node, ...(activation?.nodes ?? [])];
    if (!rw.owned(matched)) return false;
    const out = activation?.output ?? y;
    const outDims = activation ? this.#dims(out) : yDims;
    if (!outDims) return false;
    const attributes = new Map(node.attributes);
    attributes.set('x_block', intAttr(xb ? this.#block : 0));
    attributes.set('y_block', intAttr(this.#block));
    if (activation) {
      attributes.set('activation', { type: 'string', value: activation.name, bytes: new TextEncoder().encode(activation.name) });
      if (activation.params.length) attributes.set('activation_params', { type: 'floats', value: activation.params });
    }
    const blockedOut = this.#makeBlocked(out, outDims);
    rw.replace(matched, { opType: 'BlockedConvTranspose', domain: BLOCKED_DOMAIN, name: `${node.name || 'ConvTranspose'}_blocked`, inputs: b ? [xb?.name ?? x, w, b] : [xb?.name ?? x, w], outputs: [blockedOut], attributes });
    return true;
  }

  /**
   * Resize / Upsample of a blocked value that keeps N and C (as shape inference says: the same number or
   * symbol) → BlockedResize, interpolating lane by lane; the target inputs are read as the original op
   * reads them (its op and opset go into attributes).
   */
  #resize(node: Node): boolean {
    const rw = this.#rw;
    const xb = this.#blocked.get(node.inputs[0]);
    const y = node.outputs[0];
    const yDims = y ? this.#dims(y) : undefined;
    if (!xb || !yDims || node.outputs.length !== 1 || yDims.length !== 4) return false;
    if (yDims[0] === undefined || yDims[0] !== xb.dims[0] || yDims[1] !== xb.dims[1]) return false;
    if (node.inputs.slice(1).some((i) => this.#blocked.has(i)) || !rw.owned([node])) return false;
    // A Resize producing a graph output stays plain: its output would be reordered back anyway, and reordering
    // its input instead moves the smaller tensor when it upsamples (a segmentation head resized to the input's
    // 520 x 520, with 21 classes padded to 32 lanes, was a 3x larger reorder than the 65 x 65 logits).
    if (rw.isGraphOutput(y)) return false;
    const attributes = new Map(node.attributes);
    const op = node.opType;
    attributes.set('resize_op', { type: 'string', value: op, bytes: new TextEncoder().encode(op) });
    attributes.set('resize_opset', intAttr(rw.opset() ?? 1));
    attributes.set('block', intAttr(this.#block));
    attributes.set('channels', intAttr(channelsOf(xb.dims)));
    const out = this.#makeBlocked(y, yDims);
    rw.replace([node], { opType: 'BlockedResize', domain: BLOCKED_DOMAIN, name: `${node.name || op}_blocked`, inputs: [xb.name, ...node.inputs.slice(1)], outputs: [out], attributes });
    return true;
  }

  /**
   * Elementwise ops and channel Concats compute the same thing on blocked tensors: rewired in place to
   * read and write blocked twins. Operands are blocked values of all C channels (broadcasting over N, H
   * or W is fine: blocked dims broadcast the same way), scalars, or per-channel constants ([C,1,1] or
   * [1,C,1,1]), which get a blocked copy ([C/b,1,1,b]).
   */
  #agnostic(node: Node): void {
    if (hasOp(node, 'Split')) {
      this.#channelSplit(node);
      return;
    }
    const rw = this.#rw;
    const y = node.outputs[0];
    if (!y || node.outputs.length !== 1 || node.inputs.length === 0) return;
    const yDims = this.#dims(y);
    if (!yDims) return;
    if (hasOp(node, 'Concat')) {
      this.#concat(node, yDims);
      return;
    }
    if (hasOp(node, 'Slice')) {
      this.#channelSlice(node, yDims);
      return;
    }
    const kind = elementwiseKind(node);
    if (!kind) return;
    // Padding lanes (C not a multiple of the block) hold whatever the ops before made of zeros; every op
    // here keeps finite values finite, so they never reach real lanes (a conv's padded weights are zero).
    // Ops that can make them infinite run blocked only when there are none.
    if (kind === 'padding-sensitive' && channelsOf(yDims) % this.#block !== 0) return;
    const dataInputs = hasOp(node, 'Clip') ? 1 : node.inputs.length;
    const inputs: string[] = [...node.inputs];
    let anyBlocked = false;
    for (let k = 0; k < dataInputs; k++) {
      const operand = this.#blockedOperand(node.inputs[k], yDims);
      if (operand === undefined) return;
      anyBlocked ||= operand.blocked;
      inputs[k] = operand.name;
    }
    if (!anyBlocked || node.inputs.slice(dataInputs).some((i) => this.#blocked.has(i))) return;
    if (!rw.owned([node])) return;
    const rewired = inputs.map((name, k) => (k < dataInputs ? this.#materialize(name) : name));
    const out = this.#makeBlocked(y, yDims);
    rw.update(node, (n) => {
      n.inputs = rewired;
      n.outputs = [out];
    });
  }

  /** Concat on channels when every input is blocked with C a multiple of the block (then the blocks just line up). */
  #concat(node: Node, yDims: Dim[]): void {
    const rw = this.#rw;
    const axis = rw.attrs(node).int('axis', 0);
    if (axis !== 1 && axis !== -3) return;
    // N, H and W need not be provably equal: inputs sized by different symbols (a branch resized to another's
    // H x W through Shape arithmetic, as DeepLabV3's ASPP does) are still checked by Concat itself at run time,
    // on the blocked tensors as on the plain ones. Only dims known to differ keep the node plain.
    const lined = (i: string) => {
      const d = this.#blocked.get(i)?.dims;
      return d !== undefined && d.length === 4 && channelsOf(d) % this.#block === 0 && mayShareNhw(d, yDims);
    };
    if (!node.inputs.every(lined) || !rw.owned([node])) return;
    const inputs = node.inputs.map((i) => this.#blocked.get(i)!.name);
    const out = this.#makeBlocked(node.outputs[0], yDims);
    rw.update(node, (n) => {
      n.inputs = inputs;
      n.outputs = [out];
      // Channels are axis 1 of the blocked tensor too; a negative axis would now count from the lane axis.
      n.attributes = new Map([...n.attributes, ['axis', intAttr(1)]]);
    });
  }

  /** The one integer of a constant 1-element int64/int32 input (INT64_MAX-style ends saturated), or undefined. */
  #constantInt(name: string | undefined): number | undefined {
    const t = name ? this.#rw.constant(name) : undefined;
    if (!t || t.size !== 1 || (t.type !== 'int64' && t.type !== 'int32')) return undefined;
    return readInts(t, 'blocked-layout', { clamp: true })[0];
  }

  /**
   * Slice(x, [s], [e], [1]) (steps 1) of a blocked x, with s and e on block boundaries (e may also be C or past
   * it): the same channels as a Slice of whole blocks, [s / b, ceil(e / b)) on the blocked tensor's axis 1.
   * A last block's padding lanes come along when e reaches C, as padding lanes (never read as channels).
   */
  #channelSlice(node: Node, yDims: Dim[]): void {
    const rw = this.#rw;
    const [x, startsName, endsName, axesName, stepsName] = node.inputs;
    const xb = x ? this.#blocked.get(x) : undefined;
    if (!xb || xb.dims.length !== 4 || node.inputs.length < 4) return;
    const axis = this.#constantInt(axesName);
    const step = stepsName ? this.#constantInt(stepsName) : 1;
    let start = this.#constantInt(startsName);
    let end = this.#constantInt(endsName);
    if ((axis !== 1 && axis !== -3) || step !== 1 || start === undefined || end === undefined) return;
    const c = channelsOf(xb.dims);
    if (start < 0) start += c;
    if (end < 0) end += c;
    start = Math.min(Math.max(start, 0), c);
    end = Math.min(Math.max(end, 0), c);
    const b = this.#block;
    if (end <= start || start % b !== 0 || (end % b !== 0 && end !== c) || channelsOf(yDims) !== end - start) return;
    if (!mayShareNhw(xb.dims, yDims) || !rw.owned([node])) return;
    const blockIndex = (v: number, base: string) => rw.addInitializer(`${node.name || 'Slice'}_${base}_blocks`, new Tensor('int64', BigInt64Array.of(BigInt(v)), [1]));
    const inputs = [xb.name, blockIndex(start / b, 'starts'), blockIndex(Math.ceil(end / b), 'ends'), blockIndex(1, 'axes')];
    const out = this.#makeBlocked(node.outputs[0], yDims);
    rw.update(node, (n) => {
      n.inputs = inputs;
      n.outputs = [out];
    });
  }

  /**
   * Split of a blocked x on channels into parts that each start on a block boundary (the sizes from the
   * constant `split` input or attribute, or opset 18's num_outputs): a Split of the blocked tensor into
   * whole blocks, sizes given in blocks. Only the last part may end mid-block (at C), keeping the padding lanes.
   */
  #channelSplit(node: Node): void {
    const rw = this.#rw;
    const x = node.inputs[0];
    const xb = x ? this.#blocked.get(x) : undefined;
    const outputs = node.outputs;
    if (!xb || xb.dims.length !== 4 || outputs.length === 0 || outputs.some((o) => !o)) return;
    const a = rw.attrs(node);
    const axis = a.int('axis', 0);
    if (axis !== 1 && axis !== -3) return;
    const c = channelsOf(xb.dims);
    let sizes: number[] | undefined;
    const splitInput = node.inputs[1];
    if (splitInput) {
      const t = rw.constant(splitInput);
      if (!t || (t.type !== 'int64' && t.type !== 'int32') || t.dims.length !== 1) return;
      sizes = readInts(t, 'blocked-layout', { clamp: true });
    } else if (a.has('split')) {
      sizes = a.ints('split', []);
    } else {
      // Equal parts (opset 18's num_outputs: the last one smaller when C does not divide; before 18 C must
      // divide, and a model where it does not is left to the Split kernel to report).
      if ((rw.opset() ?? 18) < 18 && c % outputs.length !== 0) return;
      const part = Math.ceil(c / outputs.length);
      sizes = outputs.map((_, i) => Math.max(0, Math.min(part, c - i * part)));
    }
    if (sizes.length !== outputs.length || sizes.reduce((s, v) => s + v, 0) !== c || sizes.some((v) => v <= 0)) return;
    const b = this.#block;
    const outDims: Dim[][] = [];
    for (let i = 0, start = 0; i < outputs.length; start += sizes[i], i++) {
      const end = start + sizes[i];
      if (start % b !== 0 || (end % b !== 0 && end !== c)) return;
      const d = this.#dims(outputs[i]);
      if (!d || channelsOf(d) !== sizes[i] || !mayShareNhw(xb.dims, d)) return;
      outDims.push(d);
    }
    if (!rw.owned([node])) return;
    const blockSizes = sizes.map((v) => Math.ceil(v / b));
    // Sizes go where this opset reads them: an input from opset 13, an attribute before.
    const asInput = (rw.opset() ?? 13) >= 13;
    const inputs = asInput ? [xb.name, rw.addInitializer(`${node.name || 'Split'}_split_blocks`, new Tensor('int64', BigInt64Array.from(blockSizes.map(BigInt)), [sizes.length]))] : [xb.name];
    const outs = outputs.map((o, i) => this.#makeBlocked(o, outDims[i]));
    rw.update(node, (n) => {
      n.inputs = inputs;
      n.outputs = outs;
      n.attributes = new Map([...n.attributes].filter(([k]) => k !== 'split' && k !== 'num_outputs'));
      n.attributes.set('axis', intAttr(1));
      if (!asInput) n.attributes.set('split', { type: 'ints', value: blockSizes });
    });
  }

  /**
   * How operand `name` of an elementwise op with logical output `yDims` reads in the blocked region:
   * its blocked twin (all C channels; N, H, W broadcast as the model says), itself (a scalar constant), or a blocked
   * copy of a per-channel constant (made by #materialize once the node is rewired); undefined when it cannot.
   */
  #blockedOperand(name: string, yDims: readonly Dim[]): { name: string; blocked: boolean } | undefined {
    const b = this.#blocked.get(name);
    if (b) {
      // [N, C/b, H, W, b] tensors broadcast exactly as their logical [N, C, H, W] do when C is the same:
      // the model's own broadcasting over N, H and W (checked at run time, unknown dims included) carries over.
      return b.dims.length === 4 && b.dims[1] === yDims[1] ? { name: b.name, blocked: true } : undefined;
    }
    const c = this.#rw.constant(name);
    if (!c || c.type !== 'float32' || c.dims.length > 4) return undefined;
    if (c.size === 1) return { name, blocked: false };
    const channels = channelsOf(yDims);
    const perChannel = c.size === channels && (sameNumbers(c.dims, [channels, 1, 1]) || sameNumbers(c.dims, [1, channels, 1, 1]));
    return perChannel ? { name: PENDING + name, blocked: false } : undefined;
  }

  /** The value a rewired input reads: a per-channel constant gets its blocked copy (once, padding lanes 0). */
  #materialize(name: string): string {
    if (!name.startsWith(PENDING)) return name;
    const original = name.slice(PENDING.length);
    let copy = this.#blockedConstants.get(original);
    if (!copy) {
      const c = this.#rw.constant(original)!;
      const cb = Math.ceil(c.size / this.#block);
      const data = new Float32Array(cb * this.#block);
      data.set(c.data as Float32Array);
      const dims = c.dims.length === 4 ? [1, cb, 1, 1, this.#block] : [cb, 1, 1, this.#block];
      copy = this.#rw.addInitializer(`${original}__blocked`, float32Tensor(data, dims));
      this.#blockedConstants.set(original, copy);
    }
    return copy;
  }

  /** A ReorderFromBlocked for every blocked value that something still reads in NCHW (or the caller fetches). */
  #addBoundaries(): void {
    const rw = this.#rw;
    for (const [original, b] of this.#blocked) {
      if (rw.readers(original).size === 0 && !rw.isGraphOutput(original)) continue;
      const producer = rw.producer(b.name);
      rw.graph.valueInfo.set(original, { name: original, type: { kind: 'tensor', elemType: 'float32', shape: [...b.dims] } });
      rw.insertAfter(producer, {
        opType: 'ReorderFromBlocked',
        domain: BLOCKED_DOMAIN,
        name: `${original}_from_blocked`,
        inputs: [b.name],
        outputs: [original],
        attributes: new Map([
          ['block', intAttr(this.#block)],
          ['channels', intAttr(channelsOf(b.dims))],
        ]),
      });
    }
    if (this.#blocked.size) rw.ensureOpset(BLOCKED_DOMAIN, 1);
  }
}

/**
 * The pass for a CPU whose convolutions prefer channel blocks of `block` (8 or 16; from the addon's
 * `preferredChannelBlock`). It creates ops only the oneDNN addon runs, so the EP adds it only then.
 */
export function blockedLayoutPass(block: number): GraphPass {
  return {
    name: 'cpu:blocked-layout',
    level: 'all',
    run(graph, report, context) {
      new BlockedLayout(new GraphRewriter(graph, report, context?.mayRewrite), block).run();
    },
  };
}
