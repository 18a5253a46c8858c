/**
 * Windowed pooling (max, average, Lp) over [planes, D, H, W] data, 1-D/2-D mapped to 3-D.
 * Per output coordinate and axis, the range of kernel taps inside the input is precomputed once,
 * so the inner loops never test bounds.
 */
import type { Geometry3 } from './geometry.js';

export type PoolKind = 'max' | 'avg' | 'lp';

export interface PoolOptions {
  kind: PoolKind;
  /** AveragePool: count padding positions in the divisor. */
  countIncludePad?: boolean;
  /** Pads at the end of each of the three axes (for count_include_pad's divisor). */
  padsEnd3?: [number, number, number];
  /** LpPool's p. */
  p?: number;
  /** MaxPool: receives the flat input index of each maximum. */
  indices?: BigInt64Array;
  /** MaxPool: 1 = indices in column-major order over the spatial dims. */
  storageOrder?: number;
}

interface AxisTaps {
  /** First input coordinate of the window (may be negative). */
  base: Int32Array;
  lo: Int32Array;
  hi: Int32Array;
  /** Taps inside [-padBegin, size + padEnd): the count_include_pad divisor factor. */
  padded: Int32Array;
}

function axisTaps(size: number, out: number, k: number, s: number, d: number, pb: number, pe: number): AxisTaps {
  const base = new Int32Array(out);
  const lo = new Int32Array(out);
  const hi = new Int32Array(out);
  const padded = new Int32Array(out);
  for (let o = 0; o < out; o++) {
    const b = o * s - pb;
    base[o] = b;
    let l = b >= 0 ? 0 : Math.ceil(-b / d);
    const h = Math.min(k, Math.max(0, Math.ceil((size - b) / d)));
    if (l > h) l = h;
    lo[o] = l;
    hi[o] = h;
    let n = 0;
    for (let t = 0; t < k; t++) {
      const c = b + t * d;
      if (c >= -pb && c < size + pe) n++;
    }
    padded[o] = n;
  }
  return { base, lo, hi, padded };
}

/** y[planes, oD, oH, oW] ← pool(x[planes, inD, inH, inW]). */
export function poolForward(planes: number, g: Geometry3, x: ArrayLike<number>, y: { [i: number]: number }, opts: PoolOptions): void {
  const { inD, inH, inW, oD, oH, oW } = g;
  const [peD, peH, peW] = opts.padsEnd3 ?? [0, 0, 0];
  const tD = axisTaps(inD, oD, g.kD, g.sD, g.dD, g.pD, peD);
  const tH = axisTaps(inH, oH, g.kH, g.sH, g.dH, g.pH, peH);
  const tW = axisTaps(inW, oW, g.kW, g.sW, g.dW, g.pW, peW);
  const { dD, dH, dW } = g;
  const inPlane = inD * inH * inW;
  const kind = opts.kind;
  const p = opts.p ?? 2;
  const includePad = opts.countIncludePad ?? false;
  const indices = opts.indices;
  const colMajor = opts.storageOrder === 1;
  let yi = 0;
  for (let pl = 0; pl < planes; pl++) {
    const xp = pl * inPlane;
    for (let od = 0; od < oD; od++) {
      const bd = tD.base[od];
      const d0 = tD.lo[od];
      const d1 = tD.hi[od];
      for (let oh = 0; oh < oH; oh++) {
        const bh = tH.base[oh];
        const h0 = tH.lo[oh];
        const h1 = tH.hi[oh];
        for (let ow = 0; ow < oW; ow++, yi++) {
          const bw = tW.base[ow];
          const w0 = tW.lo[ow];
          const w1 = tW.hi[ow];
          if (kind === 'max') {
            let best = -Infinity;
            let bestAt = -1;
            for (let kd = d0; kd < d1; kd++) {
              const id = bd + kd * dD;
              for (let kh = h0; kh < h1; kh++) {
                const ih = bh + kh * dH;
                const row = xp + (id * inH + ih) * inW + bw;
                for (let kw = w0; kw < w1; kw++) {
                  const v = x[row + kw * dW];
                  if (v > best || bestAt < 0) {
                    best = v;
                    bestAt = row + kw * dW;
                  }
                }
              }
            }
            y[yi] = best;
            if (indices) {
              if (colMajor && bestAt >= 0) {
                const local = bestAt - xp;
                const iw = local % inW;
                const ih = Math.floor(local / inW) % inH;
                const id = Math.floor(local / (inW * inH));
                bestAt = xp + id + ih * inD + iw * inD * inH;
              }
              indices[yi] = BigInt(bestAt);
            }
          } else {
            let sum = 0;
            for (let kd = d0; kd < d1; kd++) {
              const id = bd + kd * dD;
              for (let kh = h0; kh < h1; kh++) {
                const ih = bh + kh * dH;
                const row = xp + (id * inH + ih) * inW + bw;
                if (kind === 'avg') for (let kw = w0; kw < w1; kw++) sum += x[row + kw * dW];
                else for (let kw = w0; kw < w1; kw++) sum += Math.abs(x[row + kw * dW]) ** p;
              }
            }
            if (kind === 'avg') {
              const count = includePad ? tD.padded[od] * tH.padded[oh] * tW.padded[ow] : (d1 - d0) * (h1 - h0) * (w1 - w0);
              y[yi] = count > 0 ? sum / count : 0;
            } else {
              y[yi] = sum ** (1 / p);
            }
          }
        }
      }
    }
  }
}
