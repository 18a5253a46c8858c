/** Position inputs of the sequence ops: negatives count from the end; out of range is a RUNTIME error. */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import { readScalarInt } from './indices.js';

/** `position` resolved against a sequence of `length`, allowing `length` itself when `inclusiveEnd`. */
export function sequencePosition(position: Tensor, length: number, op: string, inclusiveEnd = false): number {
  const p = readScalarInt(position, `${op} position`);
  const hi = inclusiveEnd ? length : length - 1;
  if (p < -length || p > hi) throw new SwitchyardError('RUNTIME', `${op}: position ${p} is out of range for a sequence of ${length}`);
  return p < 0 ? p + length : p;
}
