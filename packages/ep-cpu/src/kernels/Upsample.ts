/**
 * Upsample (7–10, deprecated for Resize): nearest or linear with asymmetric coordinates; scales is an
 * attribute in 7–8 and an input from 9.
 */
import { SwitchyardError, defineKernel, simpleKernel } from '@switchyard/core';
import { checkResizeOptions, resizeTensor, type ResizeMode, type ResizeOptions } from '../nn/resize.js';
import { resizeTarget } from './Resize.js';
import { Tensor } from '@switchyard/core';

export const upsampleKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Upsample',
  sinceVersion: 7,
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    let mode = init.attrs.string('mode', 'nearest');
    if (mode === 'bilinear') mode = 'linear';
    const opts: ResizeOptions = {
      mode: mode as ResizeMode,
      coordinate: 'asymmetric',
      nearest: 'simple',
      cubicA: -0.75,
      excludeOutside: false,
      extrapolation: 0,
    };
    checkResizeOptions('Upsample', opts);
    if (opts.mode === 'cubic') throw new SwitchyardError('INVALID_ARGUMENT', 'Upsample: mode must be nearest or linear');
    const scalesT = init.opset >= 9 ? ctx.input(1) : new Tensor('float32', init.attrs.floats('scales'), [init.attrs.floats('scales').length]);
    const { outDims, scales } = resizeTarget('Upsample', X, scalesT, undefined);
    return [resizeTensor(ctx, 'Upsample', X, outDims, scales, opts)];
  }),
});
