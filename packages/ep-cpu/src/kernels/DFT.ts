/**
 * DFT (opset 17): the discrete Fourier transform along one axis of a signal [batch, n1, …, nk, 1|2]
 * (last dim: real, or real and imaginary parts); output [..., 2]. `dft_length` zero-pads or truncates
 * the transformed axis; `onesided` keeps the floor(L/2) + 1 non-redundant bins of a real signal.
 */
import { SwitchyardError } from '@switchyard/core';
import { floatData, floatOutput } from '../nn/float-io.js';
import { INDEX_TYPES } from '../tensor-ops/elements.js';
import { product, readScalarInt } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { dft } from '../extra/fft.js';

const OP = 'DFT';

export const dftKernel = tensorKernel({
  opType: OP,
  sinceVersion: 17,
  typeConstraints: { T1: ['float32', 'float64', 'float16', 'bfloat16'], T2: INDEX_TYPES },
  create({ attrs }) {
    const axisAttr = attrs.int('axis', 1);
    const inverse = attrs.int('inverse', 0) !== 0;
    const onesided = attrs.int('onesided', 0) !== 0;
    if (inverse && onesided) throw new SwitchyardError('UNSUPPORTED', `${OP}: inverse with onesided = 1 is not supported`);
    return {
      run(ctx) {
        const x = ctx.input(0);
        const dims = x.dims;
        const r = dims.length;
        const parts = dims[r - 1];
        if (r < 2 || (parts !== 1 && parts !== 2)) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: input must be [batch, n…, 1 or 2], got [${dims.join(', ')}]`);
        }
        // The last dim holds the complex parts, so it cannot be the transformed axis.
        const axis = axisAttr < 0 ? axisAttr + r : axisAttr;
        if (!(axis >= 0 && axis < r - 1)) throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: axis ${axisAttr} is out of range for input rank ${r}`);
        if (onesided && parts === 2) throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: onesided needs a real input ([…, 1]), got complex`);
        const lengthT = ctx.optionalInput(1);
        const n = dims[axis];
        const L = lengthT ? readScalarInt(lengthT, `${OP} dft_length`) : n;
        if (L < 1) throw new SwitchyardError('RUNTIME', `${OP}: dft_length must be ≥ 1, got ${L}`);
        const bins = onesided ? Math.floor(L / 2) + 1 : L;
        const outer = product(dims, 0, axis);
        const inner = product(dims, axis + 1, r - 1);
        const src = floatData(x, `${OP} input`);
        const outDims = [...dims];
        outDims[axis] = bins;
        outDims[r - 1] = 2;
        const out = floatOutput(ctx, 0, x.type, outDims);
        const y = out.data;
        const re = new Float64Array(L);
        const im = new Float64Array(L);
        const used = Math.min(n, L);
        for (let o = 0; o < outer; o++) {
          for (let i = 0; i < inner; i++) {
            re.fill(0);
            im.fill(0);
            for (let k = 0; k < used; k++) {
              const s = ((o * n + k) * inner + i) * parts;
              re[k] = src[s];
              if (parts === 2) im[k] = src[s + 1];
            }
            dft(re, im, inverse);
            for (let k = 0; k < bins; k++) {
              const d = ((o * bins + k) * inner + i) * 2;
              y[d] = re[k];
              y[d + 1] = im[k];
            }
          }
        }
        return [out.commit()];
      },
    };
  },
});
