// A small most-recently-used cache of built oneDNN primitives, keyed by what shapes them.
//
// Why: building a primitive descriptor costs ~5-15 us even when oneDNN's own primitive cache hits
// (the op descriptor and the primitive_desc are still created and checked per call), which is more
// than a small softmax or layer normalization takes to run. A model calls one function with a few
// shapes again and again, so a handful of entries catch nearly every call.
//
// Not synchronized: keep one instance per thread (thread_local) so any thread may call in.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace switchyard {

// A primitive ready to execute, with the scratchpad it wants (scratchpad_mode::user).
struct BuiltPrimitive {
  dnnl::primitive primitive;
  dnnl::memory::desc scratchpad;
};

template <typename Key>
class PrimitiveLru {
 public:
  explicit PrimitiveLru(size_t capacity) : capacity_(capacity) { entries_.reserve(capacity); }

  // The entry for `key`, built by `build()` (returning a BuiltPrimitive) on a miss; the least
  // recently used entry makes room. A throwing `build` leaves the cache as it was. The reference is
  // valid until the next Get.
  template <typename Build>
  const BuiltPrimitive& Get(const Key& key, Build&& build) {
    for (size_t i = 0; i < entries_.size(); i++) {
      if (entries_[i].first == key) {
        // Move to the front so the scan order is most recent first.
        for (size_t j = i; j > 0; j--) std::swap(entries_[j], entries_[j - 1]);
        return entries_[0].second;
      }
    }
    BuiltPrimitive built = build();
    if (entries_.size() == capacity_) entries_.pop_back();
    entries_.insert(entries_.begin(), {key, std::move(built)});
    return entries_[0].second;
  }

 private:
  size_t capacity_;
  std::vector<std::pair<Key, BuiltPrimitive>> entries_;
};

}  // namespace switchyard
