// Kernel taps that read only padding. An atrous (dilated) conv on a small image often has taps whose every
// read falls in the zero padding: DeepLab's ASPP branches at dilation 24 and 36 on a 24 x 32 feature map
// keep 3 and 1 of their 9 taps. Those taps add nothing, yet every implementation multiplies them (oneDNN's
// AVX2 conv then even falls back to im2col + GEMM, as its direct kernels refuse padding that wide).
// WithoutPaddingTaps gives the same conv without them (a smaller kernel, less padding, the same output),
// KeptTaps its weights.
#pragma once

#include <optional>
#include <vector>

#include "conv_kernel.h"

namespace switchyard {

// The same conv without the taps that read only padding: smaller weights dims and pads, everything else as
// given (`params` as ConvOutputDims left them, `outputDims` its result). Nothing when every tap reads the
// image somewhere (the usual conv), or when trimming would need negative padding or would leave no tap
// (an output of bias alone: left to the conv).
std::optional<ConvParams> WithoutPaddingTaps(const ConvParams& params, const Dims& outputDims);

// The kept taps of the plain [M, C/group, k...] `weights` of `params`, for `trimmed` (WithoutPaddingTaps).
std::vector<float> KeptTaps(const ConvParams& params, const ConvParams& trimmed, const float* weights);

}  // namespace switchyard
