#include "engine.h"

#include <omp.h>

namespace switchyard {

const dnnl::engine& CpuEngine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream NewStream() { return dnnl::stream(CpuEngine()); }

int DefaultThreads() {
  // Read once at first call, before any ThreadScope changed this thread's value.
  static const int threads = omp_get_max_threads();
  return threads;
}

ThreadScope::ThreadScope(int threads) : previous_(omp_get_max_threads()), changed_(threads > 0 && threads != previous_) {
  if (changed_) omp_set_num_threads(threads);
}

ThreadScope::~ThreadScope() {
  if (changed_) omp_set_num_threads(previous_);
}

}  // namespace switchyard
