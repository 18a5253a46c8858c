/**
 * GridSample: samples X [N, C, D1 … Dr] at the positions of grid [N, O1 … Or', r] (coordinates in
 * [−1, 1], innermost spatial dim first) with linear, nearest or cubic interpolation; output
 * [N, C, O1 … Or']. Opset 16 takes only 2-D images and names the modes bilinear/bicubic; opset 20
 * renames them linear/cubic and allows any number of spatial dims (volumetric 3-D and beyond).
 * Interpolation is separable: each spatial dim contributes 1, 2 or 4 taps with weights, and the
 * sample is the weighted sum over every combination of taps.
 */
import { SwitchyardError } from '@switchyard/core';
import { floatData, floatOutput } from '../nn/float-io.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { cubicWeights, padCoordinate, roundHalfToEven, unnormalize, type GridPadding } from '../extra/grid-coords.js';

const OP = 'GridSample';
const FLOAT_TYPES = ['float32', 'float64', 'float16'] as const;

type Mode = 'linear' | 'nearest' | 'cubic';

/** 4^8: cubic over 8 spatial dims, linear over 16; beyond that no real model goes. */
const MAX_TAP_COMBINATIONS = 65536;
const TABLE_ENTRIES = 1 << 20;

function oneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new SwitchyardError('INVALID_MODEL', `${OP}: ${what} must be one of ${allowed.join(', ')}, got '${value}'`);
}

/** The node's mode in opset-20 names (opset 16 spells two of them bilinear and bicubic). */
function readMode(name: string, opset: number): Mode {
  if (opset >= 20) return oneOf<Mode>(name, ['linear', 'nearest', 'cubic'], 'mode');
  const legacy = oneOf(name, ['bilinear', 'nearest', 'bicubic'], 'mode');
  return legacy === 'bilinear' ? 'linear' : legacy === 'bicubic' ? 'cubic' : 'nearest';
}

/**
 * Writes one spatial dim's taps for position `p` (pixel units) into idx/w; returns how many. Cubic
 * folds each tap index by the padding mode; linear and nearest fold the position first, as PyTorch.
 */
function taps(mode: Mode, p: number, size: number, padding: GridPadding, align: boolean, idx: Float64Array, w: Float64Array): number {
  if (mode === 'cubic') {
    const f = Math.floor(p);
    cubicWeights(p - f, w);
    for (let k = 0; k < 4; k++) idx[k] = padCoordinate(f - 1 + k, size, padding, align);
    return 4;
  }
  const s = padCoordinate(p, size, padding, align);
  if (mode === 'nearest') {
    idx[0] = roundHalfToEven(s);
    w[0] = 1;
    return 1;
  }
  const f = Math.floor(s);
  idx[0] = f;
  idx[1] = f + 1;
  w[1] = s - f;
  w[0] = 1 - w[1];
  return 2;
}

interface TapTable {
  spatial: readonly number[];
  mode: Mode;
  padding: GridPadding;
  align: boolean;
  comboOffset: Int32Array;
  comboWeight: Float64Array;
  comboCount: Uint32Array;
  perPoint: number;
}

/**
 * For each grid point of one batch entry: every combination of taps that lands inside the image
 * (outside reads are zero, so they are dropped), as a plane offset and a weight. Combination order
 * and weight products match the per-channel sum the kernel always did, so results are unchanged.
 */
function tabulateTaps(t: TapTable, g: ArrayLike<number>, gridBase: number, points: number): void {
  const { spatial, mode, padding, align, comboOffset, comboWeight, comboCount, perPoint } = t;
  const r = spatial.length;
  const tapIdx = spatial.map(() => new Float64Array(4));
  const tapW = spatial.map(() => new Float64Array(4));
  const tapCount = new Int32Array(r);
  const k = new Int32Array(r);
  for (let o = 0; o < points; o++) {
    const gi = gridBase + o * r;
    // grid's last axis lists coordinates innermost dim first: entry j is spatial dim r − 1 − j.
    for (let d = 0; d < r; d++) {
      const p = unnormalize(g[gi + r - 1 - d], spatial[d], align);
      tapCount[d] = taps(mode, p, spatial[d], padding, align, tapIdx[d], tapW[d]);
    }
    const first = o * perPoint;
    let combos = 0;
    k.fill(0);
    for (;;) {
      let off = 0;
      let w = 1;
      let inside = true;
      for (let d = 0; d < r; d++) {
        const i = tapIdx[d][k[d]];
        if (!(i >= 0 && i < spatial[d])) {
          inside = false;
          break;
        }
        off = off * spatial[d] + i;
        w *= tapW[d][k[d]];
      }
      if (inside) {
        comboOffset[first + combos] = off;
        comboWeight[first + combos++] = w;
      }
      let d = r - 1;
      while (d >= 0 && ++k[d] === tapCount[d]) k[d--] = 0;
      if (d < 0) break;
    }
    comboCount[o] = combos;
  }
}

/** One channel: y[yBase + o] = Σ weight · x[xBase + offset] over point o's tabled taps. */
function sweepPlane(
  xs: ArrayLike<number>, xBase: number, y: { [i: number]: number }, yBase: number, points: number,
  comboOffset: Int32Array, comboWeight: Float64Array, comboCount: Uint32Array, perPoint: number,
): void {
  for (let o = 0; o < points; o++) {
    const first = o * perPoint;
    const end = first + comboCount[o];
    let v = 0;
    for (let j = first; j < end; j++) v += comboWeight[j] * xs[xBase + comboOffset[j]];
    y[yBase + o] = v;
  }
}

export const gridSampleKernel = tensorKernel({
  opType: OP,
  sinceVersion: 16,
  typeConstraints: { T1: FLOAT_TYPES, T2: FLOAT_TYPES },
  create({ attrs, opset }) {
    const mode = readMode(attrs.string('mode', opset >= 20 ? 'linear' : 'bilinear'), opset);
    const padding = oneOf<GridPadding>(attrs.string('padding_mode', 'zeros'), ['zeros', 'border', 'reflection'], 'padding_mode');
    const align = attrs.int('align_corners', 0) !== 0;
    return {
      run(ctx) {
        const x = ctx.input(0);
        const grid = ctx.input(1);
        const r = x.dims.length - 2;
        if (r < 1 || (opset < 20 && r !== 2)) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: X must be ${opset < 20 ? '4-D [N, C, H, W]' : '[N, C, D1, …]'} at opset ${opset}, got [${x.dims.join(', ')}]`);
        }
        // Each output point combines taps^r input points: keep that table small.
        if ((mode === 'cubic' ? 4 : 2) ** r > MAX_TAP_COMBINATIONS) {
          throw new SwitchyardError('UNSUPPORTED', `${OP}: ${r} spatial dims in ${mode} mode need more than ${MAX_TAP_COMBINATIONS} taps per sample`);
        }
        const [N, C] = x.dims;
        const spatial = x.dims.slice(2);
        if (grid.dims.length !== r + 2 || grid.dims[0] !== N || grid.dims[r + 1] !== r) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: grid must be [${N}, …${r} output dims, ${r}], got [${grid.dims.join(', ')}]`);
        }
        const outSpatial = grid.dims.slice(1, r + 1);
        const points = outSpatial.reduce((a, b) => a * b, 1);
        const plane = spatial.reduce((a, b) => a * b, 1);
        const xs = floatData(x, `${OP} X`);
        const g = floatData(grid, `${OP} grid`);
        const out = floatOutput(ctx, 0, x.type, [N, C, ...outSpatial]);
        const y = out.data;
        // Taps depend only on the grid point, so they are tabled once per block of points and then swept
        // plane by plane: each channel reads one input plane and writes its output plane contiguously.
        // Blocks keep the table near 12 MiB whatever the number of points and spatial dims.
        const perPoint = (mode === 'cubic' ? 4 : mode === 'linear' ? 2 : 1) ** r;
        const block = Math.max(1, Math.min(points, Math.floor(TABLE_ENTRIES / perPoint)));
        const comboOffset = new Int32Array(block * perPoint);
        const comboWeight = new Float64Array(block * perPoint);
        const comboCount = new Uint32Array(block);
        const table = { spatial, mode, padding, align, comboOffset, comboWeight, comboCount, perPoint };
        for (let n = 0; n < N; n++) {
          for (let o0 = 0; o0 < points; o0 += block) {
            const count = Math.min(block, points - o0);
            tabulateTaps(table, g, (n * points + o0) * r, count);
            for (let c = 0; c < C; c++) {
              sweepPlane(xs, (n * C + c) * plane, y, (n * C + c) * points + o0, count, comboOffset, comboWeight, comboCount, perPoint);
            }
          }
        }
        return [out.commit()];
      },
    };
  },
});
