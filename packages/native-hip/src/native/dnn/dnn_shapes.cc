// Shape arithmetic of the DNN seam, shared by every backend (and the JS entry's buffer checks).
#include "dnn.h"

namespace switchyard::dnn {

int ConvOutputSize(const Conv2dDesc& d, bool height, bool transposed) {
  const int in = height ? d.h : d.w;
  const int kernel = height ? d.kh : d.kw;
  const int pads = height ? d.pad_top + d.pad_bottom : d.pad_left + d.pad_right;
  const int stride = height ? d.stride_h : d.stride_w;
  const int dilation = height ? d.dilation_h : d.dilation_w;
  const int output_padding = height ? d.output_padding_h : d.output_padding_w;
  if (in <= 0 || kernel <= 0 || stride <= 0 || dilation <= 0 || pads < 0 || output_padding < 0) return -1;
  const long long extent = static_cast<long long>(dilation) * (kernel - 1) + 1;
  long long out;
  if (transposed) {
    out = static_cast<long long>(stride) * (in - 1) + output_padding + extent - pads;
  } else {
    const long long span = in + pads - extent;
    out = span < 0 ? -1 : span / stride + 1;
  }
  return out <= 0 || out > (1LL << 30) ? -1 : static_cast<int>(out);
}

int PoolOutputSize(const Pool2dDesc& d, bool height) {
  const int in = height ? d.h : d.w;
  const int kernel = height ? d.kh : d.kw;
  const int pads = height ? d.pad_top + d.pad_bottom : d.pad_left + d.pad_right;
  const int stride = height ? d.stride_h : d.stride_w;
  if (in <= 0 || kernel <= 0 || stride <= 0 || pads < 0) return -1;
  const long long span = static_cast<long long>(in) + pads - kernel;
  return span < 0 ? -1 : static_cast<int>(span / stride + 1);
}

}  // namespace switchyard::dnn
