// Splitting a loop over the OpenMP team of the calling thread (its size set by ThreadScope), for the
// memory-bound kernels. Small loops skip the parallel region: entering one costs a few microseconds,
// more than copying a few thousand elements.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace switchyard {

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
