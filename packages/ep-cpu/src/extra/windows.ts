/**
 * Generalized cosine windows (Hann, Hamming, Blackman): w[k] = Σ_j a_j · cos(2πjk/N), with N = size for a
 * periodic window and size − 1 for a symmetric one.
 */
import { SwitchyardError, type KernelDef } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { writeNumbers } from '../math/numeric.js';
import { allocOutput, INDEX_TYPES } from '../tensor-ops/elements.js';
import { readScalarInt } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { dtypeAttribute } from './dtype-attr.js';

/** w[k] = Σ_j coefficients[j] · cos(2π·j·k / N). */
export function cosineWindow(size: number, coefficients: readonly number[], periodic: boolean): Float64Array {
  const out = new Float64Array(size);
  const N = periodic ? size : size - 1;
  for (let k = 0; k < size; k++) {
    let v = 0;
    // A symmetric window of one point has N = 0; like numpy and PyTorch it is the window's peak (k = N/2),
    // where cos(2πjk/N) = (−1)^j.
    for (let j = 0; j < coefficients.length; j++) v += coefficients[j] * (N === 0 ? (-1) ** j : Math.cos((2 * Math.PI * j * k) / N));
    out[k] = v;
  }
  return out;
}

/** A window-generator kernel (opset 17): `size` input, `output_datatype` and `periodic` attributes. */
export function windowKernel(opType: string, coefficients: readonly number[]): KernelDef {
  return tensorKernel({
    opType,
    sinceVersion: 17,
    typeConstraints: { T1: INDEX_TYPES, T2: NUMERIC },
    create({ attrs }) {
      const type = dtypeAttribute(attrs, 'output_datatype', 1, NUMERIC, opType);
      const periodic = attrs.int('periodic', 1) !== 0;
      return {
        run(ctx) {
          const size = readScalarInt(ctx.input(0), `${opType} size`);
          if (size < 0) throw new SwitchyardError('RUNTIME', `${opType}: size must be ≥ 0, got ${size}`);
          const out = allocOutput(ctx, 0, type, [size]);
          writeNumbers(out, cosineWindow(size, coefficients, periodic));
          return [out];
        },
      };
    },
  });
}
