#include "memory_desc.h"

#include <switchyard/errors.h>

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

dnnl::memory::desc LayoutDesc(const Dims& dims, int64_t block) {
  if (block == 0) return PlainDesc(dims);
  using tag = dnnl::memory::format_tag;
  if (block != 8 && block != 16) throw CodedError("INVALID_ARGUMENT", "channel block must be 0 (plain), 8 or 16, got " + std::to_string(block));
  tag t;
  switch (dims.size()) {
    case 3: t = block == 8 ? tag::nCw8c : tag::nCw16c; break;
    case 4: t = block == 8 ? tag::nChw8c : tag::nChw16c; break;
    case 5: t = block == 8 ? tag::nCdhw8c : tag::nCdhw16c; break;
    default: throw CodedError("INVALID_ARGUMENT", "a channel-blocked tensor needs rank 3 to 5, got " + DimsToString(dims));
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, t);
}

int64_t DescElements(const dnnl::memory::desc& desc) { return static_cast<int64_t>(desc.get_size() / sizeof(float)); }

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
