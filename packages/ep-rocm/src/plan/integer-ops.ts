/**
 * ConvInteger and MatMulInteger on rocm, and what DynamicQuantizeLinear needs of the plan.
 *
 * Both integer ops compute sums of (a - a_zero_point)·(b - b_zero_point) over 8-bit operands. Each
 * shifted operand is an integer in [-255, 255], which float32 -- and TF32 and float16, with 11
 * significant bits -- hold exactly, and each product (at most 255² = 65025) is exact in float32. So
 * the plan shifts both operands into float32 (a QuantShift step, or on the host for constant weights)
 * and runs the float convolution / GEMM with float32 accumulation:
 *
 *   the result is exact while Σ|products| ≤ 2^24 for each output, since every partial sum, in whatever
 *   order the library adds them (split-K included), is then an integer float32 represents exactly.
 *
 * With 8-bit operands that always holds for up to 258 products per output (258·65025 < 2^24); past
 * that it holds unless the products' magnitudes pile up (real activations and weights of mixed sign
 * stay far below it), and where it does not, each addition rounds by at most 2^-24 relatively -- the
 * CPU EP's int32 sum would be exact there. The convolution may use TF32 tensor cores but only
 * algorithms that add the products as they are (native-hip ConvIntegerF32: no Winograd or FFT,
 * whose transforms round). The float result then becomes int32 by a Cast step (truncation: the value
 * is already an integer).
 *
 * When the op's only reader is a Cast to float32 (onnxruntime's quantize_dynamic writes exactly
 * that), the float result is written straight into the Cast's output and both conversions vanish:
 * the same value either way while the sum stays inside int32, which `castFolds` checks from the
 * sizes alone (products per output · 255² < 2^31). After such a ConvInteger, quantize_dynamic's
 * rescale -- Mul by x_scale·w_scale, Add of the bias [1, C, 1, 1], and a Relu where the model had
 * one -- becomes one Rescale step (`rescaleFolds`): each operation still rounded on its own, so the
 * values are the ops' one by one, in one pass over the output instead of three (the broadcasting
 * bias Add alone took 1.6 ms per full-resolution layer of a 1024x1024 UNet on an H200).
 */
import { AttributeReader, SwitchyardError, type DataType, type Graph, type Node, type Tensor } from '@switchyard/core';
import { constantOf, elemTypeOf, given, product, staticDims } from './graph-values.js';
import type { PlanStepDescription } from './plan-description.js';
import { encodeStep, type EncodeOptions } from './step-encoders.js';

/** Ops this module encodes into several steps (plan-description.ts hands them over). */
export const INTEGER_OPS: ReadonlySet<string> = new Set(['ConvInteger', 'MatMulInteger']);

/** native-hip kernels::kQuantRangeScratchBytes: the per-block min/max DynamicQuantizeLinear reduces. */
export const QUANT_RANGE_SCRATCH_BYTES = 2 * 1024 * 4;

/** Largest |product| of two shifted 8-bit operands. */
const MAX_PRODUCT = 255 * 255;

/** Bytes of workspace a DynamicQuantizeLinear step needs. */
export function quantizeWorkspaceBytes(step: { op: string }): number {
  return step.op === 'DynamicQuantizeLinear' ? QUANT_RANGE_SCRATCH_BYTES : 0;
}

type Limit = (node: Node, graph: Graph) => true | string;

/** Element count of a value whose shape is static, else undefined. */
function countOf(graph: Graph, name: string): number | undefined {
  const d = staticDims(graph, name);
  return d ? product(d) : undefined;
}

/**
 * 2-D only (the float path is the 2-D convolution); x's zero point one value, as the spec requires;
 * w's one value or one per output channel.
 */
export const convIntegerLimits: Limit = (node, graph) => {
  const x = staticDims(graph, node.inputs[0]);
  const w = staticDims(graph, node.inputs[1]);
  const xRank = graph.typeOf(node.inputs[0]);
  if (xRank?.kind === 'tensor' && xRank.shape?.length !== 4) return 'only 2-D (NCHW) ConvInteger runs on rocm';
  if (!w || w.length !== 4) return "ConvInteger's weight must have a static 4-D shape on rocm";
  if (given(node, 2) && countOf(graph, node.inputs[2]) !== 1) return 'ConvInteger x_zero_point must be one value (per-tensor; the spec allows no other)';
  if (given(node, 3)) {
    const n = countOf(graph, node.inputs[3]);
    if (n !== 1 && n !== w[0]) return `ConvInteger w_zero_point must be one value or one per output channel (${w[0]})`;
  }
  if (x && x[1] !== w[1] * new AttributeReader(node).int('group', 1)) return 'ConvInteger channels do not match the weight and group';
  return true;
};

/**
 * a's zero point one value, one per row of each matrix (M: the CPU EP's form) or one per row of A
 * ([D1, D2, M, 1]: the spec's N-D form); b's one value or one per column (N).
 */
export const matMulIntegerZeroPoints: Limit = (node, graph) => {
  const a = staticDims(graph, node.inputs[0]);
  const b = staticDims(graph, node.inputs[1]);
  if (given(node, 2)) {
    const n = countOf(graph, node.inputs[2]);
    const rows = a ? product(a, 0, a.length - 1) : undefined;
    if (n !== 1 && (!a || (n !== rows && n !== a[a.length - 2]))) return 'MatMulInteger a_zero_point must be one value or one per row of A, with a static shape';
  }
  if (given(node, 3)) {
    const n = countOf(graph, node.inputs[3]);
    if (n !== 1 && (!b || n !== b[b.length - 1])) return 'MatMulInteger b_zero_point must be one value or one per column of B, with a static shape';
  }
  return true;
};

/** Products summed into each output: C/group·kh·kw for ConvInteger, K for MatMulInteger. */
function productsPerOutput(node: Node, graph: Graph): number | undefined {
  const w = staticDims(graph, node.inputs[1]);
  if (!w) return undefined;
  return node.opType === 'ConvInteger' ? product(w, 1) : w[w.length - 2];
}

/**
 * The integer ops whose int32 output only a Cast to float32 reads, and whose sums cannot leave int32:
 * op → that Cast. The plan writes their float result into the Cast's output and runs no Cast.
 */
export function castFolds(graph: Graph, nodes: readonly Node[], outputNames: readonly string[]): Map<Node, Node> {
  const inPlan = new Set(nodes);
  const readers = readersOf(graph);
  const folds = new Map<Node, Node>();
  for (const n of nodes) {
    if (!INTEGER_OPS.has(n.opType) || outputNames.includes(n.outputs[0])) continue;
    const r = readers.get(n.outputs[0]) ?? [];
    const cast = r[0];
    if (r.length !== 1 || !inPlan.has(cast) || cast.opType !== 'Cast' || new AttributeReader(cast).int('to', 0) !== 1) continue;
    const k = productsPerOutput(n, graph);
    if (k !== undefined && k * MAX_PRODUCT < 2 ** 31) folds.set(n, cast);
  }
  return folds;
}

/** A ConvInteger's rescale chain as one Rescale step: Mul by one value, then optionally a per-channel bias Add and a Relu. */
export interface RescaleFold {
  /** The folded Cast's output, which the ConvIntegerF32 step writes. */
  input: string;
  scale: string;
  bias?: string;
  relu: boolean;
  /** The chain's nodes in order; the step takes the last one's place and makes its output. */
  nodes: Node[];
  output: string;
  /** The output's [N, C, H, W]. */
  dims: number[];
  channels: number;
  inner: number;
}

/** Readers of every value, for the folds' "only read by" checks. */
function readersOf(graph: Graph): Map<string, Node[]> {
  const readers = new Map<string, Node[]>();
  for (const n of graph.nodes) for (const i of n.inputs) if (i) readers.set(i, [...(readers.get(i) ?? []), n]);
  return readers;
}

/** A float32 constant holding one value per channel of a [N, C, H, W] output ([1, C, 1, 1], [C, 1, 1]). */
function perChannelBias(graph: Graph, name: string, y: readonly number[]): boolean {
  const b = constantOf(graph, name);
  if (!b || b.type !== 'float32' || b.dims.length > 4 || b.size !== y[1]) return false;
  const offset = 4 - b.dims.length;
  return b.dims.every((d, i) => (i + offset === 1 ? d === y[1] : d === 1));
}

/**
 * The Mul → Add → Relu chains after the Cast-folded ConvIntegers (`casts`, from castFolds), keyed
 * by the chain's last node. Each intermediate value must be read only by the next node, inside the
 * plan, and leave no partition output.
 */
export function rescaleFolds(graph: Graph, nodes: readonly Node[], outputNames: readonly string[], casts: ReadonlyMap<Node, Node>): Map<Node, RescaleFold> {
  const inPlan = new Set(nodes);
  const readers = readersOf(graph);
  const onlyReader = (value: string): Node | undefined => {
    const r = readers.get(value) ?? [];
    return !outputNames.includes(value) && r.length === 1 && inPlan.has(r[0]) ? r[0] : undefined;
  };
  const other = (n: Node, value: string) => (n.inputs[0] === value ? n.inputs[1] : n.inputs[0]);
  const folds = new Map<Node, RescaleFold>();
  for (const [conv, cast] of casts) {
    const input = cast.outputs[0];
    const y = staticDims(graph, input);
    const mul = onlyReader(input);
    if (conv.opType !== 'ConvInteger' || !y || y.length !== 4 || mul?.opType !== 'Mul' || mul.inputs.length !== 2) continue;
    const scale = other(mul, input);
    const sameDims = (v: string) => staticDims(graph, v)?.join() === y.join();
    if (scale === input || elemTypeOf(graph, scale) !== 'float32' || countOf(graph, scale) !== 1 || !sameDims(mul.outputs[0])) continue;
    const chain = [mul];
    let output = mul.outputs[0];
    let bias: string | undefined;
    const add = onlyReader(output);
    if (add?.opType === 'Add' && add.inputs.length === 2 && other(add, output) !== output && perChannelBias(graph, other(add, output), y) && sameDims(add.outputs[0])) {
      bias = other(add, output);
      chain.push(add);
      output = add.outputs[0];
    }
    const relu = onlyReader(output);
    if (relu?.opType === 'Relu') {
      chain.push(relu);
      output = relu.outputs[0];
    }
    folds.set(chain[chain.length - 1], { input, scale, bias, relu: relu?.opType === 'Relu', nodes: chain, output, dims: y, channels: y[1], inner: y[2] * y[3] });
  }
  return folds;
}

/** The Rescale step of a fold, in the place of its chain's last node. */
export function encodeRescale(fold: RescaleFold, b: IntegerPlanBuilder): void {
  const ins = [b.operand(fold.input), b.operand(fold.scale), ...(fold.bias ? [b.operand(fold.bias)] : [])];
  const out = b.result(fold.output, 'float32', fold.dims);
  b.step({ op: 'Rescale', attrs: [fold.channels, fold.inner, fold.relu ? 1 : 0], inputs: ins, outputs: [out], node: fold.nodes.map((n) => n.name || n.opType).join(' + ') });
}

/** What the encoder needs of the plan being built (plan-description.ts). */
export interface IntegerPlanBuilder {
  /** The buffer of a graph value: an input, a constant (uploaded as it is) or an earlier step's output. */
  operand(name: string): number;
  /** The buffer registered under `name` so far (by `constant` or `result`), if any. */
  known(name: string): number | undefined;
  /** A new intermediate buffer. */
  temp(name: string, type: DataType, dims: number[]): number;
  /** A new constant buffer holding `data`, registered under `name`. */
  constant(name: string, type: DataType, dims: number[], data: ArrayBufferView): number;
  /** The buffer of a graph value this step makes (registered under `name` for later readers). */
  result(name: string, type: DataType, dims: number[]): number;
  step(s: PlanStepDescription): void;
}

/** (q - zero point) of a constant 8-bit tensor as float32, the zero point per `channels` blocks of `inner`. */
export function shiftedConstant(q: Tensor, zeroPoint: Tensor | undefined, channels: number, inner: number): Float32Array {
  const values = q.data as Int8Array | Uint8Array;
  const zp = zeroPoint ? (zeroPoint.data as Int8Array | Uint8Array) : undefined;
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i] - (zp ? zp[zp.length === 1 ? 0 : Math.floor(i / inner) % channels] : 0);
  return out;
}

/**
 * The float32 form of an 8-bit operand: computed on the host when the tensor and its zero point are
 * constants (weights: once, at plan build), else by a QuantShift step on every run. The zero point's
 * values repeat along the flat operand in blocks of `inner` (one value: per tensor).
 */
function shiftedOperand(b: IntegerPlanBuilder, graph: Graph, node: Node, value: string, zeroPoint: string | undefined, inner: number): number {
  const channels = zeroPoint ? product(staticDims(graph, zeroPoint) ?? [1]) : 1;
  const dims = staticDims(graph, value);
  if (!dims) throw new SwitchyardError('RUNTIME', `rocm plan: the shape of '${value}' is not static at plan time`);
  // One tensor quantized once feeds several ops (quantize_dynamic shares a DynamicQuantizeLinear): shift it once too.
  const key = `${value}:shifted(${zeroPoint ?? ''})`;
  const known = b.known(key);
  if (known !== undefined) return known;
  const q = constantOf(graph, value);
  const zp = zeroPoint ? constantOf(graph, zeroPoint) : undefined;
  if (q && (!zeroPoint || zp)) return b.constant(key, 'float32', dims, shiftedConstant(q, zp, channels, inner));
  const out = b.result(key, 'float32', dims);
  const ins = [b.operand(value), ...(zeroPoint ? [b.operand(zeroPoint)] : [])];
  b.step({ op: 'QuantShift', attrs: [channels, inner], inputs: ins, outputs: [out], node: `${node.name || node.opType} (shift ${value})` });
  return out;
}

/**
 * Steps for a ConvInteger or MatMulInteger node: the shifted operands, the float32 convolution or
 * product, and the Cast to int32 -- or, with `foldedCast`, the float result written as that Cast's output.
 */
export function encodeIntegerOp(node: Node, graph: Graph, b: IntegerPlanBuilder, options: EncodeOptions, foldedCast?: Node): void {
  const [x, w] = node.inputs;
  const zx = given(node, 2) ? node.inputs[2] : undefined;
  const zw = given(node, 3) ? node.inputs[3] : undefined;
  const xDims = staticDims(graph, x)!;
  const wDims = staticDims(graph, w)!;
  const yName = node.outputs[0];
  const yDims = staticDims(graph, yName);
  if (!yDims) throw new SwitchyardError('RUNTIME', `rocm plan: the shape of '${yName}' is not static at plan time`);
  let op: string;
  let attrs: number[];
  let xs: number;
  let ws: number;
  if (node.opType === 'ConvInteger') {
    xs = shiftedOperand(b, graph, node, x, zx, 1);
    ws = shiftedOperand(b, graph, node, w, zw, product(wDims, 1));
    // The Conv blob of the same attributes (pads, auto_pad, strides, dilations, group).
    const conv = encodeStep({ ...node, opType: 'Conv', inputs: [x, w] }, graph, options);
    op = 'ConvIntegerF32';
    attrs = conv.attrs;
  } else {
    const k = xDims[xDims.length - 1];
    // Row r of A's flat [rows, K] view takes value r % (zero point count): per row of each matrix or of all.
    xs = shiftedOperand(b, graph, node, x, zx, k);
    ws = shiftedOperand(b, graph, node, w, zw, 1);
    op = 'MatMul';
    attrs = [];
  }
  const label = node.name || node.opType;
  if (foldedCast) {
    const out = b.result(foldedCast.outputs[0], 'float32', yDims);
    b.step({ op, attrs, inputs: [xs, ws], outputs: [out], node: `${label} + ${foldedCast.name || 'Cast'}` });
    return;
  }
  const sum = b.temp(`${yName}:f32`, 'float32', yDims);
  b.step({ op, attrs, inputs: [xs, ws], outputs: [sum], node: label });
  const out = b.result(yName, 'int32', yDims);
  b.step({ op: 'Cast', attrs: [], inputs: [sum], outputs: [out], node: `${label} (to int32)` });
}
