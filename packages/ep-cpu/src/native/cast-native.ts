/**
 * Cast on the addon's conversion loops between float32, float64, float16, bfloat16, the 8- to 64-bit
 * integers and bool, with the TS kernel's rules (math/cast.ts); strings go to the TS kernel.
 */
import { dataTypeFromOnnx, type DataType, type Kernel, type KernelDef, type KernelInit } from '@switchyard/core';
import type { NativeBinding, NativeCastType, NativeElements } from './binding.js';
import { withNodeErrors } from './native-errors.js';
import { nativeBeside, runsInTs, teamSize, type SizeRule } from './movement-support.js';
import { SMALL_MOVE_ELEMENTS } from './native-support.js';
import { castKernel } from '../kernels/Cast.js';

const CAST_TYPES: readonly NativeCastType[] = ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'bool'];
const CASTABLE = new Set<DataType>(CAST_TYPES);

function isCastType(t: DataType | undefined): t is NativeCastType {
  return t !== undefined && CASTABLE.has(t);
}

function createCast(binding: NativeBinding, cast: NonNullable<NativeBinding['cast']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const to = dataTypeFromOnnx(init.attrs.int('to'));
  return {
    run(ctx) {
      const x = ctx.input(0);
      const from = x.type;
      if (!isCastType(from) || !isCastType(to) || runsInTs(rule, x.size)) return fallback.run(ctx);
      const out = ctx.output(0, to, x.dims, { uninitialized: true });
      withNodeErrors(node, () => cast(x.data as NativeElements, from, out.data as NativeElements, to, teamSize(binding, ctx)));
      return [out];
    },
  };
}

/** The Cast def for what the loaded addon exports. */
export function nativeCastKernels(binding: NativeBinding, smallOpsInTs = true): KernelDef[] {
  const cast = binding.cast?.bind(binding);
  if (!cast) return [];
  const rule: SizeRule = { smallOpsInTs, small: SMALL_MOVE_ELEMENTS };
  return [
    nativeBeside(castKernel, rule, {
      constraints: ['T1', 'T2'],
      types: CAST_TYPES,
      create: (init, fallback) => createCast(binding, cast, rule, init, fallback),
    }),
  ];
}
