/**
 * NonZero on the addon: one pass counts, a second writes the int64 coordinates (an odometer over the dims),
 * for every numeric storage and bool; strings stay with the TS kernel. The TS form wrote a BigInt per
 * coordinate and pushed every hit onto a JS array (16 ms for 10^6 elements with 10^5 hits).
 */
import type { DataType, Kernel, KernelDef } from '@switchyard/core';
import type { NativeBinding, NativeCastType, NativeElements } from './binding.js';
import { withNodeErrors } from './native-errors.js';
import { nativeBeside, runsInTs, type SizeRule } from './movement-support.js';
import { SMALL_MOVE_ELEMENTS } from './native-support.js';
import { nonZeroKernel } from '../kernels/NonZero.js';

const TYPES: readonly DataType[] = ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'bool'];

/** The NonZero def, when the loaded addon has nonZeroCount and nonZeroFill. */
export function nativeNonZeroKernels(binding: NativeBinding, smallOpsInTs = true): KernelDef[] {
  const count = binding.nonZeroCount?.bind(binding);
  const fill = binding.nonZeroFill?.bind(binding);
  if (!count || !fill) return [];
  const rule: SizeRule = { smallOpsInTs, small: SMALL_MOVE_ELEMENTS, measure: 'input' };
  return [
    nativeBeside(nonZeroKernel, rule, {
      types: TYPES,
      create: ({ node }, fallback): Kernel => ({
        run(ctx) {
          const x = ctx.input(0);
          if (!TYPES.includes(x.type) || runsInTs(rule, x.size)) return fallback.run(ctx);
          const data = x.data as NativeElements;
          const n = withNodeErrors(node, () => count(data, x.type as NativeCastType, x.dims));
          const out = ctx.output(0, 'int64', [x.dims.length, n], { uninitialized: true });
          withNodeErrors(node, () => fill(data, x.type as NativeCastType, x.dims, out.data as BigInt64Array));
          return [out];
        },
      }),
    }),
  ];
}
