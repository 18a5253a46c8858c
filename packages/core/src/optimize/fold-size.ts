/**
 * Size estimates made before evaluating a node, so that folding `ConstantOfShape([1e9])` is refused
 * without first allocating gigabytes. Returns the largest output's bytes, or undefined when unknown
 * (the real outputs are checked again after evaluation).
 */
import type { Graph, Node } from '../ir/graph.js';
import { BYTES_PER_ELEMENT } from '../tensor/data-type.js';
import type { Tensor } from '../tensor/tensor.js';
import { isOnnxOp } from './node-traits.js';

function numbers(t: Tensor | undefined): number[] | undefined {
  if (!t || t.type === 'string' || t.type === 'bool') return undefined;
  return Array.from(t.data as ArrayLike<number | bigint>, Number);
}

function product(values: number[]): number {
  return values.reduce((p, v) => p * Math.max(v, 0), 1);
}

/** Element count of the output, for the ops whose output size is set by the *values* of their inputs. */
function valueDrivenElements(node: Node, inputs: ReadonlyArray<Tensor | undefined>): number | undefined {
  if (isOnnxOp(node, 'ConstantOfShape')) {
    const shape = numbers(inputs[0]);
    return shape && product(shape);
  }
  if (isOnnxOp(node, 'Tile')) {
    const repeats = numbers(inputs[1]);
    return repeats && inputs[0] ? inputs[0].size * product(repeats) : undefined;
  }
  if (isOnnxOp(node, 'Expand')) {
    const shape = numbers(inputs[1]);
    const dims = inputs[0]?.dims;
    if (!shape || !dims) return undefined;
    const rank = Math.max(shape.length, dims.length);
    const out: number[] = [];
    for (let i = 0; i < rank; i++) {
      const a = dims[dims.length - rank + i] ?? 1;
      const b = shape[shape.length - rank + i] ?? 1;
      out.push(Math.max(a, b));
    }
    return product(out);
  }
  if (isOnnxOp(node, 'Range')) {
    const [start, limit, delta] = [numbers(inputs[0])?.[0], numbers(inputs[1])?.[0], numbers(inputs[2])?.[0]];
    if (start === undefined || limit === undefined || !delta) return undefined;
    return Math.max(Math.ceil((limit - start) / delta), 0);
  }
  return undefined;
}

export function estimateFoldBytes(node: Node, inputs: ReadonlyArray<Tensor | undefined>, graph: Graph): number | undefined {
  let largest: number | undefined;
  const elements = valueDrivenElements(node, inputs);
  if (elements !== undefined) {
    // ConstantOfShape takes its type from `value`; the others keep their data input's type.
    const valueAttr = node.attributes.get('value');
    const type = isOnnxOp(node, 'ConstantOfShape') ? (valueAttr?.type === 'tensor' ? valueAttr.value.type : 'float32') : inputs[0]?.type;
    const perElement = type === undefined ? 8 : Math.max(BYTES_PER_ELEMENT[type], 1);
    largest = elements * perElement;
  }
  for (const out of node.outputs) {
    if (!out) continue;
    const t = graph.typeOf(out);
    if (t?.kind !== 'tensor' || !t.shape || t.elemType === 'string') continue;
    if (!t.shape.every((d): d is number => typeof d === 'number')) continue;
    const bytes = product(t.shape) * BYTES_PER_ELEMENT[t.elemType];
    largest = Math.max(largest ?? 0, bytes);
  }
  return largest;
}
