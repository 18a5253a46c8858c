// Memory descriptors for ONNX's dense row-major float32 tensors, and dimension arithmetic.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <string>

namespace switchyard {

using Dims = dnnl::memory::dims;

// Dense row-major float32 layout: how every tensor crosses the JS boundary.
dnnl::memory::desc PlainDesc(const Dims& dims);

// Layout left to oneDNN (format_tag::any): lets a primitive pick its blocked layout.
dnnl::memory::desc AnyDesc(const Dims& dims);

// Element count; throws CodedError('INVALID_ARGUMENT') on a non-positive or absurdly large dimension.
int64_t ElementCount(const Dims& dims, const std::string& what);

std::string DimsToString(const Dims& dims);

}  // namespace switchyard
