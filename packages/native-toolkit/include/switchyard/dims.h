// A tensor shape as the addons exchange it with JS; no V8 here, so kernels may include it.
#pragma once

#include <cstdint>
#include <vector>

namespace switchyard {

// oneDNN's dnnl::memory::dims is this same type (ep-cpu's memory_desc.h checks).
using Dims = std::vector<int64_t>;

// The most entries ReadDims accepts: oneDNN's DNNL_MAX_NDIMS (ep-cpu checks they agree).
constexpr uint32_t kMaxRank = 12;

}  // namespace switchyard
