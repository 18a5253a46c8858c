/**
 * Chains of elementwise ops become one com.switchyard::FusedElementwise node, which the native engine
 * runs in one pass over memory instead of one pass per op: HardSwish written out as
 * `x * clip(x + 3, 0, 6) / 6`, x·σ(x), the tanh-GELU polynomial, `(x - mean) / std * g + b`,
 * scale-and-shift pairs, and any other connected group of float32 elementwise nodes.
 *
 * A group grows from its last node (the root, whose output others read) towards the producers of its
 * inputs: a producer joins when it is an elementwise op (elementwise/node-programs.ts) on float32 (a
 * Where's condition may be bool), every reader of its output is already in the group, its output is no
 * graph output, and its output has the root's shape. That last rule is about cost, not correctness
 * (elementwise ops commute with broadcasting): a producer of a smaller tensor, such as the σ of a
 * squeeze-excitation vector, would otherwise be recomputed for every element of the larger result.
 * Scalar constants become immediates of the program; other inputs, the node's inputs.
 *
 * Runs last (level 'all'): the conv, MatMul, GELU and LayerNorm fusions have taken their patterns by
 * then, and elementwise ops the blocked layout kept on channel-blocked tensors (equal shapes there)
 * fuse like any other.
 */
import type { Dim, GraphPass, Node } from '@switchyard/core';
import { GraphRewriter } from './graph-rewriter.js';
import { nodeProgram, type NodeProgram } from '../elementwise/node-programs.js';
import { FUSED_ELEMENTWISE_DOMAIN, FUSED_ELEMENTWISE_OP, fusedAttributes } from '../elementwise/fused-node.js';
import type { ElementwiseInstruction } from '../elementwise/program.js';

/** A node that may join a group: its program and the names its program inputs read. */
interface Member {
  node: Node;
  program: NodeProgram;
  /** The node input names, in program-input order. */
  reads: string[];
  output: string;
  shape: readonly Dim[];
}

function sameShape(a: readonly Dim[], b: readonly Dim[]): boolean {
  return a.length === b.length && a.every((d, i) => d !== undefined && d === b[i]);
}

class ElementwiseFusion {
  readonly #rw: GraphRewriter;
  readonly #grouped = new Set<Node>();

  constructor(rw: GraphRewriter) {
    this.#rw = rw;
  }

  run(): void {
    const nodes = this.#rw.nodes();
    for (let i = nodes.length - 1; i >= 0; i--) {
      const root = nodes[i];
      if (this.#grouped.has(root) || !this.#rw.isLive(root)) continue;
      const member = this.#member(root);
      if (member) this.#fuseFrom(member);
    }
  }

  /** `node` as a group member, or undefined when it cannot be one. */
  #member(node: Node): Member | undefined {
    const rw = this.#rw;
    const output = node.outputs[0];
    if (node.outputs.length !== 1 || !output) return undefined;
    const domain = node.domain === 'ai.onnx' ? '' : node.domain;
    let program: NodeProgram | string;
    try {
      program = nodeProgram(node, rw.opset(domain) ?? 1, rw.attrs(node));
    } catch {
      return undefined; // malformed attributes: the node's own kernel reports them
    }
    if (typeof program === 'string' || program.legacy || program.program.outputType !== 'float32') return undefined;
    if (rw.elemType(output) !== 'float32') return undefined;
    const type = rw.graph.typeOf(output);
    const shape = type?.kind === 'tensor' ? type.shape : undefined;
    if (!shape || shape.some((d) => d === undefined)) return undefined;
    const reads = program.inputs.map((i) => node.inputs[i]);
    for (let k = 0; k < reads.length; k++) {
      if (rw.elemType(reads[k]) !== program.program.inputTypes[k]) return undefined;
    }
    // Clip's bounds must be one number each (the TS kernel rejects others): constants only, folded in.
    for (const k of program.scalarInputs) if (rw.scalar(reads[k]) === undefined) return undefined;
    return { node, program, reads, output, shape };
  }

  #fuseFrom(root: Member): void {
    const rw = this.#rw;
    const group = new Map<Node, Member>([[root.node, root]]);
    // Grow until no producer qualifies; a producer read by two members joins once both are in.
    for (let grew = true; grew; ) {
      grew = false;
      for (const m of [...group.values()]) {
        for (const name of m.reads) {
          const p = rw.producer(name);
          if (!p || group.has(p) || this.#grouped.has(p) || rw.isGraphOutput(name)) continue;
          if ([...rw.readers(name)].some((r) => !group.has(r))) continue;
          const candidate = this.#member(p);
          if (!candidate || !sameShape(candidate.shape, root.shape)) continue;
          group.set(p, candidate);
          grew = true;
        }
      }
    }
    if (group.size < 2) return;
    const order = rw.graph.nodes;
    const members = [...group.values()].sort((a, b) => order.indexOf(a.node) - order.indexOf(b.node));
    if (!rw.owned(members.map((m) => m.node))) return;
    for (const m of members) this.#grouped.add(m.node);

    // Outside inputs first (they are values 0..n-1), then the scalar constants, then each member's instructions.
    const produced = new Set(members.map((m) => m.output));
    const inputs: string[] = [];
    const constants = new Map<string, number>(); // name → its value
    for (const m of members) {
      for (const name of m.reads) {
        if (produced.has(name) || inputs.includes(name) || constants.has(name)) continue;
        const scalar = rw.scalar(name);
        if (scalar !== undefined) constants.set(name, scalar);
        else inputs.push(name);
      }
    }
    // An immediate has no shape, so a one-element constant [1] that alone gives the result its rank (Div(scalar,
    // [1]) is [1]) stays an input: the fused node's output is the broadcast of its inputs.
    const rankOf = (name: string) => rw.rank(name);
    const inputRank = Math.max(-1, ...inputs.map((name) => rankOf(name) ?? -1));
    if (inputRank < root.shape.length && (inputs.length === 0 || inputs.every((name) => rankOf(name) !== undefined))) {
      const widest = [...constants.keys()].sort((a, b) => (rankOf(b) ?? 0) - (rankOf(a) ?? 0))[0];
      if (widest !== undefined && (rankOf(widest) ?? 0) > inputRank) {
        constants.delete(widest);
        inputs.push(widest);
      }
    }
    const instructions: ElementwiseInstruction[] = [];
    const valueOf = new Map<string, number>(inputs.map((name, i) => [name, i]));
    for (const [name, value] of constants) {
      instructions.push({ op: 'const', args: [], value });
      valueOf.set(name, inputs.length + instructions.length - 1);
    }
    for (const m of members) {
      const own = m.program.program;
      const base = inputs.length + instructions.length; // value of the member's first instruction
      const arg = (a: number) => (a < own.inputTypes.length ? valueOf.get(m.reads[a])! : base + a - own.inputTypes.length);
      for (const ins of own.instructions) instructions.push({ ...ins, args: ins.args.map(arg) });
      valueOf.set(m.output, inputs.length + instructions.length - 1);
    }

    const last = members[members.length - 1].node;
    rw.replace(
      members.map((m) => m.node),
      {
        opType: FUSED_ELEMENTWISE_OP,
        domain: FUSED_ELEMENTWISE_DOMAIN,
        name: `${last.name || last.opType}_fused`,
        inputs,
        outputs: [root.output],
        attributes: fusedAttributes(instructions),
      },
    );
    rw.ensureOpset(FUSED_ELEMENTWISE_DOMAIN, 1);
  }
}

export const elementwiseFusion: GraphPass = {
  name: 'cpu:elementwise-fusion',
  level: 'all',
  run(graph, report, context) {
    new ElementwiseFusion(new GraphRewriter(graph, report, context?.mayRewrite)).run();
  },
};
