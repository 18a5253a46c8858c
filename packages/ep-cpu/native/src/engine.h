// The oneDNN CPU engine (one per process) and per-call thread control.
//
// Threading: Debian's libdnnl is built with DNNL_CPU_THREADING_RUNTIME == OMP (libgomp). oneDNN
// sizes a primitive's work split and scratchpad from omp_get_max_threads() when the primitive is
// created, and runs its parallel regions with omp_get_max_threads() of the *calling* thread. That
// value is a per-thread OpenMP ICV, so we set it around both creation and every execution with
// ThreadScope, using the same count: a primitive is always executed with the threads it was built for.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

namespace switchyard {

// The process-wide CPU engine; created on first use (thread-safe static initialisation).
const dnnl::engine& CpuEngine();

// A fresh in-order stream. CPU streams are cheap, and a stream per call means concurrent runs of the
// same primitive (two sessions, two awaits) never share one.
dnnl::stream NewStream();

// OpenMP's default team size for this process (OMP_NUM_THREADS or the core count).
int DefaultThreads();

// Sets the calling thread's OpenMP team size for the scope's lifetime; `threads <= 0` keeps the default.
class ThreadScope {
 public:
  explicit ThreadScope(int threads);
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int previous_;
  bool changed_;
};

}  // namespace switchyard
