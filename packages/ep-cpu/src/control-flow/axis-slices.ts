/** Taking one slice along an axis, and stacking slices along a new axis: what Loop and Scan need. */
import { SwitchyardError, Tensor, allocateData, elementCount, type DataType } from '@switchyard/core';

type AnyArray = { length: number; [i: number]: unknown };

/** The sub-tensor at `index` along `axis` (that axis removed). */
export function sliceAlong(t: Tensor, axis: number, index: number): Tensor {
  const dims = t.dims;
  const outer = dims.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  const len = dims[axis];
  const out = allocateData(t.type, outer * inner) as unknown as AnyArray;
  const src = t.data as unknown as AnyArray;
  for (let o = 0; o < outer; o++) {
    const from = (o * len + index) * inner;
    for (let i = 0; i < inner; i++) out[o * inner + i] = src[from + i];
  }
  return new Tensor(t.type, out as never, [...dims.slice(0, axis), ...dims.slice(axis + 1)]);
}

/**
 * Stacks equally shaped tensors along a new `axis`. With no parts, `type` and `partDims` describe
 * the (empty) result.
 */
export function stackAlong(parts: readonly Tensor[], axis: number, type: DataType, partDims: readonly number[]): Tensor {
  const n = parts.length;
  const dims = parts[0]?.dims ?? partDims;
  for (const p of parts) {
    if (p.type !== parts[0].type || p.dims.length !== dims.length || p.dims.some((d, i) => d !== dims[i])) {
      throw new SwitchyardError('RUNTIME', `scan outputs change shape between iterations ([${dims.join(', ')}] vs [${p.dims.join(', ')}])`);
    }
  }
  const outDims = [...dims.slice(0, axis), n, ...dims.slice(axis)];
  const outer = dims.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = dims.slice(axis).reduce((a, b) => a * b, 1);
  const out = allocateData(parts[0]?.type ?? type, elementCount(outDims, 'stacked scan output')) as unknown as AnyArray;
  parts.forEach((p, k) => {
    const src = p.data as unknown as AnyArray;
    for (let o = 0; o < outer; o++) {
      const to = (o * n + k) * inner;
      for (let i = 0; i < inner; i++) out[to + i] = src[o * inner + i];
    }
  });
  return new Tensor(parts[0]?.type ?? type, out as never, outDims);
}

/** A scalar-valued tensor as a boolean (for Loop's condition). */
export function truthy(t: Tensor | undefined): boolean {
  if (!t) return true;
  if (t.size !== 1) throw new SwitchyardError('RUNTIME', `loop condition must have one element, got shape [${t.dims.join(', ')}]`);
  return Boolean(Number((t.data as ArrayLike<number>)[0]));
}
