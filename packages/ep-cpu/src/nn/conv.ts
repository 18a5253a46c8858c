/**
 * Forward convolution on float arrays: im2col + GEMM per (batch, group), a direct loop for depthwise
 * groups (one input channel per group), and no im2col at all for pointwise 1×1 stride-1 convolutions.
 */
import { SwitchyardError, elementCount } from '@switchyard/core';
import { gemmAccumulate } from './gemm.js';
import { im2col3d } from './im2col.js';
import { scratchLike, type FloatArray } from './float-io.js';
import { readWindowAttrs, to3d, validRange, windowGeometry, type Geometry3, type WindowAttrs } from './geometry.js';
import type { AttributeReader } from '@switchyard/core';

export interface ConvShape {
  batch: number;
  inChannels: number;
  outChannels: number;
  group: number;
  g3: Geometry3;
  /** Output dims [N, M, ...spatial]. */
  outDims: number[];
}

/** Validates X/W shapes and attributes and resolves the output geometry. */
export function convShape(op: string, xDims: readonly number[], wDims: readonly number[], attrs: AttributeReader): ConvShape {
  if (xDims.length < 3) throw new SwitchyardError('INVALID_SHAPE', `${op}: input X must have rank ≥ 3 ([N, C, ...spatial]), got [${xDims.join(', ')}]`);
  if (wDims.length !== xDims.length) {
    throw new SwitchyardError('INVALID_SHAPE', `${op}: weight W rank ${wDims.length} differs from X rank ${xDims.length}`);
  }
  const group = attrs.int('group', 1);
  const [batch, inChannels] = xDims;
  const outChannels = wDims[0];
  if (!(group >= 1) || inChannels % group !== 0 || outChannels % group !== 0) {
    throw new SwitchyardError('INVALID_ARGUMENT', `${op}: group ${group} must divide input channels ${inChannels} and output channels ${outChannels}`);
  }
  if (wDims[1] * group !== inChannels) {
    throw new SwitchyardError('INVALID_SHAPE', `${op}: W has ${wDims[1]} channels per group but X has ${inChannels} channels in ${group} group(s)`);
  }
  const spatial = xDims.slice(2);
  const w: WindowAttrs = readWindowAttrs(op, attrs, spatial.length, wDims.slice(2));
  for (let i = 0; i < spatial.length; i++) {
    if (w.kernel[i] !== wDims[i + 2]) throw new SwitchyardError('INVALID_SHAPE', `${op}: kernel_shape [${w.kernel.join(', ')}] does not match W [${wDims.join(', ')}]`);
  }
  const geom = windowGeometry(op, spatial, w);
  const outDims = [batch, outChannels, ...geom.output];
  elementCount(outDims, `${op} output`);
  return { batch, inChannels, outChannels, group, g3: to3d(op, geom), outDims };
}

/** y (pre-sized, any contents) ← conv(x, w) + bias. */
export function convForward(s: ConvShape, x: FloatArray, w: FloatArray, bias: FloatArray | undefined, y: FloatArray): void {
  const { batch, inChannels, outChannels, group, g3 } = s;
  const cg = inChannels / group;
  const mg = outChannels / group;
  const inPlane = g3.inD * g3.inH * g3.inW;
  const outPlane = g3.oD * g3.oH * g3.oW;
  const kSize = g3.kD * g3.kH * g3.kW;
  for (let n = 0; n < batch; n++) {
    for (let m = 0; m < outChannels; m++) {
      const off = (n * outChannels + m) * outPlane;
      y.fill(bias ? bias[m] : 0, off, off + outPlane);
    }
  }
  if (cg === 1) {
    depthwise(s, x, w, y);
    return;
  }
  const pointwise =
    kSize === 1 && g3.sD === 1 && g3.sH === 1 && g3.sW === 1 && g3.pD === 0 && g3.pH === 0 && g3.pW === 0 && outPlane === inPlane;
  const rows = cg * kSize;
  const col = pointwise ? x : scratchLike(x, rows * outPlane);
  for (let n = 0; n < batch; n++) {
    for (let gi = 0; gi < group; gi++) {
      const xOff = (n * inChannels + gi * cg) * inPlane;
      if (!pointwise) im2col3d(x, xOff, cg, g3, col);
      gemmAccumulate(
        mg,
        outPlane,
        rows,
        1,
        { data: w, offset: gi * mg * rows, ld: rows, trans: false },
        { data: col, offset: pointwise ? xOff : 0, ld: outPlane, trans: false },
        y,
        (n * outChannels + gi * mg) * outPlane,
        outPlane,
      );
    }
  }
}

/** One input channel per group: accumulate each kernel tap over the valid output span directly. */
function depthwise(s: ConvShape, x: FloatArray, w: FloatArray, y: FloatArray): void {
  const { batch, inChannels, outChannels, group, g3 } = s;
  const { inD, inH, inW, kD, kH, kW, sD, sH, sW, dD, dH, dW, pD, pH, pW, oD, oH, oW } = g3;
  const mg = outChannels / group;
  const inPlane = inD * inH * inW;
  const outPlane = oD * oH * oW;
  for (let n = 0; n < batch; n++) {
    for (let m = 0; m < outChannels; m++) {
      const xc = (n * inChannels + Math.floor(m / mg)) * inPlane;
      const yc = (n * outChannels + m) * outPlane;
      let wi = m * kD * kH * kW;
      for (let kd = 0; kd < kD; kd++) {
        const [dLo, dHi] = validRange(inD, oD, sD, kd * dD - pD);
        for (let kh = 0; kh < kH; kh++) {
          const [hLo, hHi] = validRange(inH, oH, sH, kh * dH - pH);
          for (let kw = 0; kw < kW; kw++, wi++) {
            const wv = w[wi];
            const offW = kw * dW - pW;
            const [wLo, wHi] = validRange(inW, oW, sW, offW);
            for (let od = dLo; od < dHi; od++) {
              const id = od * sD + kd * dD - pD;
              for (let oh = hLo; oh < hHi; oh++) {
                const ih = oh * sH + kh * dH - pH;
                const src = xc + (id * inH + ih) * inW + offW;
                const dst = yc + (od * oH + oh) * oW;
                for (let ow = wLo; ow < wHi; ow++) y[dst + ow] += wv * x[src + ow * sW];
              }
            }
          }
        }
      }
    }
  }
}
