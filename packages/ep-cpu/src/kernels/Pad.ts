/**
 * Pad: constant / reflect / edge (and wrap). Opset 1 reads `paddings`, 2–10 `pads` and `value`
 * attributes; 11+ read pads, constant_value (and opset 18's axes) as inputs. Negative pads crop.
 * Each output row maps to one input row (or to the constant) and copies its in-range span at once.
 */
import { SwitchyardError, type KernelRunContext, type Tensor } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable, copyRun, fillRun, storageValue } from '../tensor-ops/elements.js';
import { normalizeAxes, readInts } from '../tensor-ops/indices.js';
import { rowMajorStrides } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

export type PadMode = 'constant' | 'reflect' | 'edge' | 'wrap';
type Mode = PadMode;

/** Input index for output index `o` on an axis of input size `d` with `before` padding; -1 means "the constant". */
function sourceIndex(o: number, before: number, d: number, mode: Mode): number {
  let i = o - before;
  if (i >= 0 && i < d) return i;
  switch (mode) {
    case 'constant':
      return -1;
    case 'edge':
      return i < 0 ? 0 : d - 1;
    case 'wrap':
      return ((i % d) + d) % d;
    case 'reflect': {
      if (d === 1) return 0;
      const period = 2 * (d - 1);
      i = ((i % period) + period) % period;
      return i < d ? i : period - i;
    }
  }
}

export function pad(ctx: KernelRunContext, x: Tensor, pads: readonly number[], mode: Mode, value: number | bigint | string): Tensor {
  checkMovable(x, 'Pad');
  const r = x.dims.length;
  if (pads.length !== 2 * r) throw new SwitchyardError('INVALID_SHAPE', `Pad: ${pads.length} pads for rank ${r} (need ${2 * r})`);
  const dims = x.dims.map((d, i) => d + pads[i] + pads[i + r]);
  if (dims.some((d) => d < 0)) throw new SwitchyardError('INVALID_SHAPE', `Pad: pads [${pads.join(', ')}] crop [${x.dims.join(', ')}] below zero`);
  if (mode !== 'constant') {
    for (let i = 0; i < r; i++) {
      if (x.dims[i] === 0 && dims[i] > 0) throw new SwitchyardError('INVALID_SHAPE', `Pad: ${mode} mode cannot pad the empty axis ${i}`);
    }
  }
  const out = allocOutput(ctx, 0, x.type, dims);
  if (out.size === 0) return out;
  if (r === 0) {
    out.data[0] = x.data[0];
    return out;
  }
  const src = x.data;
  const dst = out.data;
  const is = rowMajorStrides(x.dims);
  const last = r - 1;
  const W = dims[last];
  const d = x.dims[last];
  const b = pads[last];
  const lo = Math.min(Math.max(0, b), W);
  const hi = Math.min(W, b + d);
  const rows = out.size / W;
  const coord = new Array<number>(last).fill(0);
  for (let row = 0, o = 0; row < rows; row++, o += W) {
    let base = 0;
    for (let k = 0; k < last && base >= 0; k++) {
      const i = sourceIndex(coord[k], pads[k], x.dims[k], mode);
      base = i < 0 ? -1 : base + i * is[k];
    }
    if (base < 0) fillRun(dst, o, W, value);
    else {
      for (let j = 0; j < lo; j++) {
        const i = sourceIndex(j, b, d, mode);
        dst[o + j] = i < 0 ? value : src[base + i];
      }
      if (hi > lo) copyRun(src, base + lo - b, dst, o + lo, hi - lo);
      for (let j = Math.max(hi, lo); j < W; j++) {
        const i = sourceIndex(j, b, d, mode);
        dst[o + j] = i < 0 ? value : src[base + i];
      }
    }
    for (let k = last - 1; k >= 0; k--) {
      if (++coord[k] < dims[k]) break;
      coord[k] = 0;
    }
  }
  return out;
}

export function parseMode(m: string): Mode {
  if (m === 'constant' || m === 'reflect' || m === 'edge' || m === 'wrap') return m;
  throw new SwitchyardError('INVALID_MODEL', `Pad: unknown mode '${m}'`);
}

export const padV2Kernel = tensorKernel({
  opType: 'Pad',
  sinceVersion: 1,
  endVersion: 10,
  typeConstraints: { T: TENSOR_TYPES },
  create({ attrs, opset }) {
    const mode = parseMode(attrs.string('mode', 'constant'));
    const pads = attrs.ints(opset < 2 ? 'paddings' : 'pads');
    const value = attrs.float('value', 0);
    return { run: (ctx) => [pad(ctx, ctx.input(0), pads, mode, storageValue(ctx.input(0).type, value))] };
  },
});

/** Opset 11+: the pads over every axis (opset 18's `axes` spread out) and the constant, from inputs 1–3. */
export function padInputs(ctx: KernelRunContext, x: Tensor): { pads: number[]; value: number | bigint | string } {
  let pads = readInts(ctx.input(1), 'Pad pads');
  const cv = ctx.optionalInput(2);
  if (cv && cv.size !== 1) throw new SwitchyardError('INVALID_SHAPE', 'Pad: constant_value must hold one element');
  const value = cv && cv.size === 1 ? cv.data[0] : storageValue(x.type, 0);
  const axesT = ctx.optionalInput(3);
  if (axesT) {
    // Opset 18: pads name only the listed axes.
    const r = x.dims.length;
    const axes = normalizeAxes(readInts(axesT, 'Pad axes'), r, 'Pad');
    if (pads.length !== 2 * axes.length) throw new SwitchyardError('INVALID_SHAPE', `Pad: ${pads.length} pads for ${axes.length} axes`);
    const full = new Array<number>(2 * r).fill(0);
    axes.forEach((a, i) => {
      full[a] = pads[i];
      full[a + r] = pads[i + axes.length];
    });
    pads = full;
  }
  return { pads, value };
}

export const padKernel = tensorKernel({
  opType: 'Pad',
  sinceVersion: 11,
  typeConstraints: { T: TENSOR_TYPES },
  create({ attrs }) {
    const mode = parseMode(attrs.string('mode', 'constant'));
    return {
      run(ctx) {
        const x = ctx.input(0);
        const { pads, value } = padInputs(ctx, x);
        return [pad(ctx, x, pads, mode, value)];
      },
    };
  },
});
