/** Small helpers for the normalization kernels. */
import { SwitchyardError } from '@switchyard/core';

/**
 * For a parameter tensor (scale, bias) that unidirectionally broadcasts to `target`, the source index
 * of each target element, or `undefined` when the shapes already match element for element.
 */
export function broadcastIndex(op: string, what: string, src: readonly number[], target: readonly number[]): Int32Array | undefined {
  const size = target.reduce((a, b) => a * b, 1);
  const srcSize = src.reduce((a, b) => a * b, 1);
  if (srcSize === size && src.length <= target.length && src.every((d, i) => d === target[target.length - src.length + i])) return undefined;
  if (src.length > target.length) throw new SwitchyardError('INVALID_SHAPE', `${op}: ${what} [${src.join(', ')}] does not broadcast to [${target.join(', ')}]`);
  const pad = target.length - src.length;
  const strides = new Array<number>(target.length).fill(0);
  let stride = 1;
  for (let i = target.length - 1; i >= pad; i--) {
    const d = src[i - pad];
    if (d !== 1 && d !== target[i]) throw new SwitchyardError('INVALID_SHAPE', `${op}: ${what} [${src.join(', ')}] does not broadcast to [${target.join(', ')}]`);
    strides[i] = d === 1 ? 0 : stride;
    stride *= d;
  }
  const out = new Int32Array(size);
  for (let flat = 0; flat < size; flat++) {
    let rem = flat;
    let s = 0;
    for (let i = target.length - 1; i >= 0; i--) {
      const idx = rem % target[i];
      rem = (rem - idx) / target[i];
      s += idx * strides[i];
    }
    out[flat] = s;
  }
  return out;
}

export function checkSize(op: string, what: string, size: number, expected: number): void {
  if (size !== expected) throw new SwitchyardError('INVALID_SHAPE', `${op}: ${what} has ${size} elements, expected ${expected}`);
}
