/**
 * Puts the nodes of a graph, and of every subgraph in it, in topological order. ONNX asks for that
 * order but files do not always keep it: float16 converters append the Casts after the graph inputs
 * and before the outputs at the end of the node list, and ONNX Runtime accepts such files because it
 * sorts on load. Everything after loading (shape inference, the optimizer, the memory planner) walks
 * `graph.nodes` front to back and relies on the order.
 *
 * Stable: a node moves only in front of the nodes that need it, so an already sorted graph keeps its
 * order exactly. Linear in nodes and edges: each graph is walked once, subgraphs before the node that
 * holds them (so what a subgraph reads from outside counts as a read of that node).
 *
 * What no order can fix is an INVALID_MODEL error naming the node and the value: a value written twice
 * (or written by a node when a graph input or initializer already has the name), a read of a value
 * nothing defines, a graph output nothing defines, a cycle.
 */
import { SwitchyardError } from '../errors.js';
import { nodeLabel, type Graph, type Node } from './graph.js';

/** What enclosing graphs define, innermost first: a subgraph may read any of it. */
export interface OuterNames {
  has(name: string): boolean;
  parent?: OuterNames;
}

export function definedOutside(outer: OuterNames | undefined, name: string): boolean {
  for (let s = outer; s; s = s.parent) if (s.has(name)) return true;
  return false;
}

/** Sorts `graph.nodes` and every subgraph's nodes in place; throws INVALID_MODEL when no order exists. */
export function sortGraphTopologically(graph: Graph): void {
  sortScope(graph, undefined, `graph '${graph.name}'`);
}

function describe(node: Node): string {
  return `node '${nodeLabel(node)}' (${node.opType})`;
}

/** Sorts one graph, its subgraphs first; returns the names it reads from enclosing graphs. */
function sortScope(graph: Graph, outer: OuterNames | undefined, where: string): Set<string> {
  const fail = (message: string): never => {
    throw new SwitchyardError('INVALID_MODEL', `${where}: ${message}`);
  };
  const nodes = graph.nodes;
  const declared = new Set<string>(graph.inputs.map((v) => v.name));
  for (const name of graph.initializers.keys()) declared.add(name);

  // Value → index of the node that writes it.
  const producer = new Map<string, number>();
  nodes.forEach((node, i) => {
    for (const out of node.outputs) {
      if (!out) continue;
      const first = producer.get(out);
      if (first !== undefined) fail(`value '${out}' is written by ${describe(nodes[first])} and again by ${describe(node)}`);
      if (declared.has(out)) fail(`${describe(node)} writes '${out}', which is already a graph input or initializer`);
      producer.set(out, i);
    }
  });
  const here: OuterNames = { has: (name) => declared.has(name) || producer.has(name), parent: outer };

  // What each node reads: its inputs, then what its subgraphs read from outside them.
  const reads = nodes.map((node) => {
    let names = node.inputs.includes('') ? node.inputs.filter((name) => name !== '') : node.inputs;
    for (const [attr, value] of node.attributes) {
      const subs = value.type === 'graph' ? [value.value] : value.type === 'graphs' ? value.value : [];
      subs.forEach((sub, k) => {
        const subWhere = `${where} > ${nodeLabel(node)}.${attr}${value.type === 'graphs' ? `[${k}]` : ''} (graph '${sub.name}')`;
        const captured = sortScope(sub, here, subWhere);
        if (captured.size > 0) {
          const seen = new Set(names);
          names = [...names];
          for (const name of captured) if (!seen.has(name)) names.push(name);
        }
      });
    }
    return names;
  });

  const outerReads = new Set<string>();
  const scopes = outer ? ' (here or in an enclosing graph)' : '';
  nodes.forEach((node, i) => {
    for (const name of reads[i]) {
      if (producer.has(name) || declared.has(name)) continue;
      if (definedOutside(outer, name)) outerReads.add(name);
      else fail(`${describe(node)} reads '${name}', but no node, graph input or initializer${scopes} defines it`);
    }
  });
  for (const { name } of graph.outputs) {
    if (!name || producer.has(name) || declared.has(name)) continue;
    if (definedOutside(outer, name)) outerReads.add(name);
    else fail(`graph output '${name}' is not written by any node, nor is it a graph input or initializer${scopes}`);
  }

  graph.nodes = dependencyOrder(nodes, reads, producer, fail);
  return outerReads;
}

/**
 * Depth-first from each node in file order, emitting a node once everything it reads is emitted:
 * nodes already in order are emitted as they come, a node out of order is pulled in front of its
 * first reader. Iterative, so a long chain cannot overflow the stack.
 */
function dependencyOrder(nodes: readonly Node[], reads: readonly string[][], producer: ReadonlyMap<string, number>, fail: (message: string) => never): Node[] {
  const NEW = 0;
  const OPEN = 1;
  const DONE = 2;
  const state = new Uint8Array(nodes.length);
  const order: Node[] = [];
  const stack: number[] = [];
  const cursor: number[] = [];
  for (let root = 0; root < nodes.length; root++) {
    if (state[root] !== NEW) continue;
    stack.push(root);
    cursor.push(0);
    state[root] = OPEN;
    while (stack.length > 0) {
      const top = stack.length - 1;
      const i = stack[top];
      const names = reads[i];
      let next = -1;
      while (cursor[top] < names.length && next < 0) {
        const name = names[cursor[top]++];
        const p = producer.get(name);
        if (p === undefined || state[p] === DONE) continue;
        if (state[p] === OPEN) {
          const loop = stack.slice(stack.indexOf(p)).map((k) => `'${nodeLabel(nodes[k])}'`);
          fail(`${describe(nodes[i])} reads '${name}', which depends on that node's own output: nodes ${loop.join(' → ')} form a cycle`);
        }
        next = p;
      }
      if (next >= 0) {
        stack.push(next);
        cursor.push(0);
        state[next] = OPEN;
      } else {
        stack.pop();
        cursor.pop();
        state[i] = DONE;
        order.push(nodes[i]);
      }
    }
  }
  return order;
}
