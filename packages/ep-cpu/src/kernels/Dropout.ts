/**
 * Dropout. Inference (the default, and always before opset 12 except Dropout-1..6 with is_test = 0):
 * output = input, mask all true. Opset 12+ takes optional `ratio` and `training_mode` inputs; training
 * zeroes elements with probability `ratio` (seeded by the `seed` attribute when given) and scales the
 * rest by 1 / (1 - ratio).
 */
import { SwitchyardError, defineKernel, simpleKernel, type KernelRunContext, type KernelInit, type Tensor } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput } from '../nn/float-io.js';

/** mulberry32: a small seeded generator, so a given seed reproduces its mask. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function scalarInput(ctx: KernelRunContext, i: number): number | undefined {
  const t = ctx.optionalInput(i);
  if (!t) return undefined;
  if (t.size !== 1) throw new SwitchyardError('INVALID_SHAPE', `Dropout: input ${i} must be a scalar`);
  return t.type === 'bool' ? (t.data as Uint8Array)[0] : floatData(t, 'Dropout ratio')[0];
}

function runDropout(ctx: KernelRunContext, init: KernelInit) {
  const X = ctx.input(0);
  let ratio = init.opset >= 12 ? scalarInput(ctx, 1) ?? 0.5 : init.attrs.float('ratio', 0.5);
  const training = init.opset >= 12 ? (scalarInput(ctx, 2) ?? 0) !== 0 : init.opset < 7 && init.attrs.int('is_test', 0) === 0 && init.attrs.has('is_test');
  if (!(ratio >= 0 && ratio < 1)) throw new SwitchyardError('INVALID_ARGUMENT', `Dropout: ratio ${ratio} must be in [0, 1)`);
  if (!training) ratio = 0;
  const wantMask = ctx.node.outputs.length > 1 && ctx.node.outputs[1] !== '';
  // Dropout-7..9 declare the mask with the input's type; from 10 it is bool.
  const maskType = init.opset >= 10 ? 'bool' : X.type;
  let y: Tensor;
  let keep: Uint8Array | undefined;
  if (ratio === 0) {
    y = ctx.output(0, X.type, X.dims);
    (y.data as Float32Array).set(X.data as Float32Array);
  } else {
    const next = rng(init.attrs.int('seed', (Math.random() * 2 ** 31) | 0));
    const x = floatData(X);
    const out = floatOutput(ctx, 0, X.type, X.dims);
    const scale = 1 / (1 - ratio);
    keep = new Uint8Array(X.size);
    for (let i = 0; i < X.size; i++) {
      keep[i] = next() >= ratio ? 1 : 0;
      out.data[i] = keep[i] ? x[i] * scale : 0;
    }
    y = out.commit();
  }
  if (!wantMask) return [y];
  if (maskType === 'bool') {
    const mask = ctx.output(1, 'bool', X.dims);
    if (keep) mask.data.set(keep);
    else mask.data.fill(1);
    return [y, mask];
  }
  const mask = floatOutput(ctx, 1, maskType, X.dims);
  for (let i = 0; i < X.size; i++) mask.data[i] = keep ? keep[i] : 1;
  return [y, mask.commit()];
}

export const dropoutKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Dropout',
  sinceVersion: 1,
  typeConstraints: { T: [...FLOAT_KERNEL_TYPES, 'bfloat16'], T1: FLOAT_KERNEL_TYPES, T2: ['bool'] },
  create: simpleKernel(runDropout),
});
