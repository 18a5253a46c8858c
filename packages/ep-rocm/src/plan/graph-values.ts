/** Small reads of a graph shared by the limit checks and the step encoders. */
import type { DataType, Graph, Node, Tensor } from '@switchyard/core';

/** The initializer behind a value name, looking through enclosing graphs. */
export function constantOf(graph: Graph, name: string | undefined): Tensor | undefined {
  if (!name) return undefined;
  for (let g: Graph | undefined = graph; g; g = g.parent) {
    const t = g.initializers.get(name);
    if (t) return t;
  }
  return undefined;
}

/** A constant integer tensor's values as numbers (int64 constants hold BigInts). */
export function constantInts(graph: Graph, name: string | undefined): number[] | undefined {
  const t = constantOf(graph, name);
  if (!t || t.location !== 'cpu') return undefined;
  return Array.from(t.data as ArrayLike<number | bigint>, (v) => Number(v));
}

/** A constant float32 tensor's values (Resize scales). */
export function constantFloats(graph: Graph, name: string | undefined): number[] | undefined {
  const t = constantOf(graph, name);
  if (!t || t.location !== 'cpu' || t.type !== 'float32') return undefined;
  return Array.from(t.data as Float32Array);
}

export function constantFloat(graph: Graph, name: string | undefined): number | undefined {
  const t = constantOf(graph, name);
  if (!t || t.location !== 'cpu' || t.size !== 1) return undefined;
  if (t.type === 'float16' || t.type === 'bfloat16') return undefined;
  return Number((t.data as ArrayLike<number | bigint>)[0]);
}

/** Rank of a value when known. */
export function rankOf(graph: Graph, name: string): number | undefined {
  const t = graph.typeOf(name);
  return t?.kind === 'tensor' ? t.shape?.length : undefined;
}

/** Fully static dims, or undefined. */
export function staticDims(graph: Graph, name: string): number[] | undefined {
  const t = graph.typeOf(name);
  if (t?.kind !== 'tensor' || !t.shape) return undefined;
  return t.shape.every((d): d is number => typeof d === 'number' && d >= 0) ? (t.shape as number[]) : undefined;
}

export function elemTypeOf(graph: Graph, name: string): DataType | undefined {
  const t = graph.typeOf(name);
  return t?.kind === 'tensor' ? t.elemType : undefined;
}

/** `axis` in [-rank, rank) made non-negative; undefined when out of range. */
export function normalizeAxis(axis: number, rank: number): number | undefined {
  const a = axis < 0 ? axis + rank : axis;
  return a >= 0 && a < rank ? a : undefined;
}

/** Whether an optional input is given (present and not ''). */
export const given = (node: Node, i: number): boolean => (node.inputs[i] ?? '') !== '';
/** Whether an optional output is used. */
export const used = (node: Node, i: number): boolean => (node.outputs[i] ?? '') !== '';

export function product(dims: readonly number[], from = 0, to = dims.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= dims[i];
  return n;
}
