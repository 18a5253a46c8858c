import { SwitchyardError, defineKernel } from '@switchyard/core';
import { UNSIGNED_INTS } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

// JS shifts take the count modulo 32, so counts of 32 or more are spelled out; uint64 always uses BigInt.
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

/** ONNX BitShift on unsigned integers, `direction` LEFT or RIGHT. */
export const bitShiftKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'BitShift',
  sinceVersion: 11,
  typeConstraints: { T: UNSIGNED_INTS },
  create: (init) => {
    const direction = init.attrs.string('direction');
    if (direction === 'LEFT') return left(init);
    if (direction === 'RIGHT') return right(init);
    throw new SwitchyardError('INVALID_MODEL', `BitShift: direction must be LEFT or RIGHT, got '${direction}'`);
  },
});
