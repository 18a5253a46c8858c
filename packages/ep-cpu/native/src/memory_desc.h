// Memory descriptors for ONNX's dense row-major float32 tensors, and dimension arithmetic.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <switchyard/dims.h>

#include <string>
#include <type_traits>

namespace switchyard {

// The toolkit's Dims (what its argument readers return) is oneDNN's dims type, and its rank limit oneDNN's.
static_assert(std::is_same<Dims, dnnl::memory::dims>::value, "switchyard::Dims must be dnnl::memory::dims");
static_assert(kMaxRank == DNNL_MAX_NDIMS, "the toolkit's rank limit must match oneDNN's");

// Dense row-major float32 layout: how every tensor crosses the JS boundary.
dnnl::memory::desc PlainDesc(const Dims& dims);

// Channel-blocked layout (oneDNN's nC[d][h]w8c / 16c): channels split into blocks of `block` (8 or 16),
// each block's channels innermost; the last block is zero-padded. `block` 0 means PlainDesc.
// Throws CodedError('INVALID_ARGUMENT') for another block size or a rank outside 3–5.
dnnl::memory::desc LayoutDesc(const Dims& dims, int64_t block);

// Float32 elements a buffer in `desc`'s layout holds (padding included).
int64_t DescElements(const dnnl::memory::desc& desc);

// Layout left to oneDNN (format_tag::any): lets a primitive pick its blocked layout.
dnnl::memory::desc AnyDesc(const Dims& dims);

// Element count; throws CodedError('INVALID_ARGUMENT') on a non-positive or absurdly large dimension.
int64_t ElementCount(const Dims& dims, const std::string& what);

std::string DimsToString(const Dims& dims);

}  // namespace switchyard
