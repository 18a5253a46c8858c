#include "scratchpad.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "engine.h"

namespace switchyard {

dnnl::primitive_attr UserScratchpadAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

struct ThreadBuffer {
  std::unique_ptr<void, FreeDeleter> data;
  size_t bytes = 0;
};

void* Reserve(TempSlot slot, size_t bytes) {
  thread_local std::array<ThreadBuffer, static_cast<size_t>(TempSlot::kCount)> buffers;
  ThreadBuffer& b = buffers[static_cast<size_t>(slot)];
  if (b.bytes < bytes) {
    const size_t rounded = (bytes + 63) / 64 * 64;  // aligned_alloc wants a multiple of the alignment
    b.data.reset();
    b.data.reset(std::aligned_alloc(64, rounded));
    if (!b.data) {
      b.bytes = 0;
      throw std::bad_alloc();
    }
    b.bytes = rounded;
  }
  return b.data.get();
}

void ExecuteWithScratchpadIn(const dnnl::primitive& primitive, dnnl::stream& stream, std::unordered_map<int, dnnl::memory> args,
                             const dnnl::memory::desc& scratchpad, TempSlot slot) {
  if (scratchpad.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, TempMemory(scratchpad, slot));
  primitive.execute(stream, args);
}

}  // namespace

size_t KeptTempBytes(TempSlot slot) {
  // Reorder scratchpads and the int8 paths' accumulators larger than this are allocated per call.
  constexpr size_t kMaxKeptBytes = size_t{16} << 20;
  // Image-sized blocks are kept up to 256 MiB: a fresh block costs its page faults on every call, which
  // measured dearer than the work itself on large images (a 2-core AVX-512 VM, ~30 us a fault; UNet's last
  // k2 s2 ConvTranspose, 32 channels at 1024 x 1024, stages 128 MiB: ~1 s a call allocated fresh). They are
  // the blocked copies of a primitive's src / dst, DepthToSpaceDeconv's staged conv output, the int8
  // convolutions' padded 8-bit input and primitive scratchpads, whose largest are oneDNN Winograd's
  // whole-image transforms (22 MiB for ResNet-50 b8's 128-channel layers, 78..152 MiB for UNet's
  // 128..512-channel ones at 1024 x 1024): kept, that Winograd took 0.32-0.55x the time of the direct conv
  // (2 threads); allocated per call it took up to 2x. Only the threads that run primitives hold them (the
  // oneDNN queue's thread and the main thread's runSync), and each slot grows to its largest block only.
  constexpr size_t kMaxKeptImageBytes = size_t{256} << 20;
  switch (slot) {
    case TempSlot::kSrc:
    case TempSlot::kDst:
    case TempSlot::kStaged:
    case TempSlot::kInt8Input:
    case TempSlot::kScratchpad:
      return kMaxKeptImageBytes;
    default:
      return kMaxKeptBytes;
  }
}

dnnl::memory TempMemory(const dnnl::memory::desc& desc, TempSlot slot) {
  if (desc.get_size() > KeptTempBytes(slot)) return dnnl::memory(desc, CpuEngine());
  return dnnl::memory(desc, CpuEngine(), Reserve(slot, desc.get_size()));
}

void ExecuteWithScratchpad(const dnnl::primitive& primitive, dnnl::stream& stream,
                           std::unordered_map<int, dnnl::memory> args, const dnnl::memory::desc& scratchpad) {
  ExecuteWithScratchpadIn(primitive, stream, std::move(args), scratchpad, TempSlot::kScratchpad);
}

Reorder::Reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  dnnl::reorder::primitive_desc pd(CpuEngine(), from, CpuEngine(), to, UserScratchpadAttr());
  primitive_ = dnnl::reorder(pd);
  scratchpad_ = pd.scratchpad_desc();
}

std::optional<Reorder> ReorderIfNeeded(const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  if (from == to) return std::nullopt;
  return Reorder(from, to);
}

dnnl::memory InPrimitiveLayout(dnnl::stream& stream, const std::optional<Reorder>& reorder, const dnnl::memory& user,
                               const dnnl::memory::desc& primitiveDesc, TempSlot slot) {
  if (!reorder) return user;
  dnnl::memory converted = TempMemory(primitiveDesc, slot);
  reorder->Execute(stream, user, converted);
  return converted;
}

void Reorder::Execute(dnnl::stream& stream, const dnnl::memory& from, const dnnl::memory& to) const {
  ExecuteWithScratchpadIn(primitive_, stream, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, scratchpad_, TempSlot::kReorderScratchpad);
}

void CopyIntoLayout(const dnnl::memory& from, const dnnl::memory::desc& to, void* out) {
  if (from.get_desc() == to) {
    std::memcpy(out, from.get_data_handle(), to.get_size());
    return;
  }
  Reorder reorder(from.get_desc(), to);
  auto stream = NewStream();
  reorder.Execute(stream, from, dnnl::memory(to, CpuEngine(), out));
  stream.wait();
}

}  // namespace switchyard
