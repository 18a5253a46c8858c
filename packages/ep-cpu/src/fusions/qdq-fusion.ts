/**
 * Static QDQ models (onnxruntime's `quantize_static`, most exporters) keep float ops between
 * DequantizeLinear and QuantizeLinear pairs. The ones that are int8 convolutions and products in disguise
 *   DequantizeLinear(x_q) → Conv(·, DequantizeLinear(W_q), [DequantizeLinear(B_q) | B]) [→ Relu] → QuantizeLinear
 *   DequantizeLinear(a_q) → MatMul(·, DequantizeLinear(B_q)) [→ Add(DequantizeLinear(c_q) | c)] [→ Relu] → QuantizeLinear
 *   DequantizeLinear(a_q) → Gemm(·, DequantizeLinear(B_q), [DequantizeLinear(c_q) | c]) [→ Relu] → QuantizeLinear
 * become com.switchyard QuantizedConv / QuantizedMatMul (QLinearConv / QLinearMatMul plus an int32 bias and a
 * folded Relu), as onnxruntime's QDQ transformer does: the convolution runs on the 8-bit data, exactly, and
 * is requantized once. A residual connection
 *   DequantizeLinear(a_q) + DequantizeLinear(b_q) [→ Relu] → QuantizeLinear
 * becomes com.switchyard QuantizedAdd, one pass that repeats the unfused float steps (that one is exact).
 *
 * Not bit-exact: the unfused graph sums float products (rounding each) and divides by y_scale, the fused
 * op sums exactly and multiplies by x_scale · w_scale / y_scale rounded to float32, and a float bias is
 * rounded to the int32 bias's scale (x_scale · w_scale). Outputs may differ by one quantization step where
 * a value falls next to a rounding boundary (qdq-fusion.test.ts bounds it). The Relu fold is exact:
 * Q(max(v, 0)) = max(Q(v), y_zero_point).
 *
 * Matched: per-tensor x, y (and bias-free or constant-bias) quantization with constant scales and zero
 * points; W / B constant with per-tensor or per-output-channel scales on the output-channel axis.
 */
import { Tensor, type GraphPass, type Node } from '@switchyard/core';
import { FUSED_DOMAIN } from '../kernels/FusedMatMul.js';
import { roundHalfEven } from '../nn/quantize.js';
import { GraphRewriter, isOp, otherInput } from './graph-rewriter.js';
import { unread, valuesAlongAxis } from './quantized-match.js';

type Int8Type = 'uint8' | 'int8';

/** A per-tensor quantized activation: DequantizeLinear's input, with constant scalar scale and zero point. */
interface ActivationQuant {
  node: Node | undefined;
  value: string;
  type: Int8Type;
  scale: string;
  scaleValue: number;
  zeroPoint: string | undefined;
}

/** A constant weight tensor behind DequantizeLinear, with per-tensor or per-`axis` scale and zero point. */
interface WeightQuant {
  node: Node;
  weights: Tensor;
  scales: Float32Array;
  zeroPoint: string | undefined;
}

const is8Bit = (t: string | undefined): t is Int8Type => t === 'uint8' || t === 'int8';

/** Scale and zero point of a (De)QuantizeLinear when they are constant and per tensor. */
function perTensor(rw: GraphRewriter, node: Node, valueType: string | undefined): { scale: number; zeroPoint: string | undefined } | undefined {
  const [, scale, zp] = node.inputs;
  const s = rw.constant(scale);
  if (!s || s.type !== 'float32' || s.size !== 1 || s.dims.length > 1) return undefined;
  if (zp) {
    const z = rw.constant(zp);
    if (!z || z.size !== 1 || z.dims.length > 1 || z.type !== valueType) return undefined;
  }
  return { scale: (s.data as Float32Array)[0], zeroPoint: zp || undefined };
}

function activationInput(rw: GraphRewriter, value: string): ActivationQuant | undefined {
  const dq = rw.producer(value);
  if (!isOp(dq, 'DequantizeLinear')) return undefined;
  const type = rw.elemType(dq.inputs[0]);
  const q = is8Bit(type) ? perTensor(rw, dq, type) : undefined;
  if (!q || !is8Bit(type)) return undefined;
  return { node: dq, value: dq.inputs[0], type, scale: dq.inputs[1], scaleValue: q.scale, zeroPoint: q.zeroPoint };
}

/** DequantizeLinear(W_q) read only by the fused op, W_q of `rank`, scales per tensor or along `axis` (of `channels`). */
function weightInput(rw: GraphRewriter, value: string, rank: number, axis: number, channelsAt: number): WeightQuant | undefined {
  const dq = rw.producer(value);
  if (!isOp(dq, 'DequantizeLinear') || rw.readers(value).size !== 1 || rw.isGraphOutput(value)) return undefined;
  const [wName, scaleName, zpName] = dq.inputs;
  const w = rw.constant(wName);
  const s = rw.constant(scaleName);
  if (!w || !is8Bit(w.type) || w.dims.length !== rank || !s || s.type !== 'float32') return undefined;
  const channels = w.dims[channelsAt];
  const perChannel = s.size !== 1;
  const attrAxis = (rw.opset() ?? 13) >= 13 ? rw.attrs(dq).int('axis', 1) : 1;
  const dqAxis = attrAxis < 0 ? attrAxis + rank : attrAxis;
  if (perChannel && (s.dims.length !== 1 || s.size !== channels || dqAxis !== axis)) return undefined;
  if (zpName) {
    const z = rw.constant(zpName);
    if (!z || z.type !== w.type || (z.size !== 1 && (z.size !== channels || z.dims.length !== 1 || !perChannel))) return undefined;
  }
  const scales = perChannel ? Float32Array.from(s.data as Float32Array) : new Float32Array(channels).fill((s.data as Float32Array)[0]);
  return { node: dq, weights: w, scales, zeroPoint: zpName || undefined };
}

/**
 * A bias as the fused op's int32 (in the product's scale xScale · wScale[c]): from DequantizeLinear of
 * constant int32 (its float value, as the node computes it) or a float32 constant, broadcast along `axis`.
 * Undefined when it is neither or does not fit int32. `nodes` gets the DequantizeLinear when it goes too.
 */
function biasInput(rw: GraphRewriter, value: string, rank: number, axis: number, xScale: number, wScales: Float32Array, nodes: Node[]): Int32Array | undefined {
  const channels = wScales.length;
  let floats: Float32Array | undefined;
  const dq = rw.producer(value);
  if (isOp(dq, 'DequantizeLinear') && rw.readers(value).size === 1) {
    const b = rw.constant(dq.inputs[0]);
    const s = rw.constant(dq.inputs[1]);
    const z = dq.inputs[2] ? rw.constant(dq.inputs[2]) : undefined;
    if (!b || b.type !== 'int32' || !s || s.type !== 'float32' || (dq.inputs[2] && !z) || b.size !== channels) return undefined;
    const bs = s.data as Float32Array;
    const bz = z ? (z.data as Int32Array) : undefined;
    if (bs.length !== 1 && bs.length !== channels) return undefined;
    floats = new Float32Array(channels);
    for (let c = 0; c < channels; c++) floats[c] = ((b.data as Int32Array)[c] - (bz ? bz[bz.length === 1 ? 0 : c] : 0)) * bs[bs.length === 1 ? 0 : c];
    nodes.push(dq);
  } else {
    floats = valuesAlongAxis(rw, value, rank, axis, channels);
    if (floats && floats.length === 1) floats = new Float32Array(channels).fill(floats[0]);
  }
  if (!floats) return undefined;
  const out = new Int32Array(channels);
  for (let c = 0; c < channels; c++) {
    const q = roundHalfEven(floats[c] / Math.fround(xScale * wScales[c]));
    if (!(Math.abs(q) <= 2 ** 31 - 1)) return undefined;
    out[c] = q;
  }
  return out;
}

/** [Relu →] QuantizeLinear after `value` (each its only reader): the Q node, whether a Relu was passed, and the nodes. */
function outputQuant(rw: GraphRewriter, value: string): { q: Node; relu: boolean; nodes: Node[]; type: Int8Type } | undefined {
  let next = rw.soleReader(value);
  const nodes: Node[] = [];
  let relu = false;
  if (isOp(next, 'Relu')) {
    nodes.push(next);
    relu = true;
    next = rw.soleReader(next.outputs[0]);
  }
  if (!isOp(next, 'QuantizeLinear')) return undefined;
  const zp = next.inputs[2];
  const type = zp ? rw.elemType(zp) : 'uint8';
  if (!is8Bit(type) || !perTensor(rw, next, type)) return undefined;
  nodes.push(next);
  return { q: next, relu, nodes, type };
}

/** The zero point input, or a new constant 0 of `type` when the node had none (the fused ops require one). */
function zeroPointOrZero(rw: GraphRewriter, name: string | undefined, type: Int8Type, base: string): string {
  if (name) return name;
  return rw.addInitializer(`${base}_zero_point`, new Tensor(type, type === 'uint8' ? new Uint8Array(1) : new Int8Array(1), []));
}

function fuseConv(rw: GraphRewriter, conv: Node): void {
  const [xf, wf, bf] = conv.inputs;
  const x = activationInput(rw, xf);
  const rank = rw.rank(wf);
  if (!x || rank === undefined || rank < 3 || rank > 5) return;
  const w = weightInput(rw, wf, rank, 0, 0);
  if (!w) return;
  const nodes: Node[] = [w.node];
  let bias: Int32Array | undefined;
  if (bf) {
    bias = biasInput(rw, bf, rank, 1, x.scaleValue, w.scales, nodes);
    if (!bias) return rw.skip(conv, 'the bias is neither DequantizeLinear of constant int32 nor a float32 constant per output channel');
  }
  const out = outputQuant(rw, conv.outputs[0]);
  if (!out) return;
  nodes.push(conv, ...out.nodes);
  if (!rw.owned(nodes)) return;
  emit(rw, conv, 'QuantizedConv', nodes, x, w, undefined, bias, out, new Map([...conv.attributes, ['relu', { type: 'int', value: out.relu ? 1 : 0 }]]));
}

function fuseMatMul(rw: GraphRewriter, mm: Node): void {
  const gemm = mm.opType === 'Gemm';
  const [af, bf, cf] = mm.inputs;
  const a = activationInput(rw, af);
  if (!a) return;
  let transB = false;
  if (gemm) {
    const attrs = rw.attrs(mm);
    if (attrs.int('transA', 0) !== 0 || attrs.float('alpha', 1) !== 1 || (cf && attrs.float('beta', 1) !== 1)) return rw.skip(mm, 'Gemm with transA or alpha / beta other than 1 is not fused');
    transB = attrs.int('transB', 0) !== 0;
  }
  // B [K, N] (Gemm transB: [N, K]) with scales along N.
  const w = weightInput(rw, bf, 2, transB ? 0 : 1, transB ? 0 : 1);
  if (!w) return;
  const nodes: Node[] = [w.node, mm];
  const outRank = Math.max(rw.rank(af) ?? 2, 2);
  let bias: Int32Array | undefined;
  let product = mm.outputs[0];
  if (gemm && cf) {
    bias = biasInput(rw, cf, 2, 1, a.scaleValue, w.scales, nodes);
    if (!bias) return rw.skip(mm, 'C is neither DequantizeLinear of constant int32 nor a float32 row');
  } else if (!gemm) {
    const add = rw.soleReader(product);
    const c = isOp(add, 'Add') ? otherInput(add, product) : undefined;
    if (add && c) {
      const candidate: Node[] = [];
      bias = biasInput(rw, c, outRank, outRank - 1, a.scaleValue, w.scales, candidate);
      if (bias) {
        nodes.push(...candidate, add);
        product = add.outputs[0];
      }
    }
  }
  const out = outputQuant(rw, product);
  if (!out) return;
  nodes.push(...out.nodes);
  if (!rw.owned(nodes)) return;
  // QuantizedMatMul takes B as [K, N]: a transposed Gemm B is stored transposed once.
  let weights = w.weights;
  if (transB) {
    const [n, k] = weights.dims;
    const src = weights.data as Uint8Array | Int8Array;
    const dst = new (src.constructor as { new (len: number): Uint8Array | Int8Array })(src.length);
    for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) dst[j * n + i] = src[i * k + j];
    weights = new Tensor(weights.type, dst, [k, n]);
  }
  emit(rw, mm, 'QuantizedMatMul', nodes, a, w, transB ? weights : undefined, bias, out, new Map([['relu', { type: 'int', value: out.relu ? 1 : 0 }]]));
}

/** Replaces `nodes` by the fused op; `newWeights`: B stored anew (transposed). */
function emit(
  rw: GraphRewriter,
  anchor: Node,
  opType: 'QuantizedConv' | 'QuantizedMatMul',
  nodes: Node[],
  x: ActivationQuant,
  w: WeightQuant,
  newWeights: Tensor | undefined,
  bias: Int32Array | undefined,
  out: { q: Node; type: Int8Type },
  attributes: Node['attributes'],
): void {
  const base = anchor.name || anchor.opType;
  const weightType = w.weights.type as Int8Type;
  const weights = newWeights ? rw.addInitializer(`${base}_weights_kn`, newWeights) : w.node.inputs[0];
  const wScale = rw.addInitializer(`${base}_w_scale`, new Tensor('float32', w.scales, [w.scales.length]));
  const inputs = [
    x.value,
    x.scale,
    zeroPointOrZero(rw, x.zeroPoint, x.type, `${base}_x`),
    weights,
    wScale,
    zeroPointOrZero(rw, w.zeroPoint, weightType, `${base}_w`),
    out.q.inputs[1],
    zeroPointOrZero(rw, out.q.inputs[2] || undefined, out.type, `${base}_y`),
  ];
  if (bias) inputs.push(rw.addInitializer(`${base}_bias_int32`, new Tensor('int32', bias, [bias.length])));
  const dropped = nodes.flatMap((n) => n.inputs);
  rw.replace(nodes, { opType, domain: FUSED_DOMAIN, name: `${base}_quantized`, inputs, outputs: [out.q.outputs[0]], attributes });
  rw.ensureOpset(FUSED_DOMAIN, 1);
  if (x.node && unread(rw, x.node.outputs) && rw.owned([x.node])) rw.remove(x.node);
  rw.dropIfUnused(dropped);
}

/** DQ(a) + DQ(b) [→ Relu] → Q, a and b of one shape, per-tensor parameters → QuantizedAdd (exact). */
function fuseAdd(rw: GraphRewriter, add: Node): void {
  const [p, q] = add.inputs;
  const a = p ? activationInput(rw, p) : undefined;
  const b = q ? activationInput(rw, q) : undefined;
  if (!a || !b || !sameShape(rw, p, q)) return;
  const out = outputQuant(rw, add.outputs[0]);
  if (!out) return;
  const nodes = [add, ...out.nodes];
  if (!rw.owned(nodes)) return;
  const [outScale, outZero] = [out.q.inputs[1], out.q.inputs[2] ?? ''];
  const inputs = [a.value, a.scale, a.zeroPoint ?? '', b.value, b.scale, b.zeroPoint ?? '', outScale, outZero];
  rw.replace(nodes, {
    opType: 'QuantizedAdd',
    domain: FUSED_DOMAIN,
    name: `${add.name || 'Add'}_quantized`,
    inputs,
    outputs: [out.q.outputs[0]],
    attributes: new Map([['relu', { type: 'int', value: out.relu ? 1 : 0 }]]),
  });
  rw.ensureOpset(FUSED_DOMAIN, 1);
  for (const dq of [a.node, b.node]) if (dq && rw.isLive(dq) && unread(rw, dq.outputs) && rw.owned([dq])) rw.remove(dq);
}

/** Whether two values have one shape (numbers or symbols, dim by dim), as shape inference knows them. */
function sameShape(rw: GraphRewriter, p: string, q: string): boolean {
  const a = rw.graph.typeOf(p);
  const b = rw.graph.typeOf(q);
  if (a?.kind !== 'tensor' || b?.kind !== 'tensor' || !a.shape || !b.shape || a.shape.length !== b.shape.length) return false;
  return a.shape.every((d, i) => (typeof d === 'number' || (typeof d === 'string' && d !== '')) && d === b.shape![i]);
}

export const qdqFusion: GraphPass = {
  name: 'cpu:qdq-fusion',
  level: 'all',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) {
      if (!rw.isLive(node) || node.outputs.length !== 1) continue;
      if (isOp(node, 'Conv')) fuseConv(rw, node);
      else if (isOp(node, 'MatMul') || isOp(node, 'Gemm')) fuseMatMul(rw, node);
      else if (isOp(node, 'Add')) fuseAdd(rw, node);
    }
  },
};
