/**
 * GridSample (opset 16): samples X [N, C, H, W] at the positions of grid [N, H_out, W_out, 2] (x, y in
 * [−1, 1]) with bilinear, nearest or bicubic interpolation; output [N, C, H_out, W_out].
 */
import { SwitchyardError } from '@switchyard/core';
import { floatData, floatOutput } from '../nn/float-io.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { cubicWeights, padCoordinate, roundHalfToEven, unnormalize, type GridPadding } from '../extra/grid-coords.js';

const OP = 'GridSample';
const FLOAT_TYPES = ['float32', 'float64', 'float16'] as const;

type Mode = 'bilinear' | 'nearest' | 'bicubic';

function oneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new SwitchyardError('INVALID_MODEL', `${OP}: ${what} must be one of ${allowed.join(', ')}, got '${value}'`);
}

export const gridSampleKernel = tensorKernel({
  opType: OP,
  sinceVersion: 16,
  typeConstraints: { T1: FLOAT_TYPES, T2: FLOAT_TYPES },
  create({ attrs }) {
    const mode = oneOf<Mode>(attrs.string('mode', 'bilinear'), ['bilinear', 'nearest', 'bicubic'], 'mode');
    const padding = oneOf<GridPadding>(attrs.string('padding_mode', 'zeros'), ['zeros', 'border', 'reflection'], 'padding_mode');
    const align = attrs.int('align_corners', 0) !== 0;
    return {
      run(ctx) {
        const x = ctx.input(0);
        const grid = ctx.input(1);
        if (x.dims.length !== 4) throw new SwitchyardError('INVALID_SHAPE', `${OP}: X must be 4-D [N, C, H, W], got [${x.dims.join(', ')}]`);
        const [N, C, H, W] = x.dims;
        if (grid.dims.length !== 4 || grid.dims[0] !== N || grid.dims[3] !== 2) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: grid must be [${N}, H_out, W_out, 2], got [${grid.dims.join(', ')}]`);
        }
        const [, Ho, Wo] = grid.dims;
        const xs = floatData(x, `${OP} X`);
        const g = floatData(grid, `${OP} grid`);
        const out = floatOutput(ctx, 0, x.type, [N, C, Ho, Wo]);
        const y = out.data;
        const plane = H * W;
        // Reads pixel (iy, ix) of one channel plane; positions outside the image read 0 (the zeros padding
        // mode, and the far bilinear taps of a position on the last row/column, whose weight is 0 anyway).
        const at = (base: number, iy: number, ix: number) => (ix >= 0 && ix < W && iy >= 0 && iy < H ? xs[base + iy * W + ix] : 0);
        const wx = new Float64Array(4);
        const wy = new Float64Array(4);
        for (let n = 0; n < N; n++) {
          for (let oy = 0; oy < Ho; oy++) {
            for (let ox = 0; ox < Wo; ox++) {
              const gi = ((n * Ho + oy) * Wo + ox) * 2;
              const px = unnormalize(g[gi], W, align);
              const py = unnormalize(g[gi + 1], H, align);
              const o = oy * Wo + ox;
              if (mode === 'bicubic') {
                // Taps are taken around the unpadded position; each tap index is folded by the padding mode.
                const fx = Math.floor(px);
                const fy = Math.floor(py);
                cubicWeights(px - fx, wx);
                cubicWeights(py - fy, wy);
                const tx = [0, 1, 2, 3].map((k) => padCoordinate(fx - 1 + k, W, padding, align));
                const ty = [0, 1, 2, 3].map((k) => padCoordinate(fy - 1 + k, H, padding, align));
                for (let c = 0; c < C; c++) {
                  const base = (n * C + c) * plane;
                  let v = 0;
                  for (let j = 0; j < 4; j++) for (let i = 0; i < 4; i++) v += wy[j] * wx[i] * at(base, ty[j], tx[i]);
                  y[(n * C + c) * Ho * Wo + o] = v;
                }
                continue;
              }
              const sx = padCoordinate(px, W, padding, align);
              const sy = padCoordinate(py, H, padding, align);
              if (mode === 'nearest') {
                const ix = roundHalfToEven(sx);
                const iy = roundHalfToEven(sy);
                for (let c = 0; c < C; c++) y[(n * C + c) * Ho * Wo + o] = at((n * C + c) * plane, iy, ix);
                continue;
              }
              const x0 = Math.floor(sx);
              const y0 = Math.floor(sy);
              const ax = sx - x0;
              const ay = sy - y0;
              for (let c = 0; c < C; c++) {
                const base = (n * C + c) * plane;
                const top = at(base, y0, x0) * (1 - ax) + at(base, y0, x0 + 1) * ax;
                const bottom = at(base, y0 + 1, x0) * (1 - ax) + at(base, y0 + 1, x0 + 1) * ax;
                y[(n * C + c) * Ho * Wo + o] = top * (1 - ay) + bottom * ay;
              }
            }
          }
        }
        return [out.commit()];
      },
    };
  },
});
