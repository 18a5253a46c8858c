/**
 * Col2Im (opset 18): the inverse of im2col. Input [N, C·∏block, L] holds, for each of the L sliding
 * block positions over the (padded) image, one column of C·∏block values; each value is added into
 * the output pixel it came from, [N, C, ...image_shape]. Any number of spatial dims.
 */
import { SwitchyardError } from '@switchyard/core';
import { readInts } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

const OP = 'Col2Im';
const FLOATS = ['float32', 'float64'] as const;

function ints(attr: number[] | undefined, n: number, fill: number, name: string): number[] {
  if (attr === undefined) return new Array<number>(n).fill(fill);
  if (attr.length !== n) throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: ${name} has ${attr.length} values for ${n} spatial dims`);
  return attr;
}

export const col2ImKernel = tensorKernel({
  opType: OP,
  sinceVersion: 18,
  // The schema allows every type; sums need numbers, and float32/float64 are what models feed it.
  typeConstraints: { T: [...FLOATS] },
  create({ attrs }) {
    const dilAttr = attrs.has('dilations') ? attrs.ints('dilations') : undefined;
    const padAttr = attrs.has('pads') ? attrs.ints('pads') : undefined;
    const strideAttr = attrs.has('strides') ? attrs.ints('strides') : undefined;
    return {
      run(ctx) {
        const x = ctx.input(0);
        if (x.type !== 'float32' && x.type !== 'float64') throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: input must be float32 or float64, got ${x.type}`);
        const image = readInts(ctx.input(1), `${OP} image_shape`);
        const block = readInts(ctx.input(2), `${OP} block_shape`);
        const n = image.length;
        if (n === 0 || block.length !== n) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: image_shape (${n} dims) and block_shape (${block.length}) must name the same, non-zero number of dims`);
        }
        const dil = ints(dilAttr, n, 1, 'dilations');
        const pads = ints(padAttr, 2 * n, 0, 'pads');
        const strides = ints(strideAttr, n, 1, 'strides');
        if ([...dil, ...strides].some((v) => v < 1) || pads.some((v) => v < 0)) {
          throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: dilations and strides must be ≥ 1 and pads ≥ 0`);
        }
        if (image.some((v) => v < 1) || block.some((v) => v < 1)) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: image_shape [${image.join(', ')}] and block_shape [${block.join(', ')}] must be positive`);
        }
        if (x.dims.length !== 3) throw new SwitchyardError('INVALID_SHAPE', `${OP}: input must be [N, C·∏block, L], got [${x.dims.join(', ')}]`);
        const [N, CK, L] = x.dims;
        const kernelSize = block.reduce((a, b) => a * b, 1);
        if (CK % kernelSize !== 0) throw new SwitchyardError('INVALID_SHAPE', `${OP}: input dim 1 (${CK}) is not a multiple of ∏block_shape (${kernelSize})`);
        const C = CK / kernelSize;
        // Sliding positions per spatial dim, as a convolution over the padded image would have them.
        const blocks = image.map((d, i) => Math.floor((d + pads[i] + pads[i + n] - dil[i] * (block[i] - 1) - 1) / strides[i]) + 1);
        if (blocks.some((b) => b < 1)) throw new SwitchyardError('INVALID_SHAPE', `${OP}: the blocks do not fit the padded image`);
        const positions = blocks.reduce((a, b) => a * b, 1);
        if (positions !== L) throw new SwitchyardError('INVALID_SHAPE', `${OP}: input dim 2 is ${L} but the image holds ${positions} block positions [${blocks.join(', ')}]`);
        const out = ctx.output(0, x.type, [N, C, ...image]); // size checked before allocating
        const src = x.data as Float32Array | Float64Array;
        const dst = out.data as Float32Array | Float64Array;
        const imageSize = image.reduce((a, b) => a * b, 1);
        const k = new Array<number>(n).fill(0); // offset inside the block
        const p = new Array<number>(n).fill(0); // block position
        for (let b = 0; b < N; b++) {
          for (let c = 0; c < C; c++) {
            const outBase = (b * C + c) * imageSize;
            for (let kk = 0; kk < kernelSize; kk++) {
              // kk → per-dim kernel offsets (last dim fastest).
              for (let i = n - 1, r = kk; i >= 0; i--) {
                k[i] = r % block[i];
                r = Math.floor(r / block[i]);
              }
              const rowBase = ((b * C + c) * kernelSize + kk) * L;
              p.fill(0);
              for (let l = 0; l < L; l++) {
                let at = 0;
                let inside = true;
                for (let i = 0; i < n; i++) {
                  const pos = p[i] * strides[i] - pads[i] + k[i] * dil[i];
                  if (pos < 0 || pos >= image[i]) {
                    inside = false;
                    break;
                  }
                  at = at * image[i] + pos;
                }
                if (inside) dst[outBase + at] += src[rowBase + l];
                for (let i = n - 1; i >= 0 && ++p[i] === blocks[i]; i--) p[i] = 0;
              }
            }
          }
        }
        return [out];
      },
    };
  },
});
