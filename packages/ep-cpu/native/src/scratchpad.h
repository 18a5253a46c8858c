// Scratchpads owned by each execution (scratchpad_mode::user).
//
// Why: with oneDNN's default "library" mode, Debian's build (no DNNL_ENABLE_CONCURRENT_EXEC) gives a
// primitive a global scratchpad tied to the thread that *created* it. We create primitives on the main
// thread and execute them on libuv workers, where that buffer is not valid (a crash in gemm-based
// convs). In user mode every Execute allocates the scratchpad it needs, so any thread, and concurrent
// runs of one primitive, are safe.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <optional>
#include <unordered_map>

namespace switchyard {

// Attributes with scratchpad_mode::user; add post-ops etc. on top.
dnnl::primitive_attr UserScratchpadAttr();

// Per-thread, grow-only buffers for memory that lives only during one Execute (blocked copies of
// src/dst, scratchpads). Allocating them per call cost more than small primitives themselves:
// large blocks come from fresh mmap pages, so every call paid page faults (a MobileNetV2
// depthwise conv: 2.5 ms allocating per call vs 0.4 ms reusing). Each slot is a separate buffer;
// one Execute must not use a slot twice. Kernels never run re-entrantly on one thread, so a
// thread's buffers are never shared between two running primitives.
// Blocks over KeptTempBytes(slot) (scratchpads 16 MiB, image-sized slots 256 MiB) are not kept: they are allocated per call.
// kStaged: a kernel's own intermediate between two steps that each use the other slots (DepthToSpaceDeconv's
// conv output). The int8 paths (int8_conv.h, int8_matmul.h) keep their channels-last input, raw int32
// results and zero-point sums in slots of their own.
enum class TempSlot { kSrc, kDst, kScratchpad, kReorderScratchpad, kStaged, kInt8Input, kInt8Accumulators, kInt8Sums, kCount };
// The largest block `slot` keeps between calls.
size_t KeptTempBytes(TempSlot slot);
// The returned memory must outlive every use of its buffer: past the cache limit it owns a fresh one.
dnnl::memory TempMemory(const dnnl::memory::desc& desc, TempSlot slot);

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

// Writes `from` (packed weights, in whatever layout a primitive chose) into `out` laid out as `to`: a
// memcpy when the layouts match, else a one-off reorder on the calling thread's team (for kernels that
// pack again from weights another kernel packed).
void CopyIntoLayout(const dnnl::memory& from, const dnnl::memory::desc& to, void* out);

// A Reorder from one layout to another, or none when they are the same.
std::optional<Reorder> ReorderIfNeeded(const dnnl::memory::desc& from, const dnnl::memory::desc& to);

// What a primitive reads: `user` itself when `reorder` is empty (same layout), else the `slot` buffer
// in `primitiveDesc`, filled from `user` by `reorder` on `stream`.
dnnl::memory InPrimitiveLayout(dnnl::stream& stream, const std::optional<Reorder>& reorder, const dnnl::memory& user,
                               const dnnl::memory::desc& primitiveDesc, TempSlot slot);

}  // namespace switchyard
