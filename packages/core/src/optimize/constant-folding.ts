/**
 * Constant folding: a pure node whose inputs are all constants is evaluated once, at optimization time,
 * and its outputs become initializers; `Constant` nodes become initializers directly.
 *
 * Left alone: nodes that produce a protected name (graph outputs stay produced by nodes, so every
 * consumer of graph outputs sees the same kind of producer), outputs over `maxFoldBytes` (folding them
 * would bloat the model), non-tensor results, nodes whose evaluation fails (the run-time kernel
 * will report the problem with full context), and DequantizeLinear (see `keptForQuantizedFusions`).
 */
import type { Node } from '../ir/graph.js';
import { Tensor } from '../tensor/tensor.js';
import { estimateFoldBytes } from './fold-size.js';
import { isOnnxOp, isPure, tensorBytes } from './node-traits.js';
import { emptyResult, type PassResult } from './pass-result.js';
import { constantLookup, opsetIn, type Scope } from './scope.js';
import { nodeLabel } from '../ir/graph.js';
import type { EvaluateNode } from './types.js';

export interface FoldOptions {
  evaluateNode: EvaluateNode;
  maxFoldBytes: number;
}

/** The tensor a `Constant` node holds, or undefined for forms we keep as nodes (sparse values). */
export function constantNodeValue(node: Node): Tensor | undefined {
  for (const [name, a] of node.attributes) {
    if (name === 'value' && a.type === 'tensor') return a.value;
    if (name === 'value_float' && a.type === 'float') return new Tensor('float32', [a.value], []);
    if (name === 'value_floats' && a.type === 'floats') return new Tensor('float32', a.value, [a.value.length]);
    if (name === 'value_int' && a.type === 'int') return new Tensor('int64', BigInt64Array.of(BigInt(a.value)), []);
    if (name === 'value_ints' && a.type === 'ints') return new Tensor('int64', BigInt64Array.from(a.value, BigInt), [a.value.length]);
    if (name === 'value_string' && a.type === 'string') return new Tensor('string', [a.value], []);
    if (name === 'value_strings' && a.type === 'strings') return new Tensor('string', a.value, [a.value.length]);
  }
  return undefined;
}

/**
 * DequantizeLinear of constant int8 weights is what an EP's quantized fusions look for (a QDQ Conv
 * becomes an int8 convolution with those weights); folded into float weights it could not be recognised
 * again. onnxruntime keeps these nodes unfolded for the same reason. Without such a fusion the node
 * costs one dequantization of the weights per run, and the model holds them at a quarter of the size.
 */
function keptForQuantizedFusions(node: Node): boolean {
  return isOnnxOp(node, 'DequantizeLinear');
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export async function foldConstants(scope: Scope, options: FoldOptions): Promise<PassResult> {
  const graph = scope.graph;
  const result = emptyResult();
  const constant = constantLookup(scope);
  const folded = new Set<Node>();
  const skip = (node: Node, reason: string) => result.skipped.push({ node: nodeLabel(node), reason });
  const replaceWith = (node: Node, values: Array<Tensor | undefined>) => {
    node.outputs.forEach((out, i) => {
      const t = values[i];
      if (!out || !t) return;
      graph.initializers.set(out, t);
      result.initializersAdded.push(out);
    });
    folded.add(node);
    result.nodes.push(nodeLabel(node));
  };

  for (const node of graph.nodes) {
    const outputs = node.outputs.filter((o) => o !== '');
    if (outputs.length === 0 || !isPure(node)) continue;
    if (outputs.some((o) => scope.protectedNames.has(o))) continue;

    if (isOnnxOp(node, 'Constant')) {
      const value = constantNodeValue(node);
      if (value) replaceWith(node, [value]);
      continue;
    }

    const inputs = node.inputs.map((name) => (name === '' ? undefined : constant(name)));
    if (inputs.some((t, i) => t === undefined && node.inputs[i] !== '')) continue;
    if (keptForQuantizedFusions(node)) {
      skip(node, 'DequantizeLinear of constants is kept for the quantized fusions (as onnxruntime does)');
      continue;
    }

    const estimate = estimateFoldBytes(node, inputs, graph);
    if (estimate !== undefined && estimate > options.maxFoldBytes) {
      skip(node, `output of about ${estimate} bytes exceeds maxFoldBytes (${options.maxFoldBytes})`);
      continue;
    }

    let values: Tensor[];
    try {
      values = await options.evaluateNode(node, inputs, { graph, opset: opsetIn(scope, node.domain) });
    } catch (e) {
      skip(node, `evaluation failed: ${errorText(e)}`);
      continue;
    }

    const problem = checkResults(node, values, options.maxFoldBytes);
    if (problem) {
      skip(node, problem);
      continue;
    }
    replaceWith(node, values);
  }

  if (folded.size > 0) graph.nodes = graph.nodes.filter((n) => !folded.has(n));
  return result;
}

/** Why evaluated outputs cannot become initializers, or undefined when they can. */
function checkResults(node: Node, values: unknown, maxFoldBytes: number): string | undefined {
  if (!Array.isArray(values)) return 'evaluator returned no output list';
  for (let i = 0; i < node.outputs.length; i++) {
    if (!node.outputs[i]) continue;
    const t: unknown = values[i];
    if (!(t instanceof Tensor)) return `output ${i} is not a tensor`;
    if (t.location !== 'cpu') return `output ${i} is not in host memory`;
    const bytes = tensorBytes(t);
    if (bytes > maxFoldBytes) return `output ${i} has ${bytes} bytes, over maxFoldBytes (${maxFoldBytes})`;
  }
  return undefined;
}
