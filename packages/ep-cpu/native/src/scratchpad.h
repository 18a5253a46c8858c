// Scratchpads owned by each execution (scratchpad_mode::user).
//
// Why: with oneDNN's default "library" mode, Debian's build (no DNNL_ENABLE_CONCURRENT_EXEC) gives a
// primitive a global scratchpad tied to the thread that *created* it. We create primitives on the main
// thread and execute them on libuv workers, where that buffer is not valid (a crash in gemm-based
// convs). In user mode every Execute allocates the scratchpad it needs, so any thread, and concurrent
// runs of one primitive, are safe.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <unordered_map>

namespace switchyard {

// Attributes with scratchpad_mode::user; add post-ops etc. on top.
dnnl::primitive_attr UserScratchpadAttr();

// Executes `primitive` with `args` plus a freshly allocated scratchpad of `scratchpad` (if non-empty).
void ExecuteWithScratchpad(const dnnl::primitive& primitive, dnnl::stream& stream,
                           std::unordered_map<int, dnnl::memory> args, const dnnl::memory::desc& scratchpad);

// A layout conversion built once and executed many times.
class Reorder {
 public:
  Reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to);
  void Execute(dnnl::stream& stream, const dnnl::memory& from, const dnnl::memory& to) const;

 private:
  dnnl::reorder primitive_;
  dnnl::memory::desc scratchpad_;
};

}  // namespace switchyard
