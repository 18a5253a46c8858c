/**
 * im2col for 3-D windows (1-D/2-D map onto it with unit leading dims): unrolls each input channel's
 * receptive fields into rows of a [C·kD·kH·kW, oD·oH·oW] matrix, so a convolution becomes one GEMM.
 * Out-of-bounds (padding) positions are written as zeros; bounds are computed per row, not per element.
 */
import type { FloatArray } from './float-io.js';
import { validRange, type Geometry3 } from './geometry.js';

export function im2col3d(x: FloatArray, xOff: number, channels: number, g: Geometry3, col: FloatArray): void {
  const { inD, inH, inW, kD, kH, kW, sD, sH, sW, dD, dH, dW, pD, pH, pW, oD, oH, oW } = g;
  const planeIn = inD * inH * inW;
  const outSize = oD * oH * oW;
  let row = 0;
  for (let c = 0; c < channels; c++) {
    const xc = xOff + c * planeIn;
    for (let kd = 0; kd < kD; kd++) {
      const offD = kd * dD - pD;
      for (let kh = 0; kh < kH; kh++) {
        const offH = kh * dH - pH;
        for (let kw = 0; kw < kW; kw++, row++) {
          const offW = kw * dW - pW;
          const [wLo, wHi] = validRange(inW, oW, sW, offW);
          let dst = row * outSize;
          for (let od = 0; od < oD; od++) {
            const id = od * sD + offD;
            const dOk = id >= 0 && id < inD;
            for (let oh = 0; oh < oH; oh++, dst += oW) {
              const ih = oh * sH + offH;
              if (!dOk || ih < 0 || ih >= inH) {
                col.fill(0, dst, dst + oW);
                continue;
              }
              const src = xc + (id * inH + ih) * inW + offW;
              if (wLo > 0) col.fill(0, dst, dst + wLo);
              if (sW === 1) {
                for (let ow = wLo; ow < wHi; ow++) col[dst + ow] = x[src + ow];
              } else {
                for (let ow = wLo; ow < wHi; ow++) col[dst + ow] = x[src + ow * sW];
              }
              if (wHi < oW) col.fill(0, dst + wHi, dst + oW);
            }
          }
        }
      }
    }
  }
}
