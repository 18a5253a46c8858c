/**
 * STFT (opset 17): short-time Fourier transform of signal [batch, length, 1|2]: frames of frame_length
 * every frame_step samples, each multiplied by the window (if given) and transformed; output
 * [batch, frames, bins, 2] with bins = floor(frame_length/2) + 1 when onesided (the default).
 */
import { SwitchyardError } from '@switchyard/core';
import { floatData, floatOutput } from '../nn/float-io.js';
import { INDEX_TYPES } from '../tensor-ops/elements.js';
import { readScalarInt } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { dft } from '../extra/fft.js';

const OP = 'STFT';

export const stftKernel = tensorKernel({
  opType: OP,
  sinceVersion: 17,
  typeConstraints: { T1: ['float32', 'float64', 'float16', 'bfloat16'], T2: INDEX_TYPES },
  create({ attrs }) {
    const onesided = attrs.int('onesided', 1) !== 0;
    return {
      run(ctx) {
        const signal = ctx.input(0);
        const dims = signal.dims;
        if (dims.length !== 3 || (dims[2] !== 1 && dims[2] !== 2)) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: signal must be [batch, length, 1 or 2], got [${dims.join(', ')}]`);
        }
        const [batch, length, parts] = dims;
        if (onesided && parts === 2) throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: onesided needs a real signal ([…, 1]), got complex`);
        const step = readScalarInt(ctx.input(1), `${OP} frame_step`);
        if (step < 1) throw new SwitchyardError('RUNTIME', `${OP}: frame_step must be ≥ 1, got ${step}`);
        const windowT = ctx.optionalInput(2);
        const lengthT = ctx.optionalInput(3);
        if (windowT && windowT.dims.length !== 1) throw new SwitchyardError('INVALID_SHAPE', `${OP}: window must be 1-D, got [${windowT.dims.join(', ')}]`);
        let frameLength: number;
        if (lengthT) {
          frameLength = readScalarInt(lengthT, `${OP} frame_length`);
          if (windowT && windowT.size !== frameLength) {
            throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: window has ${windowT.size} samples but frame_length is ${frameLength}`);
          }
        } else if (windowT) frameLength = windowT.size;
        else throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: needs a window or a frame_length`);
        if (!(frameLength >= 1 && frameLength <= length)) {
          throw new SwitchyardError('RUNTIME', `${OP}: frame_length ${frameLength} must be in [1, signal length ${length}]`);
        }
        const window = windowT && floatData(windowT, `${OP} window`);
        const frames = Math.floor((length - frameLength) / step) + 1;
        const bins = onesided ? Math.floor(frameLength / 2) + 1 : frameLength;
        const src = floatData(signal, `${OP} signal`);
        const out = floatOutput(ctx, 0, signal.type, [batch, frames, bins, 2]);
        const y = out.data;
        const re = new Float64Array(frameLength);
        const im = new Float64Array(frameLength);
        for (let b = 0; b < batch; b++) {
          for (let f = 0; f < frames; f++) {
            for (let k = 0; k < frameLength; k++) {
              const s = (b * length + f * step + k) * parts;
              const w = window ? window[k] : 1;
              re[k] = src[s] * w;
              im[k] = parts === 2 ? src[s + 1] * w : 0;
            }
            dft(re, im, false);
            for (let k = 0; k < bins; k++) {
              const d = ((b * frames + f) * bins + k) * 2;
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
