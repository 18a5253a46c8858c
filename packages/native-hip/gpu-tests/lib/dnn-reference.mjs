// CPU references of the DNN seam's operations (NCHW, float64 accumulation).

export function conv2d({ x, w, b, residual, n, c, h, wi, k, kh, kw, group = 1, pads = [0, 0, 0, 0], strides = [1, 1], dilations = [1, 1], relu = false }) {
  const [pt, pl, pb, pr] = pads;
  const oh = Math.floor((h + pt + pb - dilations[0] * (kh - 1) - 1) / strides[0]) + 1;
  const ow = Math.floor((wi + pl + pr - dilations[1] * (kw - 1) - 1) / strides[1]) + 1;
  const cg = c / group;
  const kg = k / group;
  const y = new Float32Array(n * k * oh * ow);
  for (let ni = 0; ni < n; ++ni) for (let ko = 0; ko < k; ++ko) {
    const g = Math.floor(ko / kg);
    for (let oy = 0; oy < oh; ++oy) for (let ox = 0; ox < ow; ++ox) {
      let sum = b ? b[ko] : 0;
      for (let ci = 0; ci < cg; ++ci) for (let ky = 0; ky < kh; ++ky) for (let kx = 0; kx < kw; ++kx) {
        const iy = oy * strides[0] - pt + ky * dilations[0];
        const ix = ox * strides[1] - pl + kx * dilations[1];
        if (iy < 0 || iy >= h || ix < 0 || ix >= wi) continue;
        sum += x[((ni * c + g * cg + ci) * h + iy) * wi + ix] * w[((ko * cg + ci) * kh + ky) * kw + kx];
      }
      const index = ((ni * k + ko) * oh + oy) * ow + ox;
      if (residual) sum += residual[index];
      y[index] = relu ? Math.max(0, sum) : sum;
    }
  }
  return { y, oh, ow };
}

/** ConvTranspose: w is [c, k/group, kh, kw]; scatter each input pixel into the output. */
export function convTranspose2d({ x, w, b, n, c, h, wi, k, kh, kw, group = 1, pads = [0, 0, 0, 0], strides = [1, 1], dilations = [1, 1], outputPadding = [0, 0] }) {
  const [pt, pl, pb, pr] = pads;
  const oh = strides[0] * (h - 1) + outputPadding[0] + dilations[0] * (kh - 1) + 1 - pt - pb;
  const ow = strides[1] * (wi - 1) + outputPadding[1] + dilations[1] * (kw - 1) + 1 - pl - pr;
  const cg = c / group;
  const kg = k / group;
  const y = new Float64Array(n * k * oh * ow);
  for (let ni = 0; ni < n; ++ni) for (let ci = 0; ci < c; ++ci) {
    const g = Math.floor(ci / cg);
    for (let iy = 0; iy < h; ++iy) for (let ix = 0; ix < wi; ++ix) {
      const v = x[((ni * c + ci) * h + iy) * wi + ix];
      for (let kk = 0; kk < kg; ++kk) for (let ky = 0; ky < kh; ++ky) for (let kx = 0; kx < kw; ++kx) {
        const oy = iy * strides[0] - pt + ky * dilations[0];
        const ox = ix * strides[1] - pl + kx * dilations[1];
        if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
        const ko = g * kg + kk;
        y[((ni * k + ko) * oh + oy) * ow + ox] += v * w[((ci * kg + kk) * kh + ky) * kw + kx];
      }
    }
  }
  if (b) for (let i = 0; i < y.length; ++i) y[i] += b[Math.floor(i / (oh * ow)) % k];
  return { y: Float32Array.from(y), oh, ow };
}

export function pool2d({ x, n, c, h, wi, kh, kw, pads = [0, 0, 0, 0], strides = [1, 1], mode, countIncludePad = false }) {
  const [pt, pl, pb, pr] = pads;
  const oh = Math.floor((h + pt + pb - kh) / strides[0]) + 1;
  const ow = Math.floor((wi + pl + pr - kw) / strides[1]) + 1;
  const y = new Float32Array(n * c * oh * ow);
  for (let p = 0; p < n * c; ++p) for (let oy = 0; oy < oh; ++oy) for (let ox = 0; ox < ow; ++ox) {
    let best = -Infinity;
    let sum = 0;
    let count = 0;
    for (let ky = 0; ky < kh; ++ky) for (let kx = 0; kx < kw; ++kx) {
      const iy = oy * strides[0] - pt + ky;
      const ix = ox * strides[1] - pl + kx;
      if (iy < 0 || iy >= h || ix < 0 || ix >= wi) continue;
      const v = x[(p * h + iy) * wi + ix];
      best = Math.max(best, v);
      sum += v;
      ++count;
    }
    y[(p * oh + oy) * ow + ox] = mode === 'max' ? best : sum / (countIncludePad ? kh * kw : count);
  }
  return { y, oh, ow };
}

export function batchNorm({ x, scale, bias, mean, variance, n, c, spatial, epsilon }) {
  const y = new Float32Array(x.length);
  for (let i = 0; i < x.length; ++i) {
    const ch = Math.floor(i / spatial) % c;
    y[i] = scale[ch] * (x[i] - mean[ch]) / Math.sqrt(variance[ch] + epsilon) + bias[ch];
  }
  return y;
}
