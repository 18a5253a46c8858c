/**
 * col2im for 3-D windows: the adjoint of im2col. Each row (channel, kd, kh, kw) of `col` is scatter-added
 * into the image, so a transposed convolution is one GEMM followed by this. In `g`, `in*` sizes describe
 * the image being written and `o*` sizes the window grid (the transposed convolution's input).
 */
import type { FloatArray } from './float-io.js';
import { validRange, type Geometry3 } from './geometry.js';

export function col2im3d(col: FloatArray, channels: number, g: Geometry3, y: FloatArray, yOff: number): void {
  const { inD, inH, inW, kD, kH, kW, sD, sH, sW, dD, dH, dW, pD, pH, pW, oD, oH, oW } = g;
  const plane = inD * inH * inW;
  const gridSize = oD * oH * oW;
  let row = 0;
  for (let c = 0; c < channels; c++) {
    const yc = yOff + c * plane;
    for (let kd = 0; kd < kD; kd++) {
      const [dLo, dHi] = validRange(inD, oD, sD, kd * dD - pD);
      for (let kh = 0; kh < kH; kh++) {
        const [hLo, hHi] = validRange(inH, oH, sH, kh * dH - pH);
        for (let kw = 0; kw < kW; kw++, row++) {
          const offW = kw * dW - pW;
          const [wLo, wHi] = validRange(inW, oW, sW, offW);
          const src0 = row * gridSize;
          for (let od = dLo; od < dHi; od++) {
            const id = od * sD + kd * dD - pD;
            for (let oh = hLo; oh < hHi; oh++) {
              const ih = oh * sH + kh * dH - pH;
              const dst = yc + (id * inH + ih) * inW + offW;
              const src = src0 + (od * oH + oh) * oW;
              for (let ow = wLo; ow < wHi; ow++) y[dst + ow * sW] += col[src + ow];
            }
          }
        }
      }
    }
  }
}
