// Runs a plain-data "baton" off the JavaScript thread and settles a Promise on it: the one way every
// Switchyard addon turns native work into a Promise.
//
// A Baton is plain data (raw pointers into JS buffers, shared_ptr to a V8-free kernel, copied bytes) with
//   void Run();                   // executes off the main thread; must not touch V8 (may be const)
//   const char* Context() const;  // prefix for error messages ("Conv", ...; "" when the JS caller adds its own)
// and optionally
//   Napi::Value Result(Napi::Env env);  // on the JS thread after Run: what the Promise resolves to
//                                       // (without it: undefined)
//   void Release();                     // on the JS thread before the Promise settles, whether Run
//                                       // threw or not (ends a use begun when the work was queued)
// Whatever Run throws rejects the Promise with a coded Error (errors.h: CodedError keeps its code,
// the addon's translator maps its libraries' exceptions, anything else is 'RUNTIME').
// The JS objects that own the buffers Run reads are held by persistent references from queueing (main
// thread) until the job is settled (main thread), so the GC cannot free them mid-run.
//
// Where it runs: Queue() puts it on the environment's one native thread (native_queue.h: ep-cpu's
// oneDNN work, which wants one warm OpenMP team and serialized runs); QueueOnPool() on libuv's
// thread pool (GPU addons: independent calls may overlap).
#pragma once

#include <napi.h>

#include <switchyard/errors.h>
#include <switchyard/native_queue.h>

#include <initializer_list>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace switchyard {

namespace detail {

template <typename Baton, typename = void>
struct HasResult : std::false_type {};
template <typename Baton>
struct HasResult<Baton, std::void_t<decltype(std::declval<Baton&>().Result(std::declval<Napi::Env>()))>> : std::true_type {};

template <typename Baton, typename = void>
struct HasRelease : std::false_type {};
template <typename Baton>
struct HasRelease<Baton, std::void_t<decltype(std::declval<Baton&>().Release())>> : std::true_type {};

// Carries a QueuedJob through libuv's pool: Execute runs it there, OnOK settles it on the JS thread.
class PoolRunner final : public Napi::AsyncWorker {
 public:
  PoolRunner(Napi::Env env, std::unique_ptr<QueuedJob> job) : Napi::AsyncWorker(env, "switchyard:promise"), job_(std::move(job)) {}
  void Execute() override { job_->Run(); }  // the job catches everything itself
  void OnOK() override { job_->Settle(Env()); }

 private:
  std::unique_ptr<QueuedJob> job_;
};

}  // namespace detail

template <typename Baton>
class PromiseWorker final : public QueuedJob {
 public:
  // [sync] Queues the work on the native queue and returns its Promise.
  static Napi::Promise Queue(Napi::Env env, Baton baton, std::initializer_list<Napi::Value> keepAlive = {}) {
    return QueueKeeping(env, std::move(baton), keepAlive, false);
  }

  // The same, for a keep-alive list whose length is known only at run time (a variadic op's inputs).
  static Napi::Promise Queue(Napi::Env env, Baton baton, const std::vector<Napi::Value>& keepAlive) {
    return QueueKeeping(env, std::move(baton), keepAlive, false);
  }

  // [sync] Queues the work on libuv's thread pool and returns its Promise.
  static Napi::Promise QueueOnPool(Napi::Env env, Baton baton, std::initializer_list<Napi::Value> keepAlive = {}) {
    return QueueKeeping(env, std::move(baton), keepAlive, true);
  }

  static Napi::Promise QueueOnPool(Napi::Env env, Baton baton, const std::vector<Napi::Value>& keepAlive) {
    return QueueKeeping(env, std::move(baton), keepAlive, true);
  }

  void Run() override {
    try {
      baton_.Run();
    } catch (...) {
      failed_ = true;
      error_ = DescribeCurrentException(baton_.Context());
    }
  }

  void Settle(Napi::Env env) override {
    if constexpr (detail::HasRelease<Baton>::value) baton_.Release();
    if (failed_) {
      deferred_.Reject(ToJsError(env, error_).Value());
      return;
    }
    if constexpr (detail::HasResult<Baton>::value) {
      try {
        deferred_.Resolve(baton_.Result(env));
      } catch (const Napi::Error& e) {
        deferred_.Reject(e.Value());
      } catch (...) {
        deferred_.Reject(ToJsError(env, DescribeCurrentException(baton_.Context())).Value());
      }
    } else {
      deferred_.Resolve(env.Undefined());
    }
  }

 private:
  template <typename Values>
  static Napi::Promise QueueKeeping(Napi::Env env, Baton baton, const Values& keepAlive, bool onPool) {
    auto job = std::unique_ptr<PromiseWorker>(new PromiseWorker(env, std::move(baton), keepAlive));
    Napi::Promise promise = job->deferred_.Promise();
    if (onPool) {
      (new detail::PoolRunner(env, std::move(job)))->Queue();  // an AsyncWorker deletes itself when done
    } else {
      QueueJob(env, std::move(job));
    }
    return promise;
  }

  template <typename Values>
  PromiseWorker(Napi::Env env, Baton baton, const Values& keepAlive)
      : deferred_(Napi::Promise::Deferred::New(env)), baton_(std::move(baton)) {
    for (const Napi::Value& value : keepAlive) {
      if (value.IsObject()) keepAlive_.push_back(Napi::Persistent(value.As<Napi::Object>()));
    }
  }

  Napi::Promise::Deferred deferred_;
  Baton baton_;
  std::vector<Napi::ObjectReference> keepAlive_;
  bool failed_ = false;
  NativeError error_;
};

}  // namespace switchyard
