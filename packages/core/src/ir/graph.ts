/**
 * The graph IR: what the optimizer, partitioner, shape inference and EPs work on.
 * A `Graph` owns its nodes in topological order; subgraphs (If/Loop/Scan bodies) are attribute values.
 */
import type { DataType } from '../tensor/data-type.js';
import type { Tensor } from '../tensor/tensor.js';

/** A dimension: a fixed size, a symbolic name (`batch`), or unknown (`undefined`). */
export type Dim = number | string | undefined;

/** Static type of a value: a tensor, a sequence of tensors, an optional, or a map we keep opaque. */
export type ValueType =
  | { kind: 'tensor'; elemType: DataType; shape?: Dim[] }
  | { kind: 'sequence'; elem?: ValueType }
  | { kind: 'optional'; elem?: ValueType }
  | { kind: 'map' | 'opaque' | 'unknown' };

export interface ValueInfo {
  name: string;
  type?: ValueType;
  docString?: string;
}

export type AttributeType =
  | 'float'
  | 'int'
  | 'string'
  | 'tensor'
  | 'graph'
  | 'sparse_tensor'
  | 'type_proto'
  | 'floats'
  | 'ints'
  | 'strings'
  | 'tensors'
  | 'graphs'
  | 'sparse_tensors'
  | 'type_protos';

export type AttributeValue =
  | { type: 'float'; value: number }
  | { type: 'int'; value: number }
  | { type: 'string'; value: string; bytes: Uint8Array }
  | { type: 'tensor'; value: Tensor }
  | { type: 'graph'; value: Graph }
  | { type: 'floats'; value: number[] }
  | { type: 'ints'; value: number[] }
  | { type: 'strings'; value: string[] }
  | { type: 'tensors'; value: Tensor[] }
  | { type: 'graphs'; value: Graph[] }
  | { type: 'sparse_tensor' | 'sparse_tensors' | 'type_proto' | 'type_protos'; value: Uint8Array };

export interface Node {
  /** Unique within its graph; stable across passes. */
  readonly id: number;
  name: string;
  opType: string;
  /** '' is the default ONNX domain (`ai.onnx`). */
  domain: string;
  /** Value names; '' marks an omitted optional input/output. */
  inputs: string[];
  outputs: string[];
  attributes: Map<string, AttributeValue>;
  docString?: string;
  /**
   * IR 10+: which overload of a model-local function (domain, op_type, overload) the node calls.
   * Kept so a load → encode round trip preserves it; sessions expand calls of model-local functions (inline-functions.ts).
   */
  overload?: string;
  /**
   * In a model-local function's body: attributes that take the calling node's attribute of another name
   * (AttributeProto.ref_attr_name): this node's attribute name → the function's attribute name.
   */
  attributeRefs?: Map<string, string>;
}

/** Opset imports: domain ('' for ai.onnx) → version. */
export type OpsetImports = Map<string, number>;

export class Graph {
  name: string;
  nodes: Node[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  initializers: Map<string, Tensor>;
  /** Known types of intermediate values (and, after shape inference, of every value). */
  valueInfo: Map<string, ValueInfo>;
  opsetImports: OpsetImports;
  /** The graph whose node holds this one as an attribute; outer-scope names resolve there. */
  parent?: Graph;
  docString?: string;
  #nextId: number;

  constructor(init: {
    name?: string;
    nodes?: Node[];
    inputs?: ValueInfo[];
    outputs?: ValueInfo[];
    initializers?: Map<string, Tensor>;
    valueInfo?: Map<string, ValueInfo>;
    opsetImports: OpsetImports;
    parent?: Graph;
  }) {
    this.name = init.name ?? 'graph';
    this.nodes = init.nodes ?? [];
    this.inputs = init.inputs ?? [];
    this.outputs = init.outputs ?? [];
    this.initializers = init.initializers ?? new Map();
    this.valueInfo = init.valueInfo ?? new Map();
    this.opsetImports = init.opsetImports;
    this.parent = init.parent;
    this.#nextId = this.nodes.reduce((m, n) => Math.max(m, n.id + 1), 0);
  }

  /** A fresh node id for nodes passes add. */
  nextNodeId(): number {
    return this.#nextId++;
  }

  /** Adds a node (caller keeps topological order) and returns it. */
  addNode(init: Omit<Node, 'id' | 'attributes' | 'domain' | 'name'> & Partial<Pick<Node, 'attributes' | 'domain' | 'name'>>): Node {
    const id = this.nextNodeId();
    const node: Node = {
      id,
      name: init.name ?? `${init.opType}_${id}`,
      opType: init.opType,
      domain: init.domain ?? '',
      inputs: init.inputs,
      outputs: init.outputs,
      attributes: init.attributes ?? new Map(),
    };
    this.nodes.push(node);
    return node;
  }

  /** Opset version in force for `domain` here (inherited from the parent graph for subgraphs). */
  opsetFor(domain: string): number | undefined {
    const d = domain === 'ai.onnx' ? '' : domain;
    return this.opsetImports.get(d) ?? this.parent?.opsetFor(d);
  }

  /** The initializer named `name` here or in an enclosing graph (subgraphs may read outer weights). */
  initializerOf(name: string): Tensor | undefined {
    return this.initializers.get(name) ?? this.parent?.initializerOf(name);
  }

  /** The static type of a value, if known. */
  typeOf(name: string): ValueType | undefined {
    const init = this.initializers.get(name);
    if (init) return { kind: 'tensor', elemType: init.type, shape: [...init.dims] };
    return (
      this.valueInfo.get(name)?.type ??
      this.inputs.find((v) => v.name === name)?.type ??
      this.outputs.find((v) => v.name === name)?.type ??
      this.parent?.typeOf(name)
    );
  }

  /** Element type of a tensor value, if known. */
  elemTypeOf(name: string): DataType | undefined {
    const t = this.typeOf(name);
    return t?.kind === 'tensor' ? t.elemType : undefined;
  }

  /** Map value name → producing node. */
  producers(): Map<string, Node> {
    const m = new Map<string, Node>();
    for (const n of this.nodes) for (const o of n.outputs) if (o) m.set(o, n);
    return m;
  }

  /** Map value name → consuming nodes (including consumers inside subgraphs, attributed to the outer node). */
  consumers(): Map<string, Node[]> {
    const m = new Map<string, Node[]>();
    for (const n of this.nodes) {
      for (const name of nodeInputsWithCaptures(n)) {
        if (!name) continue;
        let list = m.get(name);
        if (!list) m.set(name, (list = []));
        if (!list.includes(n)) list.push(n);
      }
    }
    return m;
  }
}

/** Subgraphs held by a node's attributes. */
export function subgraphsOf(node: Node): Graph[] {
  const out: Graph[] = [];
  for (const a of node.attributes.values()) {
    if (a.type === 'graph') out.push(a.value);
    else if (a.type === 'graphs') out.push(...a.value);
  }
  return out;
}

/**
 * Names a subgraph reads from enclosing scopes (not produced or declared inside it).
 * Control-flow nodes depend on these as if they were inputs.
 */
export function outerScopeReads(graph: Graph): Set<string> {
  const local = new Set<string>([...graph.inputs.map((v) => v.name), ...graph.initializers.keys()]);
  for (const n of graph.nodes) for (const o of n.outputs) if (o) local.add(o);
  const reads = new Set<string>();
  for (const n of graph.nodes) {
    for (const name of nodeInputsWithCaptures(n)) if (name && !local.has(name)) reads.add(name);
  }
  // A subgraph may return an outer value directly as one of its outputs.
  for (const o of graph.outputs) if (o.name && !local.has(o.name)) reads.add(o.name);
  return reads;
}

/** A node's explicit inputs plus the outer values its subgraphs capture. */
export function nodeInputsWithCaptures(node: Node): string[] {
  const subs = subgraphsOf(node);
  if (subs.length === 0) return node.inputs;
  const names = [...node.inputs];
  for (const g of subs) for (const r of outerScopeReads(g)) if (!names.includes(r)) names.push(r);
  return names;
}

/** A model: the main graph plus what the file said about itself. */
export interface Model {
  irVersion: number;
  opsetImports: OpsetImports;
  producerName: string;
  producerVersion: string;
  domain: string;
  modelVersion: number;
  docString: string;
  metadata: Map<string, string>;
  graph: Graph;
  /** Functions defined in the model (their bodies stay encoded until a session expands the calls: onnx/local-functions.ts). */
  functionNames: string[];
}

/** A node's name for messages and reports; unnamed nodes (common in exported models) get `OpType#id`. */
export function nodeLabel(node: Node): string {
  return node.name || `${node.opType}#${node.id}`;
}
