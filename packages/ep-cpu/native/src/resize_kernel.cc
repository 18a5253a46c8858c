#include "resize_kernel.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine.h"
#include <switchyard/errors.h>
#include "scratchpad.h"

namespace switchyard {

namespace {

void Require(bool ok, const std::string& message) {
  if (!ok) throw CodedError("INVALID_ARGUMENT", "Resize: " + message);
}

// Below this many outputs a pass runs on the calling thread: waking a team costs more.
constexpr int64_t kParallelOutputs = int64_t{1} << 14;

int64_t Product(const Dims& dims, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i) n *= dims[i];
  return n;
}

// [first, last) of `count` items for thread `t` of `n`: contiguous, so a thread's rows follow each other.
std::pair<int64_t, int64_t> ChunkOf(int64_t count, int t, int n) {
  const int64_t base = count / n, extra = count % n;
  const int64_t first = t * base + std::min<int64_t>(t, extra);
  return {first, first + base + (t < extra ? 1 : 0)};
}

// Walks output rows (coordinates over the physical axes before `axes`) in order, tracking the source
// offset of each row (for the copy path) and whether any of its coordinates is outside the input.
class RowWalker {
 public:
  RowWalker(const std::vector<AxisTaps>& taps, const Dims& src, const Dims& dst, size_t axes, int64_t row)
      : taps_(taps), dst_(dst), coords_(axes), strides_(axes) {
    for (size_t a = 0; a < axes; ++a) strides_[a] = Product(src, a + 1, src.size());
    for (size_t a = axes; a-- > 0;) {
      coords_[a] = row % dst[a];
      row /= dst[a];
    }
    Update();
  }

  int64_t offset() const { return offset_; }
  bool outside() const { return outside_; }
  int64_t coord(size_t axis) const { return coords_[axis]; }

  void Next() {
    for (size_t a = coords_.size(); a-- > 0;) {
      if (++coords_[a] < dst_[a]) break;
      coords_[a] = 0;
    }
    Update();
  }

 private:
  const std::vector<AxisTaps>& taps_;
  const Dims& dst_;
  Dims coords_, strides_;
  int64_t offset_ = 0;
  bool outside_ = false;

  void Update() {
    offset_ = 0;
    outside_ = false;
    for (size_t a = 0; a < coords_.size(); ++a) {
      const AxisTaps& t = taps_[a];
      const auto c = static_cast<size_t>(coords_[a]);
      offset_ += (t.identity ? coords_[a] : t.index[c * static_cast<size_t>(t.taps)]) * strides_[a];
      if (!t.outside.empty() && t.outside[c]) outside_ = true;
    }
  }
};

// r when index[j] = index[0] + j / r for every j (integer nearest upsampling, r >= 2), else 0.
int64_t RepeatOf(const AxisTaps& t) {
  const auto count = static_cast<int64_t>(t.index.size());
  if (count < 2 || t.index[1] != t.index[0]) return 0;
  int64_t r = 1;
  while (r < count && t.index[static_cast<size_t>(r)] == t.index[0]) ++r;
  for (int64_t j = 0; j < count; ++j)
    if (t.index[static_cast<size_t>(j)] != t.index[0] + j / r) return 0;
  return r;
}

}  // namespace

ResizeKernel::ResizeKernel(const ResizeParams& params) : params_(params), loops_(&SelectedResizeLoops()) {
  const ResizeParams& p = params_;
  const size_t rank = p.input.size();
  Require(rank >= 1, "the input needs rank >= 1");
  Require(p.output.size() == rank, "output dims " + DimsToString(p.output) + " must have the input's rank " + std::to_string(rank));
  Require(p.scales.size() == rank, "scales has " + std::to_string(p.scales.size()) + " entries, expected " + std::to_string(rank) + " (one per axis)");
  ElementCount(p.input, "Resize: input");
  ElementCount(p.output, "Resize: output");
  for (size_t a = 0; a < rank; ++a) {
    Require(std::isfinite(p.scales[a]) && p.scales[a] > 0, "scales[" + std::to_string(a) + "] must be finite and > 0, got " + std::to_string(p.scales[a]));
  }
  const bool crop = p.method.coordinate == CoordinateMode::kTfCropAndResize;
  if (crop) {
    Require(p.roi.size() == 2 * rank, "tf_crop_and_resize needs roi with " + std::to_string(2 * rank) + " values, got " + std::to_string(p.roi.size()));
    for (double r : p.roi) Require(std::isfinite(r), "roi values must be finite");
  }
  Require(std::isfinite(p.method.cubicA), "cubicCoeffA must be finite");
  Require(p.block == 0 || p.block == 8 || p.block == 16, "block must be 0 (plain), 8 or 16, got " + std::to_string(p.block));

  for (size_t a = 0; a < rank; ++a) {
    taps_.push_back(ComputeAxisTaps(p.input[a], p.output[a], p.scales[a], crop ? p.roi[a] : 0, crop ? p.roi[a + rank] : 1, p.method));
  }
  src_ = p.input;
  dst_ = p.output;
  if (p.block) {
    Require(rank >= 3 && rank <= 5, "a channel-blocked tensor needs rank 3 to 5, got " + DimsToString(p.input));
    Require(taps_[0].identity && taps_[1].identity, "a channel-blocked resize scales spatial axes only (N and C stay as they are)");
    const int64_t blocks = (p.input[1] + p.block - 1) / p.block;
    src_[1] = dst_[1] = blocks;
    src_.push_back(p.block);
    dst_.push_back(p.block);
    taps_.push_back(AxisTaps{});
    taps_.back().identity = true;
    ElementCount(src_, "Resize: blocked input");
    ElementCount(dst_, "Resize: blocked output");
  }
  copyOnly_ = true;
  for (size_t a = 0; a < taps_.size(); ++a) {
    if (taps_[a].identity) continue;
    scaled_.push_back(a);
    copyOnly_ = copyOnly_ && taps_[a].taps == 1;
    hasOutside_ = hasOutside_ || !taps_[a].outside.empty();
  }
  if (!scaled_.empty()) planes_ = Product(src_, 0, scaled_.front());
  if (!copyOnly_) PlanPasses();
  if (copyOnly_ && !scaled_.empty() && scaled_.back() + 1 == dst_.size()) repeat_ = RepeatOf(taps_.back());
}

void ResizeKernel::PlanPasses() {
  // The order with the least work: a pass costs its outputs times its taps, and a gathering one (the
  // contiguous axis of a plain tensor) about three times that. Shrinking axes thus go first, and an
  // upsampled last axis before the rows are multiplied.
  std::vector<size_t> order = scaled_, best;
  double bestCost = INFINITY;
  const bool tryAll = order.size() <= 6;
  do {
    Dims cur = src_;
    double cost = 0;
    for (size_t a : order) {
      cur[a] = dst_[a];
      const double outputs = static_cast<double>(Product(cur, 0, cur.size()));
      cost += outputs * static_cast<double>(taps_[a].taps) * (a + 1 == cur.size() ? 3 : 1);
    }
    if (cost < bestCost) {
      bestCost = cost;
      best = order;
    }
  } while (tryAll && std::next_permutation(order.begin(), order.end()));

  Dims cur = src_;
  for (size_t i = 0; i < best.size(); ++i) {
    const size_t a = best[i];
    passes_.push_back(Pass{a, Product(cur, 0, a), cur[a], dst_[a], Product(cur, a + 1, cur.size())});
    cur[a] = dst_[a];
    if (i + 1 < best.size()) scratchFloats_ = std::max(scratchFloats_, Product(cur, 0, cur.size()));
  }
  const int threads = params_.threads > 0 ? params_.threads : DefaultThreads();
  byPlane_ = threads == 1 || planes_ >= 4 * threads;
  if (byPlane_) scratchFloats_ /= planes_;
}

void ResizeKernel::Execute(const float* src, float* dst) const {
  ThreadScope threads(params_.threads);
  if (scaled_.empty()) {
    std::memcpy(dst, src, static_cast<size_t>(dstElements()) * sizeof(float));
    return;
  }
  if (copyOnly_) {
    ExecuteCopy(src, dst);
    return;  // the copy pass writes extrapolated outputs itself
  }
  if (byPlane_) ExecuteByPlane(src, dst);
  else ExecuteByPass(src, dst);
  if (hasOutside_) FillOutside(dst);
}

namespace {

// Writes `value` into a row of `count` runs of `inner` floats; in a blocked layout only into the first
// `lanes` of each run: the rest are padding channels, which must read zero.
void FillRuns(float* out, int64_t count, int64_t inner, int64_t lanes, float value) {
  for (int64_t j = 0; j < count; ++j) {
    std::fill(out + j * inner, out + j * inner + lanes, value);
    std::fill(out + j * inner + lanes, out + (j + 1) * inner, 0.0f);
  }
}

}  // namespace

void ResizeKernel::ExecuteCopy(const float* src, float* dst) const {
  const size_t last = scaled_.back();
  const AxisTaps& lastTaps = taps_[last];
  const int64_t count = dst_[last];
  const int64_t inner = Product(dst_, last + 1, dst_.size());
  const int64_t rows = Product(dst_, 0, last);
  const int64_t rowFloats = count * inner;
  const float e = params_.extrapolation;
  const int64_t block = params_.block, channels = params_.input.size() > 1 ? params_.input[1] : 1;
  const bool parallel = rows > 1 && rows * rowFloats >= kParallelOutputs;
#pragma omp parallel if (parallel)
  {
    const auto [first, end] = ChunkOf(rows, omp_get_thread_num(), omp_get_num_threads());
    if (first < end) {
      RowWalker walker(taps_, src_, dst_, last, first);
      int64_t previous = -1;  // source offset of the row just written, when it holds no extrapolated runs
      for (int64_t r = first; r < end; ++r, walker.Next()) {
        float* out = dst + r * rowFloats;
        const int64_t lanes = block ? std::min(block, channels - walker.coord(1) * block) : inner;
        if (walker.outside()) {
          FillRuns(out, count, inner, lanes, e);
          previous = -1;
        } else if (walker.offset() == previous) {
          std::memcpy(out, out - rowFloats, static_cast<size_t>(rowFloats) * sizeof(float));  // nearest upsampling repeats rows
        } else {
          if (repeat_) loops_->pickRepeated(out, src + walker.offset() + lastTaps.index[0], repeat_, count);
          else loops_->pick(out, src + walker.offset(), lastTaps.index.data(), count, inner);
          if (!lastTaps.outside.empty()) {
            for (int64_t j = 0; j < count; ++j)
              if (lastTaps.outside[static_cast<size_t>(j)]) FillRuns(out + j * inner, 1, inner, lanes, e);
          }
          previous = walker.offset();
        }
      }
    }
  }
}

void ResizeKernel::ExecuteByPlane(const float* src, float* dst) const {
  const int64_t inPlane = Product(src_, 0, src_.size()) / planes_;
  const int64_t outPlane = Product(dst_, 0, dst_.size()) / planes_;
  const int64_t work = Product(dst_, 0, dst_.size());
  const auto scratchDesc = PlainDesc({std::max<int64_t>(scratchFloats_, 1)});
#pragma omp parallel if (planes_ > 1 && work >= kParallelOutputs)
  {
    // Each thread's own intermediates (two, used in turn), sized for one plane: they stay in cache.
    dnnl::memory buffers[2] = {TempMemory(scratchDesc, TempSlot::kSrc), TempMemory(scratchDesc, TempSlot::kDst)};
    float* scratch[2] = {static_cast<float*>(buffers[0].get_data_handle()), static_cast<float*>(buffers[1].get_data_handle())};
#pragma omp for schedule(static)
    for (int64_t plane = 0; plane < planes_; ++plane) {
      const float* from = src + plane * inPlane;
      for (size_t i = 0; i < passes_.size(); ++i) {
        const Pass& pass = passes_[i];
        const AxisTaps& t = taps_[pass.axis];
        float* to = i + 1 == passes_.size() ? dst + plane * outPlane : scratch[i % 2];
        const int64_t outer = pass.outer / planes_;
        for (int64_t o = 0; o < outer; ++o) {
          loops_->resample(to + o * pass.outSize * pass.inner, from + o * pass.inSize * pass.inner, t.index.data(), t.weight.data(), t.taps,
                           pass.outSize, pass.inner);
        }
        from = to;
      }
    }
  }
}

void ResizeKernel::ExecuteByPass(const float* src, float* dst) const {
  dnnl::memory buffers[2];
  if (passes_.size() > 1) buffers[0] = TempMemory(PlainDesc({scratchFloats_}), TempSlot::kSrc);
  if (passes_.size() > 2) buffers[1] = TempMemory(PlainDesc({scratchFloats_}), TempSlot::kDst);
  const float* from = src;
  for (size_t i = 0; i < passes_.size(); ++i) {
    const Pass& pass = passes_[i];
    const AxisTaps& t = taps_[pass.axis];
    float* to = i + 1 == passes_.size() ? dst : static_cast<float*>(buffers[i % 2].get_data_handle());
    // Items are (outer index, output position) pairs; each thread takes a contiguous run of them.
    const int64_t items = pass.outer * pass.outSize;
#pragma omp parallel if (items * pass.inner >= kParallelOutputs)
    {
      const auto [first, end] = ChunkOf(items, omp_get_thread_num(), omp_get_num_threads());
      for (int64_t item = first; item < end;) {
        const int64_t o = item / pass.outSize, j = item % pass.outSize;
        const int64_t n = std::min(pass.outSize - j, end - item);
        const size_t tap = static_cast<size_t>(j * t.taps);
        loops_->resample(to + item * pass.inner, from + o * pass.inSize * pass.inner, t.index.data() + tap, t.weight.data() + tap, t.taps, n,
                         pass.inner);
        item += n;
      }
    }
    from = to;
  }
}

void ResizeKernel::FillOutside(float* dst) const {
  const size_t last = scaled_.back();
  const AxisTaps& lastTaps = taps_[last];
  const int64_t count = dst_[last];
  const int64_t inner = Product(dst_, last + 1, dst_.size());
  const int64_t rows = Product(dst_, 0, last);
  const float e = params_.extrapolation;
  const int64_t block = params_.block, channels = params_.input.size() > 1 ? params_.input[1] : 1;
#pragma omp parallel if (rows > 1 && rows * count * inner >= kParallelOutputs)
  {
    const auto [first, end] = ChunkOf(rows, omp_get_thread_num(), omp_get_num_threads());
    if (first < end) {
      RowWalker walker(taps_, src_, dst_, last, first);
      for (int64_t r = first; r < end; ++r, walker.Next()) {
        float* out = dst + r * count * inner;
        const int64_t lanes = block ? std::min(block, channels - walker.coord(1) * block) : inner;
        if (walker.outside()) {
          FillRuns(out, count, inner, lanes, e);
        } else if (!lastTaps.outside.empty()) {
          for (int64_t j = 0; j < count; ++j)
            if (lastTaps.outside[static_cast<size_t>(j)]) FillRuns(out + j * inner, 1, inner, lanes, e);
        }
      }
    }
  }
}

std::string ResizeKernel::implementation() const {
  const std::string isa = loops_->isa;
  if (scaled_.empty()) return "resize_identity";
  if (copyOnly_) return "resize_copy:" + isa;
  return "resize_separable:" + isa + " (" + std::to_string(passes_.size()) + (passes_.size() == 1 ? " pass" : " passes") +
         (byPlane_ ? ", by plane)" : ", by pass)");
}

}  // namespace switchyard
