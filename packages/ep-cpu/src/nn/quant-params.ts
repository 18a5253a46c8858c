/**
 * QuantizeLinear/DequantizeLinear's scale and zero-point layouts: per tensor (one value), per axis
 * (a 1-D tensor along `axis`) and, from opset 21, blocked (x's rank, with `axis` cut into blocks of
 * `block_size`: element i along the axis uses parameter ⌊i / block_size⌋).
 */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import { normalizeAxis } from './float-io.js';
import { toNumbers } from '../math/numeric.js';

export interface QuantParam {
  /** The parameter's values as numbers (float16/float8 widened). */
  values: ArrayLike<number>;
  /** Parameter index for a flat element index of x. */
  at: (flat: number) => number;
}

function shapeText(dims: readonly number[]): string {
  return `[${dims.join(', ')}]`;
}

export function quantParam(op: string, what: string, param: Tensor | undefined, dims: readonly number[], rawAxis: number, blockSize: number): QuantParam | undefined {
  if (!param) return undefined;
  const values = toNumbers(param);
  if (param.size === 1 && param.dims.length <= 1) return { values, at: () => 0 };
  const axis = normalizeAxis(rawAxis, dims.length, op);
  let inner = 1;
  for (let i = axis + 1; i < dims.length; i++) inner *= dims[i];
  const n = dims[axis];
  if (blockSize <= 0) {
    if (param.dims.length !== 1 || param.size !== n) {
      throw new SwitchyardError('INVALID_SHAPE', `${op}: ${what} must be a scalar or a 1-D tensor of ${n} (axis ${axis}), got ${shapeText(param.dims)}`);
    }
    return { values, at: (flat) => Math.floor(flat / inner) % n };
  }
  const blocks = Math.ceil(n / blockSize);
  const fits = param.dims.length === dims.length && param.dims.every((d, i) => (i === axis ? d === blocks : d === dims[i]));
  if (!fits) {
    const want = dims.map((d, i) => (i === axis ? blocks : d));
    throw new SwitchyardError('INVALID_SHAPE', `${op}: blocked ${what} (block_size ${blockSize} on axis ${axis}) must have shape ${shapeText(want)}, got ${shapeText(param.dims)}`);
  }
  return {
    values,
    at: (flat) => {
      const i = flat % inner;
      const rest = (flat - i) / inner;
      const a = rest % n;
      const outer = (rest - a) / n;
      return (outer * blocks + Math.floor(a / blockSize)) * inner + i;
    },
  };
}

/** The `block_size` attribute (opset 21+), checked: 0 means not blocked. */
export function blockSizeAttr(op: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: block_size ${value} is not a non-negative integer`);
  return value;
}
