/** ONNX Conv by its definition, the reference the native conv tests compare against. */

export interface RefConv {
  x: Float32Array;
  xDims: number[];
  w: Float32Array;
  wDims: number[];
  b?: Float32Array;
  group: number;
  strides: number[];
  dilations: number[];
  padsBegin: number[];
  padsEnd: number[];
  relu?: boolean;
}

/** The textbook loop, straight from the ONNX Conv definition; spatial axes padded to 3 with size-1 axes. */
export function referenceConv(c: RefConv): { dims: number[]; data: Float32Array } {
  const spatial = c.xDims.length - 2;
  const pad3 = (v: number[], fill: number) => [...Array<number>(3 - spatial).fill(fill), ...v];
  const [N, C] = c.xDims;
  const M = c.wDims[0];
  const [iD, iH, iW] = pad3(c.xDims.slice(2), 1);
  const [kD, kH, kW] = pad3(c.wDims.slice(2), 1);
  const [sD, sH, sW] = pad3(c.strides, 1);
  const [dD, dH, dW] = pad3(c.dilations, 1);
  const [pD, pH, pW] = pad3(c.padsBegin, 0);
  const [eD, eH, eW] = pad3(c.padsEnd, 0);
  const out = (i: number, p: number, e: number, k: number, d: number, s: number) => Math.floor((i + p + e - (k - 1) * d - 1) / s) + 1;
  const [oD, oH, oW] = [out(iD, pD, eD, kD, dD, sD), out(iH, pH, eH, kH, dH, sH), out(iW, pW, eW, kW, dW, sW)];
  const cg = C / c.group;
  const mg = M / c.group;
  const y = new Float32Array(N * M * oD * oH * oW);
  let idx = 0;
  for (let n = 0; n < N; n++)
    for (let m = 0; m < M; m++) {
      const g = Math.floor(m / mg);
      for (let od = 0; od < oD; od++)
        for (let oh = 0; oh < oH; oh++)
          for (let ow = 0; ow < oW; ow++) {
            let acc = c.b ? c.b[m] : 0;
            for (let ci = 0; ci < cg; ci++)
              for (let kd = 0; kd < kD; kd++)
                for (let kh = 0; kh < kH; kh++)
                  for (let kw = 0; kw < kW; kw++) {
                    const id = od * sD - pD + kd * dD;
                    const ih = oh * sH - pH + kh * dH;
                    const iw = ow * sW - pW + kw * dW;
                    if (id < 0 || id >= iD || ih < 0 || ih >= iH || iw < 0 || iw >= iW) continue;
                    const xv = c.x[((((n * C + g * cg + ci) * iD + id) * iH + ih) * iW + iw)];
                    const wv = c.w[((((m * cg + ci) * kD + kd) * kH + kh) * kW + kw)];
                    acc += xv * wv;
                  }
            y[idx++] = c.relu ? Math.max(0, acc) : acc;
          }
    }
  const dims = [N, M, ...[oD, oH, oW].slice(3 - spatial)];
  return { dims, data: y };
}
