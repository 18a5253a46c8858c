#include "conv_tap_trim.h"

namespace switchyard {

namespace {

// Whether tap k of a spatial axis reads the image (0 <= i < size) for some output o, i = o*stride - pad + k*dilation.
bool TapReadsImage(int64_t k, int64_t size, int64_t outSize, int64_t stride, int64_t dilation, int64_t padBegin) {
  const int64_t first = k * dilation - padBegin;  // where output 0 reads
  // The first output at or right of 0: o >= -first / stride.
  const int64_t o = first >= 0 ? 0 : (-first + stride - 1) / stride;
  return o < outSize && o * stride + first < size;
}

}  // namespace

std::optional<ConvParams> WithoutPaddingTaps(const ConvParams& p, const Dims& out) {
  ConvParams t = p;
  bool trims = false;
  for (size_t a = 0; a + 2 < p.input.size(); ++a) {
    const int64_t taps = p.weights[a + 2], d = p.dilations[a];
    int64_t lo = 0, hi = taps - 1;
    auto reads = [&](int64_t k) { return TapReadsImage(k, p.input[a + 2], out[a + 2], p.strides[a], d, p.padsBegin[a]); };
    while (lo <= hi && !reads(lo)) ++lo;
    while (hi >= lo && !reads(hi)) --hi;
    if (lo > hi) return std::nullopt;  // no tap reads the image: every output is the bias
    // The kernel's extent shrinks by the dropped taps on each side, the padding by as much: same output size.
    const int64_t padBegin = p.padsBegin[a] - lo * d, padEnd = p.padsEnd[a] - (taps - 1 - hi) * d;
    if (padBegin < 0 || padEnd < 0) return std::nullopt;
    trims = trims || hi - lo + 1 < taps;
    t.weights[a + 2] = hi - lo + 1;
    t.padsBegin[a] = padBegin;
    t.padsEnd[a] = padEnd;
  }
  if (!trims) return std::nullopt;
  return t;
}

std::vector<float> KeptTaps(const ConvParams& p, const ConvParams& t, const float* weights) {
  // For each [m, c] filter, the box keepBegin + [0, keepSize) of its taps (keepBegin from the padding dropped).
  const size_t spatial = p.input.size() - 2;
  Dims keepBegin(spatial), keepSize(spatial);
  int64_t tapsBefore = 1, tapsAfter = 1;
  for (size_t a = 0; a < spatial; ++a) {
    keepBegin[a] = (p.padsBegin[a] - t.padsBegin[a]) / p.dilations[a];
    keepSize[a] = t.weights[a + 2];
    tapsBefore *= p.weights[a + 2];
    tapsAfter *= keepSize[a];
  }
  const int64_t filters = p.weights[0] * p.weights[1];
  std::vector<float> kept(static_cast<size_t>(filters * tapsAfter));
  for (int64_t f = 0; f < filters; ++f) {
    const float* from = weights + f * tapsBefore;
    float* to = kept.data() + f * tapsAfter;
    for (int64_t j = 0; j < tapsAfter; ++j) {
      // j's coordinates in the kept box (last axis fastest), offset into the full kernel.
      int64_t rest = j, at = 0, stride = 1;
      for (size_t a = spatial; a-- > 0;) {
        at += (rest % keepSize[a] + keepBegin[a]) * stride;
        rest /= keepSize[a];
        stride *= p.weights[a + 2];
      }
      to[j] = from[at];
    }
  }
  return kept;
}

}  // namespace switchyard
