/**
 * The elementwise program of one ONNX node (as its TS kernel computes it): which node inputs feed it,
 * the instructions, and the shape rules older opsets add on top of numpy broadcasting.
 */
import type { AttributeReader, Node } from '@switchyard/core';
import type { BinaryOp, ElementwiseInstruction, ElementwiseProgram, UnaryOp } from './program.js';

export interface NodeProgram {
  /** The node input each program input reads (indices into node.inputs, present ones only). */
  inputs: number[];
  program: ElementwiseProgram;
  /** Program inputs that must hold exactly one element (Clip's bounds; the TS kernel reports others). */
  scalarInputs: number[];
  /** How program input 1's dims are adjusted before broadcasting (pre-opset-7 rules). */
  legacy?: { kind: 'axis'; axis: number } | { kind: 'slope' };
}

type Params = (attrs: AttributeReader) => [number, number];

/** ONNX unary ops (default domain) and their instruction, with its parameters from the attributes. */
const UNARY: Readonly<Record<string, { op: UnaryOp; params?: Params }>> = {
  Relu: { op: 'relu' },
  LeakyRelu: { op: 'leaky_relu', params: (a) => [a.float('alpha', 0.01), 0] },
  Sigmoid: { op: 'sigmoid' },
  HardSigmoid: { op: 'hard_sigmoid', params: (a) => [a.float('alpha', 0.2), a.float('beta', 0.5)] },
  HardSwish: { op: 'hard_swish' },
  Tanh: { op: 'tanh' },
  Erf: { op: 'erf' },
  Exp: { op: 'exp' },
  Log: { op: 'log' },
  Sqrt: { op: 'sqrt' },
  Abs: { op: 'abs' },
  Neg: { op: 'neg' },
  Reciprocal: { op: 'reciprocal' },
  Floor: { op: 'floor' },
  Ceil: { op: 'ceil' },
  Round: { op: 'round' },
  Sign: { op: 'sign' },
  Elu: { op: 'elu', params: (a) => [a.float('alpha', 1.0), 0] },
  Selu: { op: 'selu', params: (a) => [a.float('alpha', 1.6732631921768188), a.float('gamma', 1.0507010221481323)] },
  Celu: { op: 'celu', params: (a) => [a.float('alpha', 1.0), 0] },
  Softplus: { op: 'softplus' },
  Softsign: { op: 'softsign' },
  Mish: { op: 'mish' },
  ThresholdedRelu: { op: 'thresholded_relu', params: (a) => [a.float('alpha', 1.0), 0] },
  Sin: { op: 'sin' },
  Cos: { op: 'cos' },
};

/** Binary ops; `legacyAxis`: the TS kernel honours pre-opset-7 `broadcast` / `axis` (binaryKernel does, Pow does not). */
const BINARY: Readonly<Record<string, { op: BinaryOp; bool?: boolean; legacyAxis?: boolean }>> = {
  Add: { op: 'add', legacyAxis: true },
  Sub: { op: 'sub', legacyAxis: true },
  Mul: { op: 'mul', legacyAxis: true },
  Div: { op: 'div', legacyAxis: true },
  Pow: { op: 'pow' },
  PRelu: { op: 'prelu' },
  Equal: { op: 'equal', bool: true, legacyAxis: true },
  Less: { op: 'less', bool: true, legacyAxis: true },
  Greater: { op: 'greater', bool: true, legacyAxis: true },
  LessOrEqual: { op: 'less_equal', bool: true },
  GreaterOrEqual: { op: 'greater_equal', bool: true },
};

/** Variadic ops: a left fold of the binary instruction (Mean then divides by the count). */
const VARIADIC: Readonly<Record<string, BinaryOp>> = { Sum: 'add', Mean: 'add', Max: 'max', Min: 'min' };

export const ELEMENTWISE_ONNX_OPS: readonly string[] = [...Object.keys(UNARY), ...Object.keys(BINARY), ...Object.keys(VARIADIC), 'Clip', 'Where'];

function floats(n: number): ElementwiseProgram['inputTypes'] {
  return new Array(n).fill('float32');
}

function single(op: UnaryOp, alpha = 0, beta = 0): NodeProgram {
  return { inputs: [0], program: { inputTypes: ['float32'], instructions: [{ op, args: [0], alpha, beta }], outputType: 'float32' }, scalarInputs: [] };
}

/** The positions of the node's present inputs (an omitted optional input is ''). */
function presentInputs(node: Node): number[] {
  const present: number[] = [];
  node.inputs.forEach((name, i) => name && present.push(i));
  return present;
}

function clipProgram(node: Node, opset: number, attrs: AttributeReader): NodeProgram {
  if (opset < 11) return single('clip_range', attrs.float('min', -Infinity), attrs.float('max', Infinity));
  const inputs = [0, ...[1, 2].filter((i) => node.inputs[i])];
  const n = inputs.length;
  const instructions: ElementwiseInstruction[] = [];
  // A bound given as an input is that input; an omitted one is an infinite constant.
  const bound = (i: number, fallback: number): number => {
    const k = inputs.indexOf(i);
    if (k >= 0) return k;
    instructions.push({ op: 'const', args: [], value: fallback });
    return n + instructions.length - 1;
  };
  const lo = bound(1, -Infinity);
  const hi = bound(2, Infinity);
  instructions.push({ op: 'clip', args: [0, lo, hi] });
  return { inputs, program: { inputTypes: floats(n), instructions, outputType: 'float32' }, scalarInputs: inputs.map((_, k) => k).slice(1) };
}

function variadicProgram(node: Node, op: BinaryOp, mean: boolean): NodeProgram | string {
  const inputs = presentInputs(node);
  if (inputs.length < 2) return `${node.opType} of ${inputs.length} input(s) is a copy: the TS kernel does it`;
  const n = inputs.length;
  const instructions: ElementwiseInstruction[] = [{ op, args: [0, 1] }];
  for (let i = 2; i < n; i++) instructions.push({ op, args: [n + instructions.length - 1, i] });
  if (mean) {
    instructions.push({ op: 'const', args: [], value: n });
    instructions.push({ op: 'div', args: [n + instructions.length - 2, n + instructions.length - 1] });
  }
  return { inputs, program: { inputTypes: floats(n), instructions, outputType: 'float32' }, scalarInputs: [] };
}

/** The program of an elementwise node, or why it has none. */
export function nodeProgram(node: Node, opset: number, attrs: AttributeReader): NodeProgram | string {
  if (node.domain === 'com.microsoft') {
    if (node.opType === 'Gelu') return single('gelu');
    if (node.opType === 'FastGelu') {
      if (!node.inputs[1]) return single('gelu_tanh');
      return {
        inputs: [0, 1],
        program: { inputTypes: floats(2), instructions: [{ op: 'add', args: [0, 1] }, { op: 'gelu_tanh', args: [2] }], outputType: 'float32' },
        scalarInputs: [],
      };
    }
    return `com.microsoft ${node.opType} is not elementwise`;
  }
  if (node.domain !== '' && node.domain !== 'ai.onnx') return `${node.domain} ${node.opType} is not elementwise`;
  const unary = UNARY[node.opType];
  if (unary) {
    const [alpha, beta] = unary.params?.(attrs) ?? [0, 0];
    return single(unary.op, alpha, beta);
  }
  const binary = BINARY[node.opType];
  if (binary) {
    const program: ElementwiseProgram = { inputTypes: floats(2), instructions: [{ op: binary.op, args: [0, 1] }], outputType: binary.bool ? 'bool' : 'float32' };
    const result: NodeProgram = { inputs: [0, 1], program, scalarInputs: [] };
    if (opset < 7 && node.opType === 'PRelu') result.legacy = { kind: 'slope' };
    else if (opset < 7 && binary.legacyAxis && attrs.int('broadcast', 0) !== 0 && attrs.has('axis')) result.legacy = { kind: 'axis', axis: attrs.int('axis') };
    return result;
  }
  const variadic = VARIADIC[node.opType];
  if (variadic) return variadicProgram(node, variadic, node.opType === 'Mean');
  if (node.opType === 'Clip') return clipProgram(node, opset, attrs);
  if (node.opType === 'Where') {
    return { inputs: [0, 1, 2], program: { inputTypes: ['bool', 'float32', 'float32'], instructions: [{ op: 'where', args: [0, 1, 2] }], outputType: 'float32' }, scalarInputs: [] };
  }
  return `${node.opType} is not elementwise`;
}
