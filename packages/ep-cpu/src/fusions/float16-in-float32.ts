/**
 * float16 nodes computed in float32. The CPU EP's oneDNN kernels serve float32 only, so a float16
 * Conv/MatMul/... would run in TypeScript, widening and narrowing every element. This pass moves every
 * float16 node whose op only preserves its type (float32-compute-ops.ts) to float32, as ONNX Runtime's
 * CPU EP does with its inserted Casts:
 *
 * - the node's float16 inputs and outputs become float32 values;
 * - a float16 constant it reads becomes a float32 constant, converted once here;
 * - a float16 value made elsewhere (a graph input, an op that stays float16) is read through a new
 *   Cast(to float32), one per value;
 * - an output something else still needs in float16 (a node left in float16, a subgraph, a graph
 *   output) gets a Cast(to float16) under its original name; outputs read only inside the region
 *   keep their name and just change type.
 *
 * The next pass (cast-pair-collapse.ts) then removes the Cast pairs this leaves at the borders of a
 * converter's float16 model. It runs before every other CPU fusion, so Conv/BatchNormalization
 * folding, activation and MatMul fusions and the channel-blocked layout see float32 regions.
 *
 * Level 'extended': results change by rounding (intermediates keep float32 precision and range
 * instead of being rounded to float16 after every op), which core's 'basic' passes, all exact, never
 * do (and an EP's passes start at 'extended' anyway); at 'disabled' and 'basic' every float16 op
 * runs as written, the reference the tests compare with. 'extended' is on by default ('all').
 */
import { Tensor, type GraphPass, type Node, type ValueType } from '@switchyard/core';
import { widenHalf } from '../math/numeric.js';
import { GraphRewriter, type NewNode } from './graph-rewriter.js';
import { float32Role, type Float32Role } from './float32-compute-ops.js';

/** ONNX TensorProto element types the inserted Casts name. */
const ONNX_FLOAT = 1;
const ONNX_FLOAT16 = 10;
/** Cast's `to` is an int from opset 6 (a string before): older models are left as they are. */
const MIN_OPSET = 6;

/** A Cast node of `input` into `output`, of element type `to`. */
function castNode(name: string, input: string, output: string, to: 'float32' | 'float16'): NewNode {
  return {
    opType: 'Cast',
    domain: '',
    name,
    inputs: [input],
    outputs: [output],
    attributes: new Map([['to', { type: 'int', value: to === 'float32' ? ONNX_FLOAT : ONNX_FLOAT16 }]]),
  };
}

/** The node's inputs and outputs that are present (omitted optional ones are ''). */
function ports(node: Node): string[] {
  return [...node.inputs, ...node.outputs].filter((n) => n !== '');
}

function hasFloat16(rw: GraphRewriter, node: Node): boolean {
  return ports(node).some((n) => rw.elemType(n) === 'float16');
}

/** Why a float16 node of a qualifying op stays as it is, or undefined when it may go float32. */
function whyNotFloat32(rw: GraphRewriter, node: Node): string | undefined {
  if (ports(node).some((n) => rw.elemType(n) === undefined)) return 'an input or output has no known element type';
  for (const a of node.attributes.values()) {
    // A tensor attribute would keep float16 data inside the node; a subgraph has fixed types inside.
    if (a.type === 'graph' || a.type === 'graphs' || a.type === 'tensor' || a.type === 'tensors' || a.type === 'sparse_tensor' || a.type === 'sparse_tensors') {
      return 'the node holds a tensor or subgraph attribute';
    }
  }
  return undefined;
}

function asFloat32(type: ValueType | undefined): ValueType {
  return type?.kind === 'tensor' ? { kind: 'tensor', elemType: 'float32', shape: type.shape ? [...type.shape] : undefined } : { kind: 'tensor', elemType: 'float32' };
}

class Float32Region {
  readonly #rw: GraphRewriter;
  readonly nodes = new Set<Node>();
  /** The region's float16 values, taken before anything changes type. */
  readonly #float16 = new Set<string>();
  /** float16 value → the name of its float32 copy (itself when only the region reads it). */
  readonly #float32 = new Map<string, string>();

  constructor(rw: GraphRewriter) {
    this.#rw = rw;
  }

  add(node: Node): void {
    this.nodes.add(node);
    for (const n of ports(node)) if (this.#rw.elemType(n) === 'float16') this.#float16.add(n);
  }

  #fresh(base: string): string {
    let name = base;
    for (let i = 1; this.#rw.isNameTaken(name); i++) name = `${base}_${i}`;
    return name;
  }

  #declareFloat32(name: string, like: string): void {
    this.#rw.graph.valueInfo.set(name, { name, type: asFloat32(this.#rw.graph.typeOf(like)) });
  }

  /** Whether nothing outside the region reads `name` (a subgraph capture or a graph output counts). */
  #onlyRegionReads(name: string): boolean {
    if (this.#rw.isGraphOutput(name)) return false;
    for (const r of this.#rw.readers(name)) if (!this.nodes.has(r) || !r.inputs.includes(name)) return false;
    return true;
  }

  /** Names the float32 copy of every float16 output: the output itself when only the region reads it. */
  nameOutputs(): void {
    for (const node of this.nodes) {
      for (const out of node.outputs) {
        if (!this.#float16.has(out)) continue;
        if (this.#onlyRegionReads(out)) {
          this.#float32.set(out, out);
          continue;
        }
        // Declared now, so no other fresh name takes it.
        const f32 = this.#fresh(`${out}_float32`);
        this.#declareFloat32(f32, out);
        this.#float32.set(out, f32);
      }
    }
  }

  /** Rewires every region node onto float32 values and adds the Casts back to float16 after it. */
  rewrite(): void {
    const rw = this.#rw;
    for (const node of this.nodes) {
      const originals = [...node.outputs];
      const inputs = node.inputs.map((n) => (this.#float16.has(n) ? this.#float32Input(n) : n));
      const outputs = originals.map((o) => this.#float32.get(o) ?? o);
      for (const o of originals) if (this.#float32.get(o) === o) this.#declareFloat32(o, o);
      rw.update(node, (n) => {
        n.inputs = inputs;
        n.outputs = outputs;
      });
      rw.noteReplaced(node);
      let anchor = node;
      for (const o of originals) {
        const f32 = this.#float32.get(o);
        if (f32 && f32 !== o) anchor = rw.insertAfter(anchor, castNode(this.#fresh(`${o}_to_float16`), f32, o, 'float16'));
      }
    }
  }

  /** The float32 copy of a float16 value a region node reads, made on first use. */
  #float32Input(name: string): string {
    const known = this.#float32.get(name);
    if (known) return known;
    const rw = this.#rw;
    const constant = rw.constant(name);
    let f32: string;
    if (constant) {
      const data = widenHalf('float16', constant.data as Uint16Array);
      f32 = rw.addInitializer(`${name}_float32`, new Tensor('float32', data, [...constant.dims]));
    } else {
      f32 = this.#fresh(`${name}_float32`);
      this.#declareFloat32(f32, name);
      rw.insertAfter(rw.producer(name), castNode(this.#fresh(`${name}_to_float32`), name, f32, 'float32'));
    }
    this.#float32.set(name, f32);
    return f32;
  }
}

/**
 * The float16 nodes that go float32: computing ones, and data movement connected to them through
 * float16 values (a Reshape between two float16 graph values alone would only gain two Casts).
 */
function candidates(rw: GraphRewriter): Node[] {
  const role = new Map<Node, Float32Role>();
  for (const node of rw.nodes()) {
    const r = float32Role(node.opType, node.domain);
    if (!r || r === 'shape' || !hasFloat16(rw, node)) continue;
    const why = whyNotFloat32(rw, node);
    if (why) rw.skip(node, why);
    else if (rw.owned([node])) role.set(node, r);
  }
  // Union-find over candidates joined by a float16 value one produces and another reads.
  const parent = new Map<Node, Node>([...role.keys()].map((n) => [n, n]));
  const root = (n: Node): Node => {
    // Path halving keeps long chains (a deep network is one) near-linear.
    while (parent.get(n) !== n) {
      const up = parent.get(parent.get(n)!)!;
      parent.set(n, up);
      n = up;
    }
    return n;
  };
  for (const node of role.keys()) {
    for (const input of node.inputs) {
      const producer = rw.producer(input);
      if (producer && role.has(producer) && rw.elemType(input) === 'float16') parent.set(root(producer), root(node));
    }
  }
  const computing = new Set([...role].filter(([, r]) => r === 'compute').map(([n]) => root(n)));
  return [...role.keys()].filter((n) => computing.has(root(n)));
}

function run(rw: GraphRewriter): void {
  const opset = rw.opset('');
  if (opset === undefined || opset < MIN_OPSET) return;
  const region = new Float32Region(rw);
  for (const node of candidates(rw)) region.add(node);
  if (region.nodes.size === 0) return;
  // Shape/Size of a value the region computes read its float32 copy; of any other value, the original.
  for (const node of rw.nodes()) {
    if (float32Role(node.opType, node.domain) !== 'shape') continue;
    const producer = rw.producer(node.inputs[0] ?? '');
    if (producer && region.nodes.has(producer) && rw.elemType(node.inputs[0]) === 'float16' && rw.owned([node])) region.add(node);
  }
  const constants = new Set([...region.nodes].flatMap((n) => n.inputs.filter((i) => rw.constant(i)?.type === 'float16')));
  region.nameOutputs();
  region.rewrite();
  rw.dropIfUnused(constants);
}

export const float16InFloat32: GraphPass = {
  name: 'cpu:float16-in-float32',
  level: 'extended',
  run(graph, report, context) {
    run(new GraphRewriter(graph, report, context?.mayRewrite));
  },
};

