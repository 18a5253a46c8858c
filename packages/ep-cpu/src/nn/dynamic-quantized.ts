/** The float epilogue of the dynamic-quantization fusions (kernels/DynamicQuantized*.ts). */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import { floatData } from './float-io.js';

/**
 * out[i] = float32(int32(acc[i])) · float32(xScale · scales[c]) (+ bias[c]), c = channelOf(i), each step
 * rounded to float32 as the unfused Cast → Mul → Add nodes do (the int32 wraps as ConvInteger's output
 * tensor would), then Relu's `v < 0 ? 0 : v` with `relu`. `scales` and `bias` are float32 with one value or `channels`.
 */
export function scaleInt32Products(
  op: string,
  acc: Float64Array,
  xScale: number,
  scalesT: Tensor,
  biasT: Tensor | undefined,
  channels: number,
  channelOf: (i: number) => number,
  relu: boolean,
  out: Float32Array,
): void {
  const perChannel = (t: Tensor, what: string): Float32Array => {
    if (t.type !== 'float32') throw new SwitchyardError('INVALID_ARGUMENT', `${op}: ${what} must be float32, got ${t.type}`);
    if (t.size !== 1 && t.size !== channels) throw new SwitchyardError('INVALID_SHAPE', `${op}: ${what} must have 1 or ${channels} elements, got ${t.size}`);
    return floatData(t) as Float32Array;
  };
  const scales = perChannel(scalesT, 'scales');
  const bias = biasT ? perChannel(biasT, 'B') : undefined;
  const combined = new Float32Array(channels);
  for (let c = 0; c < channels; c++) combined[c] = Math.fround(xScale * scales[scales.length === 1 ? 0 : c]);
  for (let i = 0; i < acc.length; i++) {
    const c = channelOf(i);
    const product = Math.fround(Math.fround(acc[i] | 0) * combined[c]);
    const v = bias ? Math.fround(product + bias[bias.length === 1 ? 0 : c]) : product;
    out[i] = relu && v < 0 ? 0 : v;
  }
}
