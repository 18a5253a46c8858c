/**
 * Pad on the addon's dtype-generic kernel: constant, reflect, edge and wrap modes, negative pads
 * cropping, every opset form (1–10's attributes, 11+'s inputs, 18's axes). Any dtype but strings.
 */
import { SwitchyardError, elementCount, type Kernel, type KernelDef, type KernelInit, type KernelRunContext, type Tensor } from '@switchyard/core';
import type { NativeBinding, NativeElements } from './binding.js';
import { withNodeErrors } from './native-errors.js';
import { nativeBeside, nativeElements, runsInTs, teamSize, type SizeRule } from './movement-support.js';
import { SMALL_MOVE_ELEMENTS } from './native-support.js';
import { padInputs, padKernel, padV2Kernel, parseMode } from '../kernels/Pad.js';
import { storageValue } from '../tensor-ops/elements.js';

type TypedArrayConstructor = new (length: number) => NativeElements;

/** The constant as a one-element array of x's storage type (the addon copies its bytes). */
function constantOf(x: Tensor, value: number | bigint | string): NativeElements {
  const one = new ((x.data as NativeElements).constructor as TypedArrayConstructor)(1);
  (one as unknown as Array<number | bigint>)[0] = value as number | bigint;
  return one;
}

function createPad(binding: NativeBinding, pad: NonNullable<NativeBinding['pad']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const mode = parseMode(init.attrs.string('mode', 'constant'));
  // Opsets 1–10: pads ('paddings' in opset 1) and value are attributes.
  const attrPads = init.opset < 11 ? init.attrs.ints(init.opset < 2 ? 'paddings' : 'pads') : undefined;
  const attrValue = init.attrs.float('value', 0);
  const argsOf = (ctx: KernelRunContext, x: Tensor) =>
    attrPads ? { pads: attrPads, value: storageValue(x.type, attrValue) } : padInputs(ctx, x);
  return {
    run(ctx) {
      const x = ctx.input(0);
      const src = nativeElements(x);
      if (!src) return fallback.run(ctx);
      const { pads, value } = argsOf(ctx, x);
      const r = x.dims.length;
      const dims = x.dims.map((d, i) => d + pads[i] + pads[i + r]);
      // Malformed pads get the TS kernel's errors.
      if (pads.length !== 2 * r || dims.some((d) => d < 0) || runsInTs(rule, elementCount(dims))) return fallback.run(ctx);
      if (mode !== 'constant' && x.dims.some((d, i) => d === 0 && dims[i] > 0)) {
        throw new SwitchyardError('INVALID_SHAPE', `Pad: ${mode} mode cannot pad an empty axis`);
      }
      const out = ctx.output(0, x.type, dims, { uninitialized: true });
      const constant = mode === 'constant' ? constantOf(x, value) : null;
      withNodeErrors(node, () => pad(src, x.dims, out.data as NativeElements, pads, mode, constant, teamSize(binding, ctx)));
      return [out];
    },
  };
}

/** Pad defs (both opset ranges) for what the loaded addon exports. */
export function nativePadKernels(binding: NativeBinding, smallOpsInTs = true): KernelDef[] {
  const pad = binding.pad?.bind(binding);
  if (!pad) return [];
  const rule: SizeRule = { smallOpsInTs, small: SMALL_MOVE_ELEMENTS };
  return [padV2Kernel, padKernel].map((ts) => nativeBeside(ts, rule, { create: (init, fallback) => createPad(binding, pad, rule, init, fallback) }));
}
