/**
 * MelWeightMatrix (opset 17): a [floor(dft_length/2) + 1, num_mel_bins] matrix of triangular filters,
 * evenly spaced on the mel scale mel(f) = 2595·log10(1 + f/700) between the lower and upper edge.
 *
 * The filter edges follow the ONNX reference exactly, quirks included, since models are built against
 * it (and ONNX Runtime matches it): num_mel_bins + 2 edge points one mel step apart where the step is
 * (high − low) / (num_mel_bins + 2), each snapped down to a spectrogram bin by
 * floor((dft_length + 1) · f / sample_rate). Edges past the last spectrogram bin write nothing.
 */
import { SwitchyardError, type KernelRunContext } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { writeNumbers } from '../math/numeric.js';
import { floatData } from '../nn/float-io.js';
import { allocOutput, INDEX_TYPES } from '../tensor-ops/elements.js';
import { readScalarInt } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { dtypeAttribute } from '../extra/dtype-attr.js';

const OP = 'MelWeightMatrix';

const hzToMel = (f: number) => 2595 * Math.log10(1 + f / 700);
const melToHz = (m: number) => 700 * (10 ** (m / 2595) - 1);

/** The filters as a row-major [floor(dftLength/2) + 1, melBins] matrix. */
export function melWeights(melBins: number, dftLength: number, sampleRate: number, lowHz: number, highHz: number): Float64Array {
  const rows = Math.floor(dftLength / 2) + 1;
  const out = new Float64Array(rows * melBins);
  const lowMel = hzToMel(lowHz);
  const step = (hzToMel(highHz) - lowMel) / (melBins + 2);
  const edge = Array.from({ length: melBins + 2 }, (_, i) => Math.floor(((dftLength + 1) * melToHz(lowMel + i * step)) / sampleRate));
  const set = (row: number, col: number, v: number) => {
    if (row >= 0 && row < rows) out[row * melBins + col] = v;
  };
  for (let m = 0; m < melBins; m++) {
    const [left, center, right] = [edge[m], edge[m + 1], edge[m + 2]];
    if (center === left) set(center, m, 1);
    else for (let j = left; j <= center; j++) set(j, m, (j - left) / (center - left));
    for (let j = center; j < right; j++) set(j, m, (right - j) / (right - center));
  }
  return out;
}

function readScalarFloat(ctx: KernelRunContext, i: number, what: string): number {
  const t = ctx.input(i);
  if (t.size !== 1) throw new SwitchyardError('RUNTIME', `${OP}: ${what} must hold one value, got shape [${t.dims.join(', ')}]`);
  return floatData(t, `${OP} ${what}`)[0];
}

export const melWeightMatrixKernel = tensorKernel({
  opType: OP,
  sinceVersion: 17,
  typeConstraints: { T1: INDEX_TYPES, T2: ['float32', 'float64', 'float16', 'bfloat16'], T3: NUMERIC },
  create({ attrs }) {
    const type = dtypeAttribute(attrs, 'output_datatype', 1, NUMERIC, OP);
    return {
      run(ctx) {
        const melBins = readScalarInt(ctx.input(0), `${OP} num_mel_bins`);
        const dftLength = readScalarInt(ctx.input(1), `${OP} dft_length`);
        const sampleRate = readScalarInt(ctx.input(2), `${OP} sample_rate`);
        const low = readScalarFloat(ctx, 3, 'lower_edge_hertz');
        const high = readScalarFloat(ctx, 4, 'upper_edge_hertz');
        if (melBins < 1 || dftLength < 1 || sampleRate < 1) {
          throw new SwitchyardError('RUNTIME', `${OP}: num_mel_bins, dft_length and sample_rate must be ≥ 1, got ${melBins}, ${dftLength}, ${sampleRate}`);
        }
        if (!(low >= 0 && high > low)) throw new SwitchyardError('RUNTIME', `${OP}: need 0 ≤ lower_edge_hertz < upper_edge_hertz, got ${low} and ${high}`);
        const out = allocOutput(ctx, 0, type, [Math.floor(dftLength / 2) + 1, melBins]);
        writeNumbers(out, melWeights(melBins, dftLength, sampleRate, low, high));
        return [out];
      },
    };
  },
});
