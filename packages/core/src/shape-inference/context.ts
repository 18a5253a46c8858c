/**
 * What a shape rule sees of one node: its inputs' types and known values, typed attributes, the
 * opset in force, and the output slots it fills. Rules only describe; the walker records.
 */
import { AttributeReader } from '../ir/attributes.js';
import type { Dim, Graph, Node, ValueType } from '../ir/graph.js';
import type { DataType } from '../tensor/data-type.js';
import { type KnownValue, type KnownValueStore, isFullyKnown } from './known-values.js';

export type WarningSink = (message: string) => void;

/**
 * Runs inference over a subgraph after seeding its inputs with `inputTypes` (where they are more
 * specific than what the subgraph declares). Supplied by the walker so rules need not import it.
 */
export type SubgraphInferrer = (body: Graph, inputTypes: readonly (ValueType | undefined)[]) => void;

export class InferContext {
  readonly node: Node;
  readonly graph: Graph;
  readonly opset: number;
  readonly attrs: AttributeReader;
  /** Output types so far: schema-derived dtypes first, then whatever the op's rule adds. */
  readonly outputs: (ValueType | undefined)[];
  /** Known contents of outputs, for the value rules of later nodes. */
  readonly outputValues: (KnownValue | undefined)[];
  readonly values: KnownValueStore;
  readonly #warn: WarningSink;
  readonly #inferSubgraph: SubgraphInferrer;
  /** Set by rules that ran inference on the node's subgraphs themselves. */
  subgraphsDone = false;
  /** Whether ONNX has a schema for the op; without one, outputs default to input 0's element type. */
  hasSchema = false;

  constructor(node: Node, graph: Graph, values: KnownValueStore, warn: WarningSink, inferSubgraph: SubgraphInferrer) {
    this.node = node;
    this.graph = graph;
    this.values = values;
    // Without an import for the domain, read the newest schema: better than nothing for dtypes.
    this.opset = graph.opsetFor(node.domain) ?? Number.MAX_SAFE_INTEGER;
    this.attrs = new AttributeReader(node);
    this.outputs = node.outputs.map(() => undefined);
    this.outputValues = node.outputs.map(() => undefined);
    this.#warn = warn;
    this.#inferSubgraph = inferSubgraph;
  }

  /** Infers a subgraph of this node with its inputs seeded (see `SubgraphInferrer`). */
  inferSubgraph(body: Graph, inputTypes: readonly (ValueType | undefined)[]): void {
    this.subgraphsDone = true;
    this.#inferSubgraph(body, inputTypes);
  }

  get inputCount(): number {
    return this.node.inputs.length;
  }

  /** Whether actual input `i` is present (not omitted with ''). */
  hasInput(i: number): boolean {
    const name = this.node.inputs[i];
    return name !== undefined && name !== '';
  }

  hasOutput(i: number): boolean {
    const name = this.node.outputs[i];
    return name !== undefined && name !== '';
  }

  type(i: number): ValueType | undefined {
    return this.hasInput(i) ? this.graph.typeOf(this.node.inputs[i]) : undefined;
  }

  elemType(i: number): DataType | undefined {
    const t = this.type(i);
    return t?.kind === 'tensor' ? t.elemType : undefined;
  }

  /** Shape of tensor input `i` (a copy), when its rank is known. */
  shape(i: number): Dim[] | undefined {
    const t = this.type(i);
    return t?.kind === 'tensor' && t.shape ? [...t.shape] : undefined;
  }

  rank(i: number): number | undefined {
    return this.shape(i)?.length;
  }

  /** Known contents of input `i`, possibly with symbolic elements. */
  value(i: number): KnownValue | undefined {
    return this.hasInput(i) ? this.values.get(this.node.inputs[i]) : undefined;
  }

  /** Input `i`'s elements when all are known integers (flattened). */
  ints(i: number): number[] | undefined {
    const v = this.value(i);
    return isFullyKnown(v) && v.values.every(Number.isInteger) ? v.values : undefined;
  }

  /** Input `i`'s elements when all are known numbers (flattened). */
  numbers(i: number): number[] | undefined {
    const v = this.value(i);
    return isFullyKnown(v) ? v.values : undefined;
  }

  /** The single element of a known scalar (or one-element) input. */
  scalar(i: number): number | undefined {
    const n = this.numbers(i);
    return n && n.length === 1 ? n[0] : undefined;
  }

  /** Element type of output `i` as derived so far. */
  outputElemType(i: number): DataType | undefined {
    const t = this.outputs[i];
    return t?.kind === 'tensor' ? t.elemType : undefined;
  }

  /**
   * Sets output `i` to a tensor of `shape`. The element type is `elemType`, else what the schema
   * gave, else (for ops without a schema) input 0's. Without any element type the output stays unknown.
   */
  setShape(i: number, shape: Dim[] | undefined, elemType?: DataType): void {
    const t = elemType ?? this.outputElemType(i) ?? (this.hasSchema ? undefined : this.elemType(0));
    if (t === undefined || i >= this.outputs.length) return;
    this.outputs[i] = shape ? { kind: 'tensor', elemType: t, shape } : { kind: 'tensor', elemType: t };
  }

  setElemType(i: number, elemType: DataType): void {
    const prev = this.outputs[i];
    const shape = prev?.kind === 'tensor' ? prev.shape : undefined;
    if (i < this.outputs.length) this.outputs[i] = shape ? { kind: 'tensor', elemType, shape } : { kind: 'tensor', elemType };
  }

  setType(i: number, type: ValueType | undefined): void {
    if (i < this.outputs.length) this.outputs[i] = type;
  }

  setValue(i: number, value: KnownValue | undefined): void {
    if (i < this.outputValues.length) this.outputValues[i] = value;
  }

  warn(message: string): void {
    this.#warn(`node '${this.node.name}' (${this.node.opType}): ${message}`);
  }
}

/** A per-op shape rule: reads the context, fills `outputs`. */
export type ShapeRule = (ctx: InferContext) => void;
