/**
 * A GPU partition as the plain description `new ExecutionPlan(description)` takes (see
 * native-hip/src/native/plan/execution_plan.h): buffers at offsets in one arena (constants, inputs
 * and outputs in fixed regions; intermediates share memory by lifetime), constants to upload once,
 * and one step per node. Built per concrete input shape, from a graph whose shapes are static.
 *
 * With `fp16`, float32 values inside the partition become float16 (constants converted on the host),
 * and Cast steps at the boundary keep the partition's inputs and outputs float32. The kernels
 * accumulate Softmax/LayerNorm/reductions in float32 whatever the storage type.
 */
import {
  AttributeReader,
  BYTES_PER_ELEMENT,
  ONNX_DATA_TYPE,
  SwitchyardError,
  Tensor,
  assignOffsets,
  float32ToFloat16Bits,
  type DataType,
  type Graph,
  type Node,
  type OffsetRequest,
} from '@switchyard/core';
import { foldableConvChains } from './conv-activation.js';
import { im2colBytes } from './conv-workspace.js';
import { lstmWorkspaceBytes } from './lstm.js';
import { aliasCopies } from './copy-alias.js';
import { foldAttention } from './attention-fold.js';
import { fuseAttention } from './attention-fuse.js';
import { splitLargeMatMuls, splitWorkspaceBytes, type WeightSplitter } from './split-tf32.js';
import { constantOf, product, staticDims } from './graph-values.js';
import { GELU_ERF, foldableGelus, type GeluFold } from './gelu-fold.js';
import { convsToNhwc } from './nhwc-layout.js';
import { foldableMatMulBiases, type MatMulBiasFold } from './matmul-bias-fold.js';
import { foldableResidualNorms, type ResidualNormFold } from './residual-norm-fold.js';
import { encodeSplit, encodeStep } from './step-encoders.js';
import { castFolds, encodeIntegerOp, encodeRescale, INTEGER_OPS, quantizeWorkspaceBytes, rescaleFolds, type IntegerPlanBuilder } from './integer-ops.js';

export interface PlanBuffer {
  offset: number;
  bytes: number;
  /** ONNX TensorProto element type number. */
  dtype: number;
  dims: number[];
  /** The value's name in the graph (for messages; the native side ignores it). */
  name: string;
}

export interface PlanStepDescription {
  op: string;
  attrs: number[];
  /** Buffer ids; -1 = omitted optional input. */
  inputs: number[];
  outputs: number[];
  /** The node this step runs (for messages). */
  node: string;
  /** Scratch only this step uses, in the arena (a Conv's im2col matrix: conv-workspace.ts; an LSTM's projected gates and state: lstm.ts). */
  workspace?: { offset: number; bytes: number };
}

export interface PlanDescription {
  deviceId: number;
  arenaBytes: number;
  captureGraph: boolean;
  /** What step checks may tune (native StepArgs::Tuning): 0 the libraries' defaults, 1 cached choices only, 2 time what the cache lacks. */
  tuning: 0 | 1 | 2;
  buffers: PlanBuffer[];
  constants: Array<{ buffer: number; data: ArrayBufferView }>;
  inputs: number[];
  outputs: number[];
  steps: PlanStepDescription[];
}

export interface PlanBuildOptions {
  deviceId: number;
  captureGraph: boolean;
  /** The EP's tunableOpEnable / tunableOpTuningEnable as PlanDescription.tuning; default 2 (tune). */
  tuning?: 0 | 1 | 2;
  fp16: boolean;
  /** Convolution algorithm search (the EP's `convAlgoSearch`). */
  convAlgoSearch?: 'EXHAUSTIVE' | 'HEURISTIC' | 'DEFAULT';
  /**
   * float16 plans: run convolutions channels-last (ConvNHWC, see nhwc-layout.ts): 'always', 'auto'
   * (where it measured faster), or false (never; the default).
   */
  nhwcConv?: 'always' | 'auto' | false;
  /** Fold torch's GELU chain (and the bias Add before it) into one BiasActivation step (gelu-fold.ts). */
  geluFold?: boolean;
  /** Fold Add → LayerNormalization into the norm step's residual input (residual-norm-fold.ts). */
  residualNormFold?: boolean;
  /** Fold MatMul → Add(bias) into one MatMulBias step (matmul-bias-fold.ts). */
  matmulBiasFold?: boolean;
  /** Batch-1 attention without Transposes, Q/K/V as one GEMM (attention-fold.ts; needs MatMulStrided). */
  attentionFold?: boolean;
  /** After the attention fold: Q·Kᵀ, mask, Softmax and P·V as one Attention step (attention-fuse.ts). */
  attentionFuse?: boolean;
  /** float32 plans: large products over constant weights as 3xTF32 MatMulSplitTf32 steps (split-tf32.ts). */
  splitTf32?: boolean;
  /** How those steps' weights are split (default: split-tf32.ts's splitWeights; the EP passes native-hip's). */
  splitWeights?: WeightSplitter;
  /** Offsets are multiples of this (default 256: what the GPU allocators align to). */
  alignment?: number;
}

const alignUp = (n: number, a: number) => Math.ceil(n / a) * a;

/** ONNX element types a Cast may produce that pin a float format fp16 mode would change. */
const PINNED_FLOATS = new Set([ONNX_DATA_TYPE.float16, ONNX_DATA_TYPE.float64, ONNX_DATA_TYPE.bfloat16]);
const QUANTIZATION_OPS: ReadonlySet<string> = new Set(['DynamicQuantizeLinear', ...INTEGER_OPS]);

/**
 * Whether every float value of the partition is float32 and no node pins another float type. A Cast
 * between float32 and an integer or bool type is fine: its float side is stored as float16 like every
 * other float32 value (BERT's attention mask becomes its additive bias this way).
 */
export function fp16Eligible(graph: Graph, nodes: readonly Node[]): true | string {
  for (const n of nodes) {
    // Quantization reads float32 ranges and writes exact integer sums: float16 storage would change both.
    if (QUANTIZATION_OPS.has(n.opType)) return `node '${n.name}' (${n.opType}) quantizes in float32`;
    if (n.opType === 'Cast' && PINNED_FLOATS.has(new AttributeReader(n).int('to', 0))) return `node '${n.name}' (Cast) fixes a float type`;
    for (const v of [...n.inputs, ...n.outputs]) {
      const t = v ? graph.typeOf(v) : undefined;
      if (t?.kind === 'tensor' && (t.elemType === 'float64' || t.elemType === 'bfloat16' || t.elemType === 'float16')) return `'${v}' is ${t.elemType}`;
    }
  }
  return true;
}

const DATA_TYPE_OF_ONNX = new Map(Object.entries(ONNX_DATA_TYPE).map(([name, n]) => [n, name as DataType]));
const dataTypeOfBuffer = (b: PlanBuffer): DataType => DATA_TYPE_OF_ONNX.get(b.dtype)!;

function toFloat16(t: Tensor): Uint16Array {
  const src = t.data as Float32Array;
  const out = new Uint16Array(src.length);
  for (let i = 0; i < src.length; i++) out[i] = float32ToFloat16Bits(src[i]);
  return out;
}

export function buildPlanDescription(
  graph: Graph,
  nodes: readonly Node[],
  inputNames: readonly string[],
  outputNames: readonly string[],
  options: PlanBuildOptions,
): PlanDescription {
  const alignment = options.alignment ?? 256;
  const half = options.fp16 && fp16Eligible(graph, nodes) === true;
  let buffers: PlanBuffer[] = [];
  const idOf = new Map<string, number>();
  const storageType = (t: DataType): DataType => (half && t === 'float32' ? 'float16' : t);
  // An LSTM's constant W, R and B stay float32 in a float16 plan: the recurrence would compound their
  // float16 rounding over the sequence (the step reads float32 weights with float16 X and states).
  const exactWeights = new Set<string>();
  if (half) for (const n of nodes) if (n.opType === 'LSTM') for (const i of [1, 2, 3]) if (n.inputs[i] && constantOf(graph, n.inputs[i])) exactWeights.add(n.inputs[i]);

  const addBuffer = (name: string, type: DataType, dims: number[]): number => {
    const size = BYTES_PER_ELEMENT[type];
    if (!size || type === 'string') throw new SwitchyardError('UNSUPPORTED', `rocm plan: '${name}' is ${type}, which cannot live on the GPU`);
    buffers.push({ offset: -1, bytes: product(dims) * size, dtype: ONNX_DATA_TYPE[type], dims, name });
    return buffers.length - 1;
  };
  const valueType = (name: string): { type: DataType; dims: number[] } => {
    const t = graph.typeOf(name);
    const dims = staticDims(graph, name);
    if (t?.kind !== 'tensor' || !dims) throw new SwitchyardError('RUNTIME', `rocm plan: the shape of '${name}' is not static at plan time`);
    return { type: t.elemType, dims: [...dims] };
  };

  let constants: PlanDescription['constants'] = [];
  let steps: PlanStepDescription[] = [];
  let region = new Map<number, 'constant' | 'input' | 'output' | 'temp'>();
  const lifetime = new Map<number, { start: number; end: number }>();
  const touch = (id: number, step: number) => {
    const l = lifetime.get(id);
    if (l) l.end = Math.max(l.end, step);
    else lifetime.set(id, { start: step, end: step });
  };

  // Inputs: the boundary buffer keeps the caller's type; with fp16 a Cast step makes the inside copy.
  const inputs = inputNames.map((name) => {
    const { type, dims } = valueType(name);
    const id = addBuffer(name, type, dims);
    region.set(id, 'input');
    if (storageType(type) !== type) {
      const inner = addBuffer(`${name}:fp16`, storageType(type), dims);
      region.set(inner, 'temp');
      steps.push({ op: 'Cast', attrs: [], inputs: [id], outputs: [inner], node: `${name} → float16` });
      touch(inner, steps.length - 1);
      idOf.set(name, inner);
    } else idOf.set(name, id);
    return id;
  });

  const operand = (name: string): number => {
    const known = idOf.get(name);
    if (known !== undefined) return known;
    const c = constantOf(graph, name);
    if (!c) throw new SwitchyardError('RUNTIME', `rocm plan: '${name}' is neither an input, a constant nor made by an earlier step`);
    const type = exactWeights.has(name) ? c.type : storageType(c.type);
    const id = addBuffer(name, type, [...c.dims]);
    region.set(id, 'constant');
    constants.push({ buffer: id, data: type !== c.type ? toFloat16(c) : (c.data as ArrayBufferView) });
    idOf.set(name, id);
    return id;
  };

  // Conv chains folded into one Conv step (conv-activation.ts): the step is emitted at the position
  // of the fold's key (the Conv, or the Add when a residual is folded); the other nodes add none.
  const folds = foldableConvChains(graph, nodes, outputNames);
  const skip = new Set<Node>();
  for (const f of folds.values()) {
    if (f.add) skip.add(f.conv);
    if (f.act) skip.add(f.act);
  }
  // GELU and Add → LayerNormalization folds, each only where no earlier fold took one of its nodes.
  const taken = (n: Node) => skip.has(n) || folds.has(n);
  const gelus = options.geluFold ? foldableGelus(graph, nodes, outputNames) : new Map<Node, GeluFold>();
  for (const [last, g] of [...gelus]) {
    if (g.nodes.some(taken)) gelus.delete(last);
    else for (const n of g.nodes) if (n !== last) skip.add(n);
  }
  const norms = options.residualNormFold ? foldableResidualNorms(graph, nodes, outputNames) : new Map<Node, ResidualNormFold>();
  for (const [norm, r] of [...norms]) {
    if (taken(r.add) || gelus.has(r.add) || taken(norm)) norms.delete(norm);
    else skip.add(r.add);
  }
  // MatMul → Add(bias), where no earlier fold (a GELU's bias Add, a residual norm's Add) took the Add.
  const biases = options.matmulBiasFold ? foldableMatMulBiases(graph, nodes, outputNames) : new Map<Node, MatMulBiasFold>();
  const normAdds = new Set([...norms.values()].map((r) => r.add));
  for (const [mm, f] of [...biases]) {
    if (taken(mm) || taken(f.add) || normAdds.has(f.add) || [...gelus.values()].some((g) => g.nodes.includes(f.add))) biases.delete(mm);
    else skip.add(f.add);
  }
  // Nodes inference computed on the host (shape arithmetic, plan/host-values.ts) have their outputs
  // among the graph's initializers: their readers take them as constants, and they add no step.
  for (const n of nodes) if (n.outputs.some((o) => o !== '') && n.outputs.every((o) => o === '' || graph.initializers.has(o))) skip.add(n);
  // ConvInteger / MatMulInteger → Cast(float32): the integer op writes the Cast's output (integer-ops.ts).
  const integerCasts = castFolds(graph, nodes, outputNames);
  for (const cast of integerCasts.values()) skip.add(cast);
  // … and its Mul(scales) → Add(bias) → Relu as one Rescale step, where no earlier fold took a node of it.
  const claimed = (n: Node) => skip.has(n) || folds.has(n) || gelus.has(n) || norms.has(n) || biases.has(n);
  const rescales = rescaleFolds(graph, nodes, outputNames, integerCasts);
  for (const [last, r] of [...rescales]) {
    if (r.nodes.some(claimed)) rescales.delete(last);
    else for (const n of r.nodes) if (n !== last) skip.add(n);
  }
  const integerPlan: IntegerPlanBuilder = {
    operand,
    known: (name) => idOf.get(name),
    temp: (name, type, dims) => {
      const id = addBuffer(name, type, dims);
      region.set(id, 'temp');
      return id;
    },
    constant: (name, type, dims, data) => {
      const id = addBuffer(name, type, dims);
      region.set(id, 'constant');
      constants.push({ buffer: id, data });
      idOf.set(name, id);
      return id;
    },
    result: (name, type, dims) => {
      const id = addBuffer(name, type, dims);
      region.set(id, 'temp');
      idOf.set(name, id);
      return id;
    },
    step: (s) => {
      steps.push(s);
      for (const id of [...s.inputs, ...s.outputs]) if (id >= 0) touch(id, steps.length - 1);
    },
  };
  for (const current of nodes) {
    if (skip.has(current)) continue;
    if (current.opType === 'ConstantOfShape') {
      // Too large to fold: a scalar constant broadcast by an Expand step.
      const { type, dims } = valueType(current.outputs[0]);
      const value = new AttributeReader(current).tensor('value') ?? new Tensor('float32', new Float32Array(1), [1]);
      const scalar = addBuffer(`${current.outputs[0]}:value`, storageType(type), [1]);
      region.set(scalar, 'constant');
      constants.push({ buffer: scalar, data: storageType(type) !== value.type ? toFloat16(value) : (value.data as ArrayBufferView) });
      const out = addBuffer(current.outputs[0], storageType(type), dims);
      region.set(out, 'temp');
      idOf.set(current.outputs[0], out);
      steps.push({ op: 'Expand', attrs: [], inputs: [scalar], outputs: [out], node: current.name || current.opType });
      touch(scalar, steps.length - 1);
      touch(out, steps.length - 1);
      continue;
    }
    if (current.opType === 'Split') {
      const x = operand(current.inputs[0]);
      for (const part of encodeSplit(current, graph)) {
        const name = current.outputs[part.outputs[0]];
        const { type, dims } = valueType(name);
        const out = addBuffer(name, storageType(type), dims);
        region.set(out, 'temp');
        idOf.set(name, out);
        steps.push({ op: 'Slice', attrs: part.attrs, inputs: [x], outputs: [out], node: `${current.name || current.opType} (output ${part.outputs[0]})` });
        touch(x, steps.length - 1);
        touch(out, steps.length - 1);
      }
      continue;
    }
    if (INTEGER_OPS.has(current.opType)) {
      encodeIntegerOp(current, graph, integerPlan, { convAlgoSearch: options.convAlgoSearch }, integerCasts.get(current));
      continue;
    }
    const rescale = rescales.get(current);
    if (rescale) {
      encodeRescale(rescale, integerPlan);
      continue;
    }
    const bias = biases.get(current);
    if (bias) {
      const ins = [operand(current.inputs[0]), operand(current.inputs[1]), operand(bias.bias)];
      const { type, dims } = valueType(bias.output);
      const out = addBuffer(bias.output, storageType(type), dims);
      region.set(out, 'temp');
      idOf.set(bias.output, out);
      steps.push({ op: 'MatMulBias', attrs: [], inputs: ins, outputs: [out], node: `${current.name || current.opType} + ${bias.add.name || bias.add.opType}` });
      for (const id of [...ins, out]) touch(id, steps.length - 1);
      continue;
    }
    const gelu = gelus.get(current);
    if (gelu) {
      const ins = [operand(gelu.input), gelu.bias ? operand(gelu.bias) : -1];
      const { type, dims } = valueType(gelu.output);
      const out = addBuffer(gelu.output, storageType(type), dims);
      region.set(out, 'temp');
      idOf.set(gelu.output, out);
      steps.push({ op: 'BiasActivation', attrs: [GELU_ERF, 0, 0], inputs: ins, outputs: [out], node: gelu.nodes.map((n) => n.name || n.opType).join(' + ') });
      for (const id of [...ins, out]) if (id >= 0) touch(id, steps.length - 1);
      continue;
    }
    const fold = folds.get(current);
    const node = fold ? fold.conv : current;
    const spec = encodeStep(node, graph, { convAlgoSearch: options.convAlgoSearch });
    if (fold) {
      if (spec.op !== 'Conv' || spec.then || spec.attrs.length !== 11 || spec.attrs[10] !== 0) throw new SwitchyardError('RUNTIME', `rocm plan: Conv '${node.name}' cannot take a folded epilogue`);
      spec.attrs = [...spec.attrs.slice(0, 10), ...fold.attrs];
    }
    const norm = spec.op === 'LayerNormalization' ? norms.get(node) : undefined;
    const ins = spec.inputs.map((i) => (i < 0 || !node.inputs[i] ? -1 : operand(norm && i === 0 ? norm.x : node.inputs[i])));
    if (norm) {
      // LayerNormalization step: x, gamma, beta (-1 when absent), residual.
      while (ins.length < 3) ins.push(-1);
      ins.push(operand(norm.residual));
    }
    if (fold?.residual) {
      while (ins.length < 3) ins.push(-1);
      ins.push(operand(fold.residual));
    }
    // A 1-D convolution runs as a 2-D one with H = 1: X and W get [.., 1, L] views (a Copy that
    // copy-alias.ts turns into an alias; W a constant of its own), Y comes back through another.
    const conv1d = spec.op === 'Conv' && buffers[ins[0]].dims.length === 3;
    if (conv1d) {
      const view = (id: number, label: string): number => {
        const b = buffers[id];
        const v = addBuffer(`${b.name}:${label}`, dataTypeOfBuffer(b), [b.dims[0], b.dims[1], 1, b.dims[2]]);
        region.set(v, 'temp');
        steps.push({ op: 'Copy', attrs: [], inputs: [id], outputs: [v], node: `${node.name || node.opType} (as 2-D)` });
        touch(id, steps.length - 1);
        touch(v, steps.length - 1);
        return v;
      };
      ins[0] = view(ins[0], '2d');
      const w = constantOf(graph, node.inputs[1])!;
      const w2d = addBuffer(`${node.inputs[1]}:2d`, storageType(w.type), [w.dims[0], w.dims[1], 1, w.dims[2]]);
      region.set(w2d, 'constant');
      constants.push({ buffer: w2d, data: storageType(w.type) !== w.type ? toFloat16(w) : (w.data as ArrayBufferView) });
      ins[1] = w2d;
      if (ins[3] !== undefined && ins[3] >= 0) ins[3] = view(ins[3], '2d');
    }
    const outs = spec.outputs.map((i) => {
      const name = node.outputs[i];
      const { type, dims } = valueType(name);
      const id = addBuffer(name, storageType(type), dims);
      region.set(id, 'temp');
      idOf.set(name, id);
      return id;
    });
    const conv1dOutput = conv1d ? outs[0] : -1;
    if (conv1d) {
      const b = buffers[outs[0]];
      outs[0] = addBuffer(`${b.name}:2d`, dataTypeOfBuffer(b), [b.dims[0], b.dims[1], 1, b.dims[2]]);
      region.set(outs[0], 'temp');
    }
    if (fold) idOf.set(fold.output, conv1d ? conv1dOutput : outs[0]); // the chain's result lives in the conv's buffer
    const label = fold ? [node, fold.add, fold.act].filter((n): n is Node => n !== undefined).map((n) => n.name || n.opType).join(' + ') : node.name || node.opType;
    steps.push({ op: spec.op, attrs: spec.attrs, inputs: ins, outputs: outs, node: label });
    const at = steps.length - 1;
    for (const id of [...ins, ...outs]) if (id >= 0) touch(id, at);
    if (spec.then) {
      steps.push({ op: spec.then.op, attrs: spec.then.attrs, inputs: [outs[0]], outputs: [outs[0]], node: `${node.name || node.opType} (activation)` });
      touch(outs[0], steps.length - 1);
    }
    if (conv1d) {
      steps.push({ op: 'Copy', attrs: [], inputs: [outs[0]], outputs: [conv1dOutput], node: `${node.name || node.opType} (back to 1-D)` });
      touch(outs[0], steps.length - 1);
      touch(conv1dOutput, steps.length - 1);
    }
  }

  // Outputs: a fixed region the caller reads after the run; with fp16 a Cast step fills it.
  const outputs = outputNames.map((name) => {
    // A value computed on the host (shape arithmetic read by another EP) leaves as a constant's copy.
    const inner = idOf.get(name) ?? (constantOf(graph, name) ? operand(name) : undefined);
    if (inner === undefined) throw new SwitchyardError('RUNTIME', `rocm plan: output '${name}' is not made by any step`);
    const { type, dims } = valueType(name);
    if (buffers[inner].dtype === ONNX_DATA_TYPE[type] && region.get(inner) === 'temp') {
      region.set(inner, 'output');
      return inner;
    }
    // A float16 inside value, or an input/constant passed straight through: copy into its own slot.
    const id = addBuffer(name, type, dims);
    region.set(id, 'output');
    steps.push({ op: buffers[inner].dtype === ONNX_DATA_TYPE[type] ? 'Copy' : 'Cast', attrs: [], inputs: [inner], outputs: [id], node: `output ${name}` });
    touch(inner, steps.length - 1);
    return id;
  });

  if (half && options.nhwcConv) {
    const rewritten = convsToNhwc({ buffers, steps, constants, region }, options.nhwcConv);
    if (rewritten) {
      ({ buffers, steps, constants, region } = rewritten);
      // Steps were inserted: lifetimes from the final step list.
      lifetime.clear();
      steps.forEach((s, at) => {
        for (const id of [...s.inputs, ...s.outputs]) if (id >= 0) touch(id, at);
      });
    }
  }

  // Byte copies between temps become aliases (copy-alias.ts); an alias's uses keep its root alive.
  const aliases = aliasCopies(steps, buffers, region);
  steps = aliases.steps;
  // Batch-1 attention reads its heads in place, Q/K/V in one GEMM (attention-fold.ts); then the
  // scores' chain becomes one Attention step (attention-fuse.ts).
  const folded = options.attentionFold ? foldAttention({ steps, buffers, constants, region, aliasOf: aliases.aliasOf }) : undefined;
  const attention = folded && options.attentionFuse ? (fuseAttention(folded) ?? folded) : folded;
  if (attention) ({ steps, buffers, constants, region } = attention);
  const split = options.splitTf32 && !half ? splitLargeMatMuls({ steps, buffers, constants, region }, options.splitWeights) : undefined;
  if (split) ({ steps, buffers, constants, region } = split);
  if (aliases.aliasOf.size > 0 || attention || split) {
    lifetime.clear();
    steps.forEach((s, at) => {
      for (const id of [...s.inputs, ...s.outputs]) if (id >= 0) touch(aliases.aliasOf.get(id) ?? id, at);
    });
  }

  // Layout: fixed regions first, then the intermediates by lifetime (best fit), then aliases at their roots.
  let offset = 0;
  for (const kind of ['constant', 'input', 'output'] as const) {
    buffers.forEach((b, id) => {
      if (region.get(id) !== kind) return;
      b.offset = offset;
      offset = alignUp(offset + b.bytes, alignment);
    });
  }
  const requests: OffsetRequest[] = [];
  // Buffers no step reads or writes any more (a folded Transpose's output, Q/K/V before their merge)
  // take no memory: they sit at offset 0, and the arena is at least as large as the largest of them.
  let unusedBytes = 0;
  buffers.forEach((b, id) => {
    if (region.get(id) !== 'temp' || aliases.aliasOf.has(id)) return;
    if (!lifetime.has(id)) {
      b.offset = 0;
      unusedBytes = Math.max(unusedBytes, b.bytes);
      return;
    }
    const l = lifetime.get(id)!;
    requests.push({ name: String(id), bytes: alignUp(Math.max(b.bytes, 1), alignment), start: l.start, end: l.end });
  });
  // Step workspaces live during their step only: every buffer the step touches is live then, so none overlaps them.
  const workspaceBytes = new Map<number, number>();
  steps.forEach((s, at) => {
    const bytes = im2colBytes(s, buffers) || splitWorkspaceBytes(s, buffers) || lstmWorkspaceBytes(s) || quantizeWorkspaceBytes(s);
    if (bytes === 0) return;
    workspaceBytes.set(at, bytes);
    requests.push({ name: `workspace:${at}`, bytes: alignUp(bytes, alignment), start: at, end: at });
  });
  const temps = assignOffsets(requests);
  for (const [name, off] of temps.offsets) {
    if (name.startsWith('workspace:')) {
      const at = Number(name.slice('workspace:'.length));
      steps[at].workspace = { offset: offset + off, bytes: workspaceBytes.get(at)! };
    } else buffers[Number(name)].offset = offset + off;
  }
  for (const [alias, root] of aliases.aliasOf) buffers[alias].offset = buffers[root].offset;
  const arenaBytes = Math.max(offset + temps.arenaBytes, unusedBytes);

  return { deviceId: options.deviceId, arenaBytes, captureGraph: options.captureGraph, tuning: options.tuning ?? 2, buffers, constants, inputs, outputs, steps };
}
