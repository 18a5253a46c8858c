// The one thread on which this Node environment runs its queued native work (ep-cpu: oneDNN).
//
// Why not libuv's thread pool (Napi::AsyncWorker): with Debian's OpenMP build of oneDNN, every
// thread that enters a parallel region gets its own OpenMP team, and a team's threads keep
// spinning for a while after each region. Consecutive primitives landing on different pool
// threads therefore woke up to four teams that spun against each other; on a 2-core machine two
// threads ran slower than one (SqueezeNet 35 vs 29 ms per run). One long-lived thread keeps one
// warm team, and runs are naturally serialized: on a machine this size, two oneDNN calls in
// parallel only oversubscribe the cores.
#pragma once

#include <napi.h>

#include <memory>

namespace switchyard {

// One unit of work: Run() executes on the queue's thread and must not touch V8; Settle() then
// runs on the JavaScript thread (settle a Promise, drop references).
class QueuedJob {
 public:
  virtual ~QueuedJob() = default;
  virtual void Run() = 0;
  virtual void Settle(Napi::Env env) = 0;
};

// Appends `job` to `env`'s queue (creating the queue and its thread on first use). Jobs run one at
// a time in the order queued. While any job is queued or running, the queue keeps the event loop
// alive; when idle it does not. [JavaScript thread only]
void QueueJob(Napi::Env env, std::unique_ptr<QueuedJob> job);

}  // namespace switchyard
