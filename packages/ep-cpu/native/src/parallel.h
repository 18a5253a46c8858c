// Splitting a loop over the OpenMP team of the calling thread (its size set by ThreadScope), for the
// memory-bound kernels. Small loops skip the parallel region: entering one costs a few microseconds,
// more than copying a few thousand elements.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace switchyard {

// The least memory traffic worth a thread of its own: ~0.1 ms of copying on one core. These kernels are
// memory-bound, so a second thread gains little below that (a 1.2 MB transpose: 39 vs 32 µs, min of 80
// runs), while waking the team costs microseconds when it is warm and a whole scheduler slice (3–16 ms
// measured) when the machine is oversubscribed and the woken thread waits for a core.
constexpr int64_t kParallelBytes = 1024 * 1024;

// Items per thread for items of `bytes` each (at least 1).
inline int64_t GrainFor(int64_t bytes) { return std::max<int64_t>(1, kParallelBytes / std::max<int64_t>(bytes, 1)); }

// The team for a oneDNN primitive, which forks the whole team it is built for however small the problem:
// one thread per `perThread` units of `work`, at most `requested` (<= 0: OpenMP's default), at least 1.
inline int TeamFor(int requested, int64_t work, int64_t perThread) {
  const int64_t team = requested > 0 ? requested : omp_get_max_threads();
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(team, work / std::max<int64_t>(perThread, 1))));
}

// The same for memory-bound work: one thread per kParallelBytes of traffic. A LayerNorm of [32, 768] took
// 7 µs on one thread and 15 µs on two (2-core AVX-512 EPYC): below ~1 MB the fork and join cost more than
// the second thread saves.
inline int TeamForBytes(int requested, int64_t bytes) { return TeamFor(requested, bytes, kParallelBytes); }

// Calls fn(begin, end) over disjoint ranges covering [0, n), on up to the team's threads; each range
// holds at least `grain` items (except when n is smaller), so tiny loops run inline on one thread.
template <typename Fn>
void ParallelRanges(int64_t n, int64_t grain, Fn&& fn) {
  if (n <= 0) return;
  const int64_t team = omp_get_max_threads();
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(team, n / std::max<int64_t>(grain, 1)));
  if (parts <= 1) {
    fn(int64_t{0}, n);
    return;
  }
#pragma omp parallel for num_threads(static_cast<int>(parts)) schedule(static, 1)
  for (int64_t p = 0; p < parts; p++) {
    const int64_t begin = n * p / parts, end = n * (p + 1) / parts;
    if (begin < end) fn(begin, end);
  }
}

}  // namespace switchyard
