#include "strided_copy.h"

#include <algorithm>
#include <cstring>

#include "parallel.h"
#include "tensor_args.h"
#include "vector_isa.h"

namespace switchyard {

namespace {

// Band height of the 2-D transposes, in elements of the source's contiguous axis: one 64-byte line of
// 4-byte elements, so each source line is read once while its band is written out.
int64_t BandFor(int elementSize) { return std::max<int64_t>(8, 64 / elementSize); }

struct Axes {
  int rank = 0;
  int64_t dims[kMaxViewRank];
  int64_t src[kMaxViewRank];  // source strides
  int64_t dst[kMaxViewRank];  // destination strides (row-major over dims)
};

// Drops size-1 axes and merges neighbours that together read one longer axis.
Axes Merge(const int64_t* strides, const int64_t* dims, int rank) {
  Axes a;
  for (int i = 0; i < rank; i++) {
    if (dims[i] == 1) continue;
    if (a.rank > 0 && a.src[a.rank - 1] == strides[i] * dims[i]) {
      a.dims[a.rank - 1] *= dims[i];
      a.src[a.rank - 1] = strides[i];
    } else {
      a.dims[a.rank] = dims[i];
      a.src[a.rank] = strides[i];
      a.rank++;
    }
  }
  int64_t s = 1;
  for (int i = a.rank - 1; i >= 0; i--) {
    a.dst[i] = s;
    s *= a.dims[i];
  }
  return a;
}

// Walks the combinations of some axes in row-major order, keeping the source and destination offsets.
class Odometer {
 public:
  Odometer(const Axes& a, const int* which, int count, int64_t start) : a_(a), which_(which), count_(count) {
    for (int k = count - 1; k >= 0; k--) {
      const int axis = which[k];
      index_[k] = start % a.dims[axis];
      start /= a.dims[axis];
      src_ += index_[k] * a.src[axis];
      dst_ += index_[k] * a.dst[axis];
    }
  }
  int64_t src() const { return src_; }
  int64_t dst() const { return dst_; }
  void Next() {
    for (int k = count_ - 1; k >= 0; k--) {
      const int axis = which_[k];
      src_ += a_.src[axis];
      dst_ += a_.dst[axis];
      if (++index_[k] < a_.dims[axis]) return;
      src_ -= a_.src[axis] * a_.dims[axis];
      dst_ -= a_.dst[axis] * a_.dims[axis];
      index_[k] = 0;
    }
  }

 private:
  const Axes& a_;
  const int* which_;
  int count_;
  int64_t index_[kMaxViewRank] = {};
  int64_t src_ = 0, dst_ = 0;
};

template <typename T>
void FillRun(T* dst, const T* value, int64_t n) {
  const T v = *value;
  for (int64_t j = 0; j < n; j++) dst[j] = v;
}

template <typename T>
void GatherRun(T* dst, const T* src, int64_t stride, int64_t n) {
  for (int64_t j = 0; j < n; j++) dst[j] = src[j * stride];
}

// One row of the innermost axis: a run, a fill or a strided gather.
void CopyRow(const uint8_t* src, int64_t stride, int64_t n, uint8_t* dst, int es) {
  if (stride == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n * es));
    return;
  }
  switch (es) {
    case 1: return stride == 0 ? FillRun(dst, src, n) : GatherRun(dst, src, stride, n);
    case 2: return stride == 0 ? FillRun(reinterpret_cast<uint16_t*>(dst), reinterpret_cast<const uint16_t*>(src), n)
                               : GatherRun(reinterpret_cast<uint16_t*>(dst), reinterpret_cast<const uint16_t*>(src), stride, n);
    case 4: return stride == 0 ? FillRun(reinterpret_cast<uint32_t*>(dst), reinterpret_cast<const uint32_t*>(src), n)
                               : GatherRun(reinterpret_cast<uint32_t*>(dst), reinterpret_cast<const uint32_t*>(src), stride, n);
    default: return stride == 0 ? FillRun(reinterpret_cast<uint64_t*>(dst), reinterpret_cast<const uint64_t*>(src), n)
                                : GatherRun(reinterpret_cast<uint64_t*>(dst), reinterpret_cast<const uint64_t*>(src), stride, n);
  }
}

// Rows of the innermost axis; a single long row splits into pieces.
void CopyRows(const uint8_t* src, const Axes& a, uint8_t* dst, int es) {
  const int last = a.rank - 1;
  const int64_t n = a.dims[last], stride = a.src[last];
  const int64_t rows = a.dst[0] * a.dims[0] / n;
  int outer[kMaxViewRank];
  for (int k = 0; k < last; k++) outer[k] = k;
  const int64_t rowBytes = n * es;
  if (rows == 1) {
    ParallelRanges(n, GrainFor(es), [&](int64_t begin, int64_t end) {
      CopyRow(src + begin * stride * es, stride, end - begin, dst + begin * es, es);
    });
    return;
  }
  ParallelRanges(rows, GrainFor(rowBytes), [&](int64_t begin, int64_t end) {
    Odometer at(a, outer, last, begin);
    for (int64_t r = begin; r < end; r++, at.Next()) CopyRow(src + at.src() * es, stride, n, dst + at.dst() * es, es);
  });
}

// Each combination of the other axes holds a [dims[last] × dims[axis]] transpose: the source runs along
// `axis` (stride 1), the destination along the last axis. Work items are bands of `axis`.
void CopyTransposed(const uint8_t* src, const Axes& a, int axis, uint8_t* dst, int es) {
  const int last = a.rank - 1;
  int outer[kMaxViewRank];
  int count = 0;
  for (int k = 0; k < last; k++) {
    if (k != axis) outer[count++] = k;
  }
  int64_t outerCount = 1;
  for (int k = 0; k < count; k++) outerCount *= a.dims[outer[k]];
  const int64_t band = BandFor(es), width = a.dims[axis], length = a.dims[last];
  const int64_t bands = (width + band - 1) / band;
  const int64_t srcRowStride = a.src[last], dstRowStride = a.dst[axis];
  const vec::TransposeLoop transpose = VectorLoops().transpose[es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3];
  const int64_t bandBytes = band * length * es;
  ParallelRanges(outerCount * bands, GrainFor(bandBytes), [&](int64_t begin, int64_t end) {
    Odometer at(a, outer, count, begin / bands);
    for (int64_t item = begin; item < end; item++) {
      const int64_t b = item % bands;
      if (b == 0 && item != begin) at.Next();
      const int64_t i0 = b * band, cols = std::min(band, width - i0);
      transpose(src + (at.src() + i0) * es, srcRowStride, dst + (at.dst() + i0 * dstRowStride) * es, dstRowStride, length, cols);
    }
  });
}

}  // namespace

void CopyBytes(const void* src, void* dst, int64_t bytes) {
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  ParallelRanges(bytes, kParallelBytes, [&](int64_t begin, int64_t end) { std::memcpy(d + begin, s + begin, static_cast<size_t>(end - begin)); });
}

void CopyStrided(const void* src, int64_t offset, const int64_t* strides, const int64_t* dims, int rank, void* dst, int elementSize) {
  for (int i = 0; i < rank; i++) {
    if (dims[i] == 0) return;
  }
  const auto* base = static_cast<const uint8_t*>(src) + offset * elementSize;
  auto* out = static_cast<uint8_t*>(dst);
  const Axes a = Merge(strides, dims, rank);
  if (a.rank == 0) {
    std::memcpy(out, base, static_cast<size_t>(elementSize));
    return;
  }
  const int last = a.rank - 1;
  if (a.rank == 1 && a.src[0] == 1) {
    CopyBytes(base, out, a.dims[0] * elementSize);
    return;
  }
  // A transpose when the source is contiguous along some outer axis and strided along the last.
  if (a.src[last] != 1 && a.src[last] != 0) {
    for (int k = last - 1; k >= 0; k--) {
      if (a.src[k] == 1) {
        CopyTransposed(base, a, k, out, elementSize);
        return;
      }
    }
  }
  CopyRows(base, a, out, elementSize);
}

}  // namespace switchyard
