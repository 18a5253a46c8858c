/** Integer convolution for ConvInteger / QLinearConv: zero points removed, float64 accumulation (exact). */
import { SwitchyardError, type AttributeReader, type Tensor } from '@switchyard/core';
import { convForward, convShape, type ConvShape } from './conv.js';
import { intData } from './quantize.js';

export function integerConv(
  op: string,
  X: Tensor,
  W: Tensor,
  xZero: Tensor | undefined,
  wZero: Tensor | undefined,
  bias: Tensor | undefined,
  attrs: AttributeReader,
): { acc: Float64Array; shape: ConvShape } {
  const shape = convShape(op, X.dims, W.dims, attrs);
  const x = intData(X, `${op} x`);
  const w = intData(W, `${op} w`);
  if (xZero && xZero.size !== 1) throw new SwitchyardError('INVALID_SHAPE', `${op}: x_zero_point must be a scalar`);
  const xz = xZero ? intData(xZero, `${op} x_zero_point`)[0] : 0;
  const M = shape.outChannels;
  if (wZero && wZero.size !== 1 && wZero.size !== M) throw new SwitchyardError('INVALID_SHAPE', `${op}: w_zero_point must be a scalar or have ${M} entries`);
  const wz = wZero ? intData(wZero, `${op} w_zero_point`) : undefined;
  const xf = new Float64Array(X.size);
  for (let i = 0; i < X.size; i++) xf[i] = x[i] - xz;
  const perM = W.size / M;
  const wf = new Float64Array(W.size);
  for (let i = 0; i < W.size; i++) wf[i] = w[i] - (wz ? wz[wz.length === 1 ? 0 : Math.floor(i / perM)] : 0);
  let b: Float64Array | undefined;
  if (bias) {
    if (bias.size !== M) throw new SwitchyardError('INVALID_SHAPE', `${op}: bias must have ${M} entries`);
    b = Float64Array.from(intData(bias, `${op} bias`));
  }
  const acc = new Float64Array(shape.outDims.reduce((p, d) => p * d, 1));
  convForward(shape, xf, wf, b, acc);
  return { acc, shape };
}
