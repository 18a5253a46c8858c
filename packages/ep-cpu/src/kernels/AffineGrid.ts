/**
 * AffineGrid (opset 20): the sampling grid of an affine transform, for GridSample. theta [N, r, r+1]
 * maps each output position's normalized coordinates (x innermost, then y, then z; homogeneous 1 last)
 * to input coordinates. size is [N, C, H, W] (r = 2) or [N, C, D, H, W] (r = 3); output
 * [N, H, W, 2] or [N, D, H, W, 3].
 */
import { SwitchyardError } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput } from '../nn/float-io.js';
import { readInts } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

const OP = 'AffineGrid';

/** Normalized coordinate of position i of n: corner-pixel centres at ±1 (align) or pixel centres inside [−1, 1]. */
function baseCoord(i: number, n: number, align: boolean): number {
  if (align) return n === 1 ? -1 : -1 + (2 * i) / (n - 1);
  return -1 + (2 * i + 1) / n;
}

export const affineGridKernel = tensorKernel({
  opType: OP,
  sinceVersion: 20,
  typeConstraints: { T1: FLOAT_KERNEL_TYPES, T2: ['int64'] },
  create({ attrs }) {
    const align = attrs.int('align_corners', 0) !== 0;
    return {
      run(ctx) {
        const theta = ctx.input(0);
        const size = readInts(ctx.input(1), `${OP} size`);
        if (size.length !== 4 && size.length !== 5) throw new SwitchyardError('INVALID_SHAPE', `${OP}: size must have 4 or 5 values, got ${size.length}`);
        if (size.some((v) => v < 0)) throw new SwitchyardError('INVALID_SHAPE', `${OP}: size [${size.join(', ')}] has a negative value`);
        const r = size.length - 2;
        const N = size[0];
        const spatial = size.slice(2);
        if (theta.dims.length !== 3 || theta.dims[0] !== N || theta.dims[1] !== r || theta.dims[2] !== r + 1) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: theta must be [${N}, ${r}, ${r + 1}] for size [${size.join(', ')}], got [${theta.dims.join(', ')}]`);
        }
        const t = floatData(theta, `${OP} theta`);
        const out = floatOutput(ctx, 0, theta.type, [N, ...spatial, r]);
        const y = out.data;
        const points = spatial.reduce((a, b) => a * b, 1);
        // Per spatial dim (outermost first), its coordinate at each position.
        const coords = spatial.map((n) => Float64Array.from({ length: n }, (_, i) => baseCoord(i, n, align)));
        const h = new Float64Array(r + 1); // homogeneous source point: x, y[, z], 1
        h[r] = 1;
        const idx = new Int32Array(r);
        for (let p = 0; p < points; p++) {
          for (let d = r - 1, q = p; d >= 0; d--) {
            idx[d] = q % spatial[d];
            q = Math.floor(q / spatial[d]);
          }
          for (let d = 0; d < r; d++) h[r - 1 - d] = coords[d][idx[d]];
          for (let n = 0; n < N; n++) {
            const tb = n * r * (r + 1);
            const ob = (n * points + p) * r;
            for (let j = 0; j < r; j++) {
              let v = 0;
              for (let k = 0; k <= r; k++) v += t[tb + j * (r + 1) + k] * h[k];
              y[ob + j] = v;
            }
          }
        }
        return [out.commit()];
      },
    };
  },
});
