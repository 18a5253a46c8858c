/**
 * DFT (opsets 17, 20): the discrete Fourier transform along one axis of a signal [batch, n1, …, nk, 1|2]
 * (last dim: real, or real and imaginary parts); output [..., 2]. `dft_length` zero-pads or truncates
 * the transformed axis; `onesided` keeps the floor(L/2) + 1 non-redundant bins of a real signal.
 * Inverse with `onesided` is the inverse real transform: the input holds those one-sided bins, the
 * output is the real signal [..., L, 1] (L defaulting to 2·(bins − 1)). Opset 17 takes the axis as an
 * attribute (default 1); opset 20 as an optional scalar input (default −2).
 */
import { SwitchyardError, type KernelRunContext, type Tensor } from '@switchyard/core';
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
  create({ attrs, opset }) {
    const axisAttr = attrs.int('axis', 1);
    const inverse = attrs.int('inverse', 0) !== 0;
    const onesided = attrs.int('onesided', 0) !== 0;
    const axisFromInput = opset >= 20;
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
        const axisT = axisFromInput ? ctx.optionalInput(2) : undefined;
        const axisGiven = axisFromInput ? (axisT ? readScalarInt(axisT, `${OP} axis`) : -2) : axisAttr;
        const axis = axisGiven < 0 ? axisGiven + r : axisGiven;
        if (!(axis >= 0 && axis < r - 1)) throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: axis ${axisGiven} is out of range for input rank ${r}`);
        if (onesided && !inverse && parts === 2) throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: onesided needs a real input ([…, 1]), got complex`);
        const lengthT = ctx.optionalInput(1);
        const n = dims[axis];
        const L = lengthT ? readScalarInt(lengthT, `${OP} dft_length`) : inverse && onesided ? 2 * (n - 1) : n;
        if (L < 1) throw new SwitchyardError('RUNTIME', `${OP}: dft_length must be ≥ 1, got ${L}`);
        if (inverse && onesided) return [inverseReal(ctx, x, axis, L)];
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
        const signals = outer * inner;
        // Real signals go two per complex transform (one as the real part, one as the imaginary part)
        // and are separated by the spectra's conjugate symmetry: half the transforms, same result up to
        // rounding.
        const pairs = parts === 1 ? Math.floor(signals / 2) : 0;
        for (let p = 0; p < pairs; p++) {
          const t0 = 2 * p;
          const t1 = t0 + 1;
          const o0 = Math.floor(t0 / inner);
          const i0 = t0 % inner;
          const o1 = Math.floor(t1 / inner);
          const i1 = t1 % inner;
          re.fill(0);
          im.fill(0);
          for (let k = 0; k < used; k++) {
            re[k] = src[(o0 * n + k) * inner + i0];
            im[k] = src[(o1 * n + k) * inner + i1];
          }
          dft(re, im, inverse);
          for (let k = 0; k < bins; k++) {
            const m = k === 0 ? 0 : L - k;
            const d0 = ((o0 * bins + k) * inner + i0) * 2;
            const d1 = ((o1 * bins + k) * inner + i1) * 2;
            y[d0] = (re[k] + re[m]) / 2;
            y[d0 + 1] = (im[k] - im[m]) / 2;
            y[d1] = (im[k] + im[m]) / 2;
            y[d1 + 1] = (re[m] - re[k]) / 2;
          }
        }
        for (let t = 2 * pairs; t < signals; t++) {
          const o = Math.floor(t / inner);
          const i = t % inner;
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
        return [out.commit()];
      },
    };
  },
});

/**
 * The inverse real DFT along `axis`: the bins given are the first half of a Hermitian spectrum of
 * length L (missing ones zero, extra ones ignored); the rest are their conjugates. As for a real
 * signal, the imaginary parts of bin 0 and (for even L) bin L/2 are taken as zero.
 */
function inverseReal(ctx: KernelRunContext, x: Tensor, axis: number, L: number): Tensor {
  const dims = x.dims;
  const r = dims.length;
  const parts = dims[r - 1];
  const n = dims[axis];
  const outer = product(dims, 0, axis);
  const inner = product(dims, axis + 1, r - 1);
  const src = floatData(x, `${OP} input`);
  const outDims = [...dims];
  outDims[axis] = L;
  outDims[r - 1] = 1;
  const out = floatOutput(ctx, 0, x.type, outDims);
  const y = out.data;
  const half = Math.floor(L / 2);
  const used = Math.min(n, half + 1);
  const re = new Float64Array(L);
  const im = new Float64Array(L);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      re.fill(0);
      im.fill(0);
      for (let k = 0; k < used; k++) {
        const s = ((o * n + k) * inner + i) * parts;
        re[k] = src[s];
        if (parts === 2) im[k] = src[s + 1];
      }
      im[0] = 0;
      if (L % 2 === 0) im[half] = 0;
      for (let k = 1; k < L - half; k++) {
        re[L - k] = re[k];
        im[L - k] = -im[k];
      }
      dft(re, im, true);
      for (let k = 0; k < L; k++) y[(o * L + k) * inner + i] = re[k];
    }
  }
  return out.commit();
}
