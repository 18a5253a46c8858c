/** What the int8 kernel defs (int8-conv-native.ts, int8-matmul-native.ts) share. */
import type { Node, Tensor } from '@switchyard/core';
import { fromNativeError, withNativeErrors, withNodeErrors } from './native-errors.js';

export const is8Bit = (t: Tensor | undefined): t is Tensor<'uint8' | 'int8'> => t !== undefined && (t.type === 'uint8' || t.type === 'int8');

/** Runs `primitive.runSync` on this thread or `primitive.run` on the oneDNN thread, then returns `outputs`. */
export function runInt8Primitive<A extends unknown[]>(
  node: Node,
  inline: boolean,
  primitive: { run(...a: A): Promise<void>; runSync(...a: A): void },
  args: A,
  outputs: Tensor[],
): Tensor[] | Promise<Tensor[]> {
  if (inline) {
    withNodeErrors(node, () => primitive.runSync(...args));
    return outputs;
  }
  return withNativeErrors(node, () => primitive.run(...args)).then(() => outputs);
}

/** The requantization multipliers fround(fround(xScale · wScale[c]) / yScale), rounded as the TS kernels round them. */
export function multipliers(xScale: number, wScale: Float32Array, yScale: number, channels: number): Float32Array {
  const out = new Float32Array(channels);
  for (let c = 0; c < channels; c++) out[c] = Math.fround(Math.fround(xScale * wScale[wScale.length === 1 ? 0 : c]) / yScale);
  return out;
}

/** Multipliers recomputed only when one of the three scale tensors changes (constants: once). */
export class MultiplierCache {
  #key: [Tensor, Tensor, Tensor] | undefined;
  #value: Float32Array | undefined;

  get(xScale: Tensor, wScale: Tensor, yScale: Tensor, channels: number): Float32Array {
    const k = this.#key;
    if (!k || k[0] !== xScale || k[1] !== wScale || k[2] !== yScale || !this.#value) {
      this.#key = [xScale, wScale, yScale];
      this.#value = multipliers((xScale.data as Float32Array)[0], wScale.data as Float32Array, (yScale.data as Float32Array)[0], channels);
    }
    return this.#value;
  }
}

/** A float32 tensor spread to one value per channel (it holds one or `channels`), or undefined when it does not fit. */
export function perChannel(t: Tensor | undefined, channels: number): Float32Array | undefined {
  if (!t || t.type !== 'float32' || (t.size !== 1 && t.size !== channels)) return undefined;
  const data = t.data as Float32Array;
  return t.size === channels ? data : new Float32Array(channels).fill(data[0]);
}

/**
 * Builds a primitive, or answers undefined when the addon says it does not serve this configuration
 * ('UNSUPPORTED': e.g. a kernel so large that oneDNN's int8 code here could not keep its sums exact), so the
 * caller runs the TS kernel instead; other failures are rethrown naming the node.
 */
export function buildOrDecline<P>(node: Node, build: () => P): P | undefined {
  try {
    return build();
  } catch (error) {
    const e = fromNativeError(node, error);
    if (e.code === 'UNSUPPORTED') return undefined;
    throw e;
  }
}
