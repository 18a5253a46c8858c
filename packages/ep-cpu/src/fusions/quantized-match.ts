/** Matching helpers the quantized fusions share (dynamic-quantize-fusion.ts, qdq-fusion.ts). */
import { Tensor } from '@switchyard/core';
import type { GraphRewriter } from './graph-rewriter.js';

/**
 * The float32 values of constant `name` when, broadcast against an output of `rank`, it varies only along
 * `axis` (with `length` entries there) or not at all: its one or `length` values, as a fresh 1-D array.
 * Undefined when it is not such a constant (it would widen the output, or vary along another axis).
 */
export function valuesAlongAxis(rw: GraphRewriter, name: string, rank: number, axis: number, length: number): Float32Array | undefined {
  const t = rw.constant(name);
  if (!t || t.type !== 'float32' || t.dims.length > rank) return undefined;
  for (let i = 0; i < t.dims.length; i++) {
    const outAxis = rank - t.dims.length + i;
    if (t.dims[i] !== 1 && !(outAxis === axis && t.dims[i] === length)) return undefined;
  }
  return Float32Array.from(t.data as Float32Array);
}

/** `values` as a new 1-D float32 initializer (named after `base`); its name. */
export function addVector(rw: GraphRewriter, base: string, values: Float32Array): string {
  return rw.addInitializer(base, new Tensor('float32', values, [values.length]));
}

/** A constant holding one value of an 8-bit type (a zero point), or undefined. */
export function int8Scalar(rw: GraphRewriter, name: string): { type: 'uint8' | 'int8'; value: number } | undefined {
  const t = rw.constant(name);
  if (!t || t.size !== 1 || (t.type !== 'uint8' && t.type !== 'int8')) return undefined;
  return { type: t.type, value: (t.data as Uint8Array | Int8Array)[0] };
}

/** Whether every output of `node`-like `outputs` is read by nobody and is not a graph output (the node may go). */
export function unread(rw: GraphRewriter, outputs: readonly string[]): boolean {
  return outputs.every((o) => !o || (rw.readers(o).size === 0 && !rw.isGraphOutput(o)));
}
