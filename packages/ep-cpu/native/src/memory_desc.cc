#include "memory_desc.h"

#include "errors.h"

namespace switchyard {

namespace {
// Matches core's MAX_TENSOR_ELEMENTS (2^31 - 1): a JS Float32Array holds at most that many here.
constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;
}  // namespace

dnnl::memory::desc PlainDesc(const Dims& dims) {
  Dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

dnnl::memory::desc AnyDesc(const Dims& dims) {
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, dnnl::memory::format_tag::any);
}

int64_t ElementCount(const Dims& dims, const std::string& what) {
  int64_t n = 1;
  for (auto d : dims) {
    if (d <= 0) throw CodedError("INVALID_ARGUMENT", what + " " + DimsToString(dims) + " has a dimension <= 0 (empty tensors are handled by the caller)");
    n *= d;
    if (n > kMaxElements) throw CodedError("INVALID_ARGUMENT", what + " " + DimsToString(dims) + " has more than 2^31-1 elements");
  }
  return n;
}

std::string DimsToString(const Dims& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace switchyard
