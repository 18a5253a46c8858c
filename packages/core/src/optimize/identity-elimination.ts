/**
 * Identity elimination: `Identity` nodes, `Dropout` in inference mode whose mask nobody reads, and
 * `Pad` by constant zero pads (exporters write one before pools whose padding is zero, as torch does for
 * DenseNet's transitions) pass their input through, so their consumers can read the input directly.
 *
 * When the pass-through output is a protected name (a graph output), consumers cannot be rewired
 * without renaming it. Then, if the input is an ordinary value produced by a node of this graph, that
 * producer is made to write the protected name instead; otherwise the node stays.
 */
import type { Node } from '../ir/graph.js';
import { isOnnxOp } from './node-traits.js';
import { emptyResult, type PassResult } from './pass-result.js';
import { constantLookup, UseIndex, type Scope } from './scope.js';
import { nodeLabel } from '../ir/graph.js';

/** Whether a Pad adds nothing: its pads (the constant input 1, or the `pads` attribute before opset 11) all zero. */
function zeroPads(node: Node, constant: ReturnType<typeof constantLookup>): boolean {
  const attr = node.attributes.get('pads');
  if (attr) return attr.type === 'ints' && attr.value.every((v) => Number(v) === 0);
  const pads = node.inputs[1] ? constant(node.inputs[1]) : undefined;
  if (!pads || (pads.type !== 'int64' && pads.type !== 'int32')) return false;
  return Array.from(pads.data as ArrayLike<number | bigint>).every((v) => Number(v) === 0);
}

/** For a removable pass-through node, its [input, output]; otherwise undefined. */
function passThrough(node: Node, index: UseIndex, scope: Scope, constant: ReturnType<typeof constantLookup>): [string, string] | undefined {
  const [input, output] = [node.inputs[0], node.outputs[0]];
  if (!input || !output || input === output) return undefined;
  if (isOnnxOp(node, 'Identity')) return node.outputs.length === 1 ? [input, output] : undefined;
  if (isOnnxOp(node, 'Pad')) return zeroPads(node, constant) ? [input, output] : undefined;
  if (!isOnnxOp(node, 'Dropout')) return undefined;
  const mask = node.outputs[1];
  if (mask && (index.isUsed(mask) || scope.protectedNames.has(mask))) return undefined;
  // Opset 12+: an explicit training_mode input must be a constant false.
  const training = node.inputs[2];
  if (training) {
    const t = constant(training);
    if (!t || t.type !== 'bool' || t.size !== 1 || (t.data as Uint8Array)[0] !== 0) return undefined;
  }
  return [input, output];
}

export function eliminateIdentities(scope: Scope): PassResult {
  const graph = scope.graph;
  const result = emptyResult();
  const index = new UseIndex(graph);
  const constant = constantLookup(scope);
  const producers = new Map<string, Node>();
  for (const n of graph.nodes) for (const o of n.outputs) if (o) producers.set(o, n);
  const graphInputs = new Set(graph.inputs.map((v) => v.name));
  const removed = new Set<Node>();

  const drop = (node: Node) => {
    index.removeNode(node);
    removed.add(node);
    for (const o of node.outputs) if (o) graph.valueInfo.delete(o);
    result.nodes.push(nodeLabel(node));
  };

  for (const node of graph.nodes) {
    const io = passThrough(node, index, scope, constant);
    if (!io) continue;
    const [input, output] = io;

    if (!scope.protectedNames.has(output)) {
      if (index.canReplace(output, input)) {
        index.replace(output, input);
        drop(node);
      } else {
        result.skipped.push({ node: nodeLabel(node), reason: `a subgraph cannot read '${input}' in place of '${output}'` });
      }
      continue;
    }

    // The output is protected: try to make the input's producer write it under the protected name.
    const producer = producers.get(input);
    const renamable =
      producer !== undefined &&
      !removed.has(producer) &&
      !scope.protectedNames.has(input) &&
      !graphInputs.has(input) &&
      !graph.initializers.has(input) &&
      index.canReplace(input, output);
    if (!renamable) {
      result.skipped.push({ node: nodeLabel(node), reason: `produces protected output '${output}' from '${input}', which cannot be renamed` });
      continue;
    }
    const info = graph.valueInfo.get(output);
    drop(node);
    if (info) graph.valueInfo.set(output, info);
    index.replace(input, output);
    producer.outputs = producer.outputs.map((o) => (o === input ? output : o));
    producers.delete(input);
    producers.set(output, producer);
    graph.valueInfo.delete(input);
  }

  if (removed.size > 0) graph.nodes = graph.nodes.filter((n) => !removed.has(n));
  return result;
}
