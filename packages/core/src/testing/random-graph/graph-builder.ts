/**
 * Grows a valid graph one node at a time, knowing the concrete shape, element type and rough
 * magnitude of every value, so every generated node is well typed and every product stays finite.
 */
import { Graph, type AttributeValue, type Node } from '../../ir/graph.js';
import { float32ToFloat16Bits } from '../../tensor/float16.js';
import { Tensor } from '../../tensor/tensor.js';
import { toAttribute, type PlainAttribute } from '../kernel-harness.js';
import type { Random } from './random.js';

export type RandomDType = 'float32' | 'float16' | 'int64' | 'bool';

export interface RandomValue {
  readonly name: string;
  readonly dtype: RandomDType;
  readonly shape: readonly number[];
  /** A rough bound on |element|: multiplying ops stay away from operands that would overflow. */
  readonly mag: number;
  /**
   * Computed bit-identically at every optimization level, so compared exactly: integer values and
   * elements moved or selected from exact values. Float results may be fused, and fusions round
   * differently; float16 arithmetic too, since an EP may compute it in float32 (the CPU EP does from
   * 'extended' on, dropping the float16 rounding between ops).
   */
  readonly exact: boolean;
  /**
   * Computed through float16 arithmetic (or a Cast to float16): an EP computing float16 in float32
   * changes its rounding by float16's precision, which the comparison allows for.
   */
  readonly viaFloat16?: boolean;
  /** The tensor, when the value is an initializer or a Constant node's output (it may fold). */
  readonly constant?: Tensor;
}

export interface OutputSpec {
  dtype: RandomDType;
  shape: readonly number[];
  mag: number;
  /** Default: every input exact and the op exact for this dtype (see `RandomValue.exact`). */
  exact?: boolean;
}

/** Element types whose arithmetic no optimization level may change: the integers and bool. */
const EXACT_ARITHMETIC = new Set(['int64', 'int32', 'int8', 'uint8', 'bool']);

/** Ops that only move, select or compare elements: the result is exact when the inputs are. */
const SELECTING_OPS = new Set([
  'Identity', 'Dropout', 'Reshape', 'Flatten', 'Transpose', 'Concat', 'Slice', 'Gather', 'Squeeze', 'Unsqueeze',
  'Expand', 'Split', 'Shape', 'MaxPool', 'GlobalMaxPool', 'ReduceMax', 'Relu', 'Abs', 'Neg', 'Cast',
]);

/** Beyond this, a value is squashed (Tanh) before anything multiplies it. */
export const MAG_LIMIT = 6;

/** An attribute as plain JS or as the IR's value; undefined ones are left out. */
type Attr = PlainAttribute | AttributeValue | undefined;

function isAttributeValue(a: PlainAttribute | AttributeValue): a is AttributeValue {
  return typeof a === 'object' && a !== null && !Array.isArray(a) && 'type' in a && 'value' in a && !(a instanceof Tensor);
}

export function elementsOf(shape: readonly number[]): number {
  return shape.reduce((p, d) => p * d, 1);
}

export class GraphBuilder {
  readonly rng: Random;
  readonly graph: Graph;
  /** Every value a new node may read, oldest first. */
  readonly values: RandomValue[] = [];
  /** Graph inputs and the data fed to them. */
  readonly feeds: Map<string, Tensor>;
  /** Shared with builders of subgraphs, so names are unique across scopes. */
  readonly #counter: { next: number };

  constructor(rng: Random, graph: Graph, parent?: GraphBuilder) {
    this.rng = rng;
    this.graph = graph;
    this.#counter = parent ? parent.#counter : { next: 0 };
    this.feeds = parent ? parent.feeds : new Map();
  }

  /** A builder for a subgraph of this graph: it may read every value read here (outer-scope reads). */
  child(graph: Graph): GraphBuilder {
    const sub = new GraphBuilder(this.rng, graph, this);
    sub.values.push(...this.values);
    return sub;
  }

  /** The default-domain opset the model imports. */
  get opset(): number {
    return this.graph.opsetFor('') ?? 17;
  }

  /**
   * ReduceMean / ReduceMax / ReduceMin over `axes` (all axes when undefined): the axes are an
   * attribute before opset 18 and an input from 18 on.
   */
  reduce(op: string, x: RandomValue, axes: readonly number[] | undefined, output: OutputSpec, attributes: Record<string, Attr> = {}): RandomValue {
    if (!axes) return this.op(op, [x], output, attributes);
    if (this.opset >= 18) return this.op(op, [x, this.constant(this.int64s(axes), 'axes')], output, attributes);
    return this.op(op, [x], output, { ...attributes, axes: [...axes] });
  }

  /** A fresh value or node name. */
  fresh(hint: string): string {
    return `${hint}_${this.#counter.next++}`;
  }

  /** Takes values out of the pool: nothing reads them from now on (a dead branch stays dead). */
  retire(values: readonly RandomValue[]): void {
    const gone = new Set(values);
    const kept = this.values.filter((v) => !gone.has(v));
    this.values.length = 0;
    this.values.push(...kept);
  }

  /** A graph input with random data; `declared` may name dims symbolically (the feed is concrete). */
  input(dtype: 'float32' | 'bool', shape: readonly number[], declared?: ReadonlyArray<number | string>): RandomValue {
    const name = this.fresh(dtype === 'bool' ? 'cond' : 'x');
    this.graph.inputs.push({ name, type: { kind: 'tensor', elemType: dtype, shape: [...(declared ?? shape)] } });
    const n = elementsOf(shape);
    const feed = dtype === 'bool' ? new Tensor('bool', Uint8Array.from({ length: n }, () => (this.rng.chance(0.5) ? 1 : 0)), [...shape]) : this.floats(shape, -1, 1);
    this.feeds.set(name, feed);
    return this.#add({ name, dtype, shape: [...shape], mag: 1, exact: true });
  }

  /** An input of a subgraph (a Loop body's iteration count, condition or carried value): no feed. */
  bodyInput(dtype: RandomDType, shape: readonly number[], mag: number): RandomValue {
    const name = this.fresh(`${dtype === 'float32' ? 'v' : dtype}_in`);
    this.graph.inputs.push({ name, type: { kind: 'tensor', elemType: dtype, shape: [...shape] } });
    return this.#add({ name, dtype, shape: [...shape], mag, exact: false });
  }

  floats(shape: readonly number[], lo: number, hi: number): Tensor<'float32'> {
    return new Tensor('float32', Float32Array.from({ length: elementsOf(shape) }, () => this.rng.float(lo, hi)), [...shape]);
  }

  float16s(shape: readonly number[], lo: number, hi: number): Tensor<'float16'> {
    return new Tensor('float16', Uint16Array.from({ length: elementsOf(shape) }, () => float32ToFloat16Bits(this.rng.float(lo, hi))), [...shape]);
  }

  int64s(values: ReadonlyArray<number | bigint>, shape: readonly number[] = [values.length]): Tensor<'int64'> {
    return new Tensor('int64', BigInt64Array.from(values, (v) => BigInt(v)), [...shape]);
  }

  /**
   * A constant, as an initializer or a Constant node (both fold into initializers at 'basic'). Rarely
   * a float weight initializer is also a graph input, fed other data: only a default, so nothing may
   * fold it or pack it.
   */
  constant(tensor: Tensor, hint = 'c', mag = magnitudeOf(tensor)): RandomValue {
    const dtype = tensor.type as RandomDType;
    if (this.rng.chance(0.75)) {
      const name = this.fresh(hint);
      this.graph.initializers.set(name, tensor);
      // Not for one-element constants (ratios, bounds, epsilons): other values there make other ops.
      if (dtype === 'float32' && tensor.size > 1 && this.graph.parent === undefined && this.rng.chance(0.03)) {
        this.graph.inputs.push({ name, type: { kind: 'tensor', elemType: dtype, shape: [...tensor.dims] } });
        const fed = this.floats(tensor.dims, -mag, mag);
        this.feeds.set(name, fed);
        return this.#add({ name, dtype, shape: [...tensor.dims], mag, exact: true });
      }
      return this.#add({ name, dtype, shape: [...tensor.dims], mag, exact: true, constant: tensor });
    }
    const [value] = this.node('Constant', [], [{ dtype, shape: tensor.dims, mag, exact: true }], { value: tensor });
    return { ...value, constant: tensor };
  }

  /** Adds a node reading `inputs` ('' for an omitted optional input) and returns its outputs. */
  node(op: string, inputs: ReadonlyArray<RandomValue | ''>, outputs: readonly OutputSpec[], attributes: Record<string, Attr> = {}, domain = ''): RandomValue[] {
    for (const o of outputs) {
      // A generator's shape arithmetic gone wrong would only show later, as a confusing kernel error.
      // (Constants may be empty: an empty shape vector, say.)
      if (!o.shape.every((d) => Number.isInteger(d) && d >= (op === 'Constant' ? 0 : 1))) throw new Error(`random graph: ${op} output shape [${o.shape.join(', ')}] is not valid`);
    }
    const read = inputs.filter((v): v is RandomValue => v !== '');
    const exactInputs = read.every((v) => v.exact);
    const float16Inputs = read.some((v) => v.viaFloat16);
    const values = outputs.map((o) => {
      const selecting = SELECTING_OPS.has(op) && !(op === 'Cast' && o.dtype === 'float16');
      const exactOp = selecting || EXACT_ARITHMETIC.has(o.dtype);
      const viaFloat16 = float16Inputs || (o.dtype === 'float16' && !selecting);
      return { name: this.fresh(op.toLowerCase()), dtype: o.dtype, shape: [...o.shape], mag: o.mag, exact: o.exact ?? (exactInputs && exactOp && !viaFloat16), viaFloat16 };
    });
    this.#emit(op, inputs.map((v) => (v === '' ? '' : v.name)), values.map((v) => v.name), attributes, domain);
    return values.map((v) => this.#add(v));
  }

  /** One-output shorthand for `node`. */
  op(op: string, inputs: ReadonlyArray<RandomValue | ''>, output: OutputSpec, attributes: Record<string, Attr> = {}): RandomValue {
    return this.node(op, inputs, [output], attributes)[0];
  }

  /** Repeats an existing node under fresh output names (a common subexpression). */
  duplicate(node: Node): RandomValue[] {
    const outputs = node.outputs.map((o) => (o ? this.fresh(`${o}_dup`) : ''));
    const copy = this.#emit(node.opType, [...node.inputs], outputs, {}, node.domain);
    for (const [k, v] of node.attributes) copy.attributes.set(k, v);
    const added: RandomValue[] = [];
    node.outputs.forEach((o, i) => {
      const original = this.values.find((v) => v.name === o);
      if (original && outputs[i]) added.push(this.#add({ ...original, name: outputs[i], constant: undefined }));
    });
    return added;
  }

  /** A float32 operand: recent values are likelier, so chains grow deep as well as wide. */
  pickFloat(accept: (v: RandomValue) => boolean = () => true): RandomValue | undefined {
    const ok = this.values.filter((v) => v.dtype === 'float32' && accept(v));
    if (ok.length === 0) return undefined;
    return this.rng.chance(0.6) ? this.rng.pick(ok.slice(-4)) : this.rng.pick(ok);
  }

  /** `v`, squashed by Tanh when it is too large to multiply. */
  tame(v: RandomValue): RandomValue {
    if (v.mag <= MAG_LIMIT || v.dtype !== 'float32') return v;
    return this.op(this.rng.pick(['Tanh', 'Sigmoid']), [v], { dtype: 'float32', shape: v.shape, mag: 1 });
  }

  #emit(opType: string, inputs: string[], outputs: string[], attributes: Record<string, Attr>, domain: string): Node {
    const attrs = new Map<string, AttributeValue>();
    for (const [k, a] of Object.entries(attributes)) if (a !== undefined) attrs.set(k, isAttributeValue(a) ? a : toAttribute(a));
    // Exported models often leave nodes unnamed.
    const name = this.rng.chance(0.2) ? '' : this.fresh(`n_${opType}`);
    return this.graph.addNode({ opType, domain, name, inputs, outputs, attributes: attrs });
  }

  #add(v: RandomValue): RandomValue {
    this.values.push(v);
    return v;
  }
}

/** Largest |element| of a numeric tensor (0 for an empty one). */
export function magnitudeOf(t: Tensor): number {
  if (t.type !== 'float32') return 1;
  let m = 0;
  for (const x of t.data as Float32Array) m = Math.max(m, Math.abs(x));
  return m;
}
