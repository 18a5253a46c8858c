// The sizes of a 2-D convolution that the addon's own AVX2 algorithms (Winograd, im2col) both work
// from; each extends them with what its own loops need.
#pragma once

#include <cstdint>

namespace switchyard {

struct Conv2dSizes {
  int64_t inChannels, outChannels, inH, inW, outH, outW, padTop, padLeft;
};

}  // namespace switchyard
