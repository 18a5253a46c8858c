/**
 * Elementwise programs: the instruction set the native engine runs (native/src/elementwise_ops.h, by
 * the same names), with each instruction's TypeScript meaning. One program serves a single ONNX op and
 * a fused chain (com.switchyard::FusedElementwise) alike.
 *
 * Values: program input i is value i; instruction k defines value `inputs + k`; the last instruction's
 * value is the output, broadcast (numpy rules) to the shape of all inputs together. Every value is a
 * float32 (bool inputs read as 0 / 1, comparisons yield 0 / 1). The functions below are the TS kernels'
 * expressions (src/kernels/*.ts), evaluated in doubles and rounded to float32 per instruction, as when
 * each op runs as its own node.
 */
import type { BroadcastPlan } from '../math/broadcast.js';
import { binaryLoop, unaryLoop } from '../math/codegen.js';

/**
 * Unary instructions as expressions in `x` and the parameters `alpha`, `beta` (math/codegen.ts compiles
 * one loop per expression: a shared loop calling a function per op would go megamorphic).
 */
const UNARY = {
  relu: 'x < 0 ? 0 : x',
  leaky_relu: 'x < 0 ? alpha * x : x',
  clip_range: 'x < alpha ? alpha : x > beta ? beta : x',
  sigmoid: 'sigmoid(x)',
  hard_sigmoid: 'Math.max(0, Math.min(1, alpha * x + beta))',
  hard_swish: 'x * Math.max(0, Math.min(1, x / 6 + 0.5))',
  tanh: 'Math.tanh(x)',
  erf: 'erf(x)',
  exp: 'Math.exp(x)',
  log: 'Math.log(x)',
  sqrt: 'Math.sqrt(x)',
  abs: 'Math.abs(x)',
  neg: '-x',
  reciprocal: '1 / x',
  floor: 'Math.floor(x)',
  ceil: 'Math.ceil(x)',
  round: 'roundHalfEven(x)',
  sign: 'Math.sign(x)',
  elu: 'x < 0 ? alpha * Math.expm1(x) : x',
  selu: 'x <= 0 ? beta * alpha * Math.expm1(x) : beta * x', // beta: gamma
  celu: 'Math.max(0, x) + Math.min(0, alpha * Math.expm1(x / alpha))',
  softplus: 'softplus(x)',
  softsign: 'x / (1 + Math.abs(x))',
  mish: 'x * Math.tanh(softplus(x))',
  thresholded_relu: 'x > alpha ? x : 0',
  sin: 'Math.sin(x)',
  cos: 'Math.cos(x)',
  gelu: 'gelu(x)',
  gelu_tanh: 'geluTanh(x)',
  swish: 'x * sigmoid(x)',
  square: 'x * x',
  cube: 'x * x * x',
  identity: 'x',
} as const;

/** Binary instructions as expressions in `x`, `y`. */
const BINARY = {
  add: 'x + y',
  sub: 'x - y',
  mul: 'x * y',
  div: 'x / y',
  pow: 'Math.pow(x, y)',
  max: 'Math.max(x, y)',
  min: 'Math.min(x, y)',
  prelu: 'x < 0 ? x * y : x',
  equal: 'x === y ? 1 : 0',
  less: 'x < y ? 1 : 0',
  greater: 'x > y ? 1 : 0',
  less_equal: 'x <= y ? 1 : 0',
  greater_equal: 'x >= y ? 1 : 0',
} as const;

type Ternary = (out: Float32Array, a: Float32Array, b: Float32Array, c: Float32Array, n: number) => void;

const TERNARY = {
  clip: (out, x, lo, hi, n) => {
    for (let j = 0; j < n; j++) out[j] = x[j] < lo[j] ? lo[j] : x[j] > hi[j] ? hi[j] : x[j];
  },
  where: (out, c, x, y, n) => {
    for (let j = 0; j < n; j++) out[j] = c[j] !== 0 ? x[j] : y[j];
  },
} satisfies Record<string, Ternary>;

export type UnaryOp = keyof typeof UNARY;
export type BinaryOp = keyof typeof BINARY;
export type TernaryOp = keyof typeof TERNARY;
export type ElementwiseOp = UnaryOp | BinaryOp | TernaryOp | 'const';

/** One instruction; `args` are value indices (as many as the op's arity). */
export interface ElementwiseInstruction {
  op: ElementwiseOp;
  args: number[];
  /** leaky_relu / elu / celu / thresholded_relu: alpha; clip_range: min; hard_sigmoid: alpha; selu: alpha. */
  alpha?: number;
  /** clip_range: max; hard_sigmoid: beta; selu: gamma. */
  beta?: number;
  /** const: the value. */
  value?: number;
}

export type ProgramElementType = 'float32' | 'bool';

export interface ElementwiseProgram {
  /** The element type of each program input. */
  inputTypes: ProgramElementType[];
  instructions: ElementwiseInstruction[];
  outputType: ProgramElementType;
}

/** Instructions whose TS form calls Math.exp / Math.log / a series per element (the native engine pays off sooner). */
const TRANSCENDENTAL: ReadonlySet<ElementwiseOp> = new Set<ElementwiseOp>([
  'sigmoid', 'tanh', 'erf', 'exp', 'log', 'elu', 'selu', 'celu', 'softplus', 'mish', 'sin', 'cos', 'gelu', 'gelu_tanh', 'swish', 'pow',
]);

export function hasTranscendental(program: ElementwiseProgram): boolean {
  return program.instructions.some((i) => TRANSCENDENTAL.has(i.op));
}

export function isElementwiseOp(name: string): name is ElementwiseOp {
  return name === 'const' || name in UNARY || name in BINARY || name in TERNARY;
}

export function arityOf(op: ElementwiseOp): number {
  if (op === 'const') return 0;
  if (op in UNARY) return 1;
  if (op in BINARY) return 2;
  return 3;
}

/** Why `program` is malformed (undefined when it is not): the checks the native engine also makes. */
export function programFault(program: ElementwiseProgram): string | undefined {
  const inputs = program.inputTypes.length;
  if (program.instructions.length === 0) return 'the program has no instructions';
  const read = new Array<boolean>(inputs).fill(false);
  for (let k = 0; k < program.instructions.length; k++) {
    const { op, args } = program.instructions[k];
    if (!isElementwiseOp(op)) return `instruction ${k}: unknown op '${String(op)}'`;
    if (args.length !== arityOf(op)) return `instruction ${k} (${op}) takes ${arityOf(op)} argument(s), got ${args.length}`;
    for (const a of args) {
      if (!Number.isInteger(a) || a < 0 || a >= inputs + k) return `instruction ${k} (${op}) reads value ${a}, which is not defined before it`;
      if (a < inputs) read[a] = true;
    }
  }
  const unread = read.indexOf(false);
  return unread >= 0 ? `input ${unread} is read by no instruction` : undefined;
}

/** Output elements per block of the TS evaluator: its value arrays stay small however large the output. */
const BLOCK = 1024;
const PARAMS = ['alpha', 'beta'];
/** One row at offset 0: a block is a contiguous run for codegen's binary loop. */
const ROW = new Int32Array(1);

/** One instruction over a block: `values` holds every value's block, `n` elements each. */
type BlockStep = (values: Float32Array[], n: number) => void;

function compileStep(ins: ElementwiseInstruction, value: number): BlockStep {
  const [a, b, c] = ins.args;
  if (ins.op === 'const') {
    const v = ins.value ?? 0;
    return (values) => values[value].fill(v);
  }
  if (ins.op in UNARY) {
    const loop = unaryLoop(UNARY[ins.op as UnaryOp], 'value', 'f32', PARAMS);
    const params = [ins.alpha ?? 0, ins.beta ?? 0];
    return (values, n) => loop(values[a], values[value], n, params);
  }
  if (ins.op in BINARY) {
    const loop = binaryLoop(BINARY[ins.op as BinaryOp], 'value', 'f32');
    return (values, n) => loop(values[a], values[b], values[value], 1, n, ROW, ROW, 1, 1, []);
  }
  const loop = TERNARY[ins.op as TernaryOp];
  return (values, n) => loop(values[value], values[a], values[b], values[c], n);
}

/**
 * A program ready to evaluate (its loops looked up once). `run` writes the output (float32, or bool
 * bytes for a bool program) with the inputs broadcast by `plan` (math/broadcast.ts, planned over the
 * inputs' dims in program order), block by block: every instruction runs over a block before the next,
 * rounding to float32 as a node would.
 */
export class ProgramEvaluator {
  readonly #inputs: number;
  readonly #steps: BlockStep[];

  constructor(program: ElementwiseProgram) {
    this.#inputs = program.inputTypes.length;
    this.#steps = program.instructions.map((ins, k) => compileStep(ins, this.#inputs + k));
  }

  run(inputs: readonly (Float32Array | Uint8Array)[], plan: BroadcastPlan, out: Float32Array | Uint8Array): void {
    const values: Float32Array[] = [];
    const block = Math.min(BLOCK, plan.size);
    for (let k = 0; k < this.#inputs + this.#steps.length; k++) values.push(new Float32Array(block));
    const result = values[values.length - 1];
    for (let start = 0; start < plan.size; start += BLOCK) {
      const n = Math.min(BLOCK, plan.size - start);
      for (let i = 0; i < this.#inputs; i++) gather(inputs[i], plan.offsets[i], plan.innerStrides[i], plan.inner, start, n, values[i]);
      for (const step of this.#steps) step(values, n);
      if (out instanceof Uint8Array) for (let j = 0; j < n; j++) out[start + j] = result[j] !== 0 ? 1 : 0;
      else out.set(n === block ? result : result.subarray(0, n), start);
    }
  }
}

/** Output elements [start, start + n) of one broadcast input, as floats (bool bytes as 0 / 1). */
function gather(data: Float32Array | Uint8Array, offsets: Int32Array, stride: number, inner: number, start: number, n: number, dst: Float32Array): void {
  let row = Math.floor(start / inner);
  let col = start - row * inner;
  for (let j = 0; j < n; j++) {
    dst[j] = data[offsets[row] + col * stride];
    if (++col === inner) {
      col = 0;
      row++;
    }
  }
}
