import { SwitchyardError, defineKernel, type Kernel, type KernelInit } from '@switchyard/core';
import { SIGNED_INTS, UNSIGNED_INTS } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

// JS shifts take the count modulo 32, so counts of 32 or more are spelled out; 64-bit types always use BigInt.
const left = binaryKernel({
  opType: 'BitShift',
  types: UNSIGNED_INTS,
  int: 'y >= 32 ? 0 : x << y',
  big: 'y >= 64n ? 0n : x << y',
  bigOnly: true,
});
const right = binaryKernel({
  opType: 'BitShift',
  types: UNSIGNED_INTS,
  int: 'y >= 32 ? 0 : x >>> y',
  big: 'x >> y',
  bigOnly: true,
});
// Signed integers (opset 26+): a count that is negative or not below the width gives 0 to the left,
// and the sign (0 or −1) to the right; a left shift keeps the low bits (two's complement wrap on store).
// For 8/16-bit types a count between the width and 31 already yields those results in int32 arithmetic.
const signedLeft = binaryKernel({
  opType: 'BitShift',
  types: SIGNED_INTS,
  int: 'y < 0 || y >= 32 ? 0 : x << y',
  big: 'y < 0n || y >= 64n ? 0n : x << y',
  bigOnly: true,
});
const signedRight = binaryKernel({
  opType: 'BitShift',
  types: SIGNED_INTS,
  int: 'y < 0 || y >= 32 ? (x < 0 ? -1 : 0) : x >> y',
  big: 'y < 0n || y >= 64n ? (x < 0n ? -1n : 0n) : x >> y',
  bigOnly: true,
});

function byDirection(init: KernelInit, unsigned: (init: KernelInit) => Kernel, signed: (init: KernelInit) => Kernel): Kernel {
  const u = unsigned(init);
  const s = signed(init);
  return { run: (ctx) => (SIGNED_INTS.includes(ctx.input(0).type) ? s : u).run(ctx) };
}

/** ONNX BitShift, `direction` LEFT or RIGHT: unsigned integers, and signed ones from opset 26. */
export const bitShiftKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'BitShift',
  sinceVersion: 11,
  typeConstraints: { T: [...UNSIGNED_INTS, ...SIGNED_INTS] },
  create: (init) => {
    const direction = init.attrs.string('direction');
    if (direction === 'LEFT') return byDirection(init, left, signedLeft);
    if (direction === 'RIGHT') return byDirection(init, right, signedRight);
    throw new SwitchyardError('INVALID_MODEL', `BitShift: direction must be LEFT or RIGHT, got '${direction}'`);
  },
});
