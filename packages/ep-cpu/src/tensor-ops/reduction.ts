/** The `reduction` attribute of ScatterElements / ScatterND: how an update combines with the existing value. */
import { SwitchyardError, bfloat16BitsToFloat32, float16BitsToFloat32, float32ToBfloat16Bits, float32ToFloat16Bits, type DataType } from '@switchyard/core';

type Value = number | bigint | string;
export type Combine = (current: Value, update: Value) => Value;

const NUMBER_OPS: Record<string, (a: number, b: number) => number> = {
  add: (a, b) => a + b,
  mul: (a, b) => a * b,
  max: (a, b) => (a >= b ? a : b),
  min: (a, b) => (a <= b ? a : b),
};
const BIGINT_OPS: Record<string, (a: bigint, b: bigint) => bigint> = {
  add: (a, b) => a + b,
  mul: (a, b) => a * b,
  max: (a, b) => (a >= b ? a : b),
  min: (a, b) => (a <= b ? a : b),
};

/** The combine function for `reduction` on `type`; undefined for 'none' (plain assignment). */
export function reductionFor(reduction: string, type: DataType, op: string): Combine | undefined {
  if (reduction === 'none') return undefined;
  const num = NUMBER_OPS[reduction];
  if (!num) throw new SwitchyardError('INVALID_MODEL', `${op}: unknown reduction '${reduction}'`);
  if (type === 'string') throw new SwitchyardError('UNSUPPORTED', `${op}: reduction '${reduction}' on strings`);
  if (type === 'int64') return (a, b) => BigInt.asIntN(64, BIGINT_OPS[reduction](a as bigint, b as bigint));
  if (type === 'uint64') return (a, b) => BigInt.asUintN(64, BIGINT_OPS[reduction](a as bigint, b as bigint));
  if (type === 'float16') return (a, b) => float32ToFloat16Bits(num(float16BitsToFloat32(a as number), float16BitsToFloat32(b as number)));
  if (type === 'bfloat16') return (a, b) => float32ToBfloat16Bits(num(bfloat16BitsToFloat32(a as number), bfloat16BitsToFloat32(b as number)));
  if (type === 'bool') return (a, b) => (num(a as number, b as number) ? 1 : 0);
  // A 32-bit product can pass 2^53, where a double would round it before the store wraps it.
  if (reduction === 'mul' && (type === 'int32' || type === 'uint32')) return (a, b) => Math.imul(a as number, b as number);
  return (a, b) => num(a as number, b as number);
}
