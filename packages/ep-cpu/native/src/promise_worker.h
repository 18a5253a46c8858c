// Runs a plain-data "baton" on the environment's oneDNN thread (native_queue.h) and settles a
// Promise on the JavaScript thread.
//
// A Baton is copyable plain data (raw pointers into JS buffers, shared_ptr to a V8-free kernel) with
//   void Run() const;             // executes off the main thread; must not touch V8
//   const char* Context() const;  // prefix for error messages
// The JS objects that own those buffers are held by persistent references from construction (main
// thread) until the job is settled (main thread), so the GC cannot free them mid-run.
#pragma once

#include <napi.h>

#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "errors.h"
#include "native_queue.h"

namespace switchyard {

template <typename Baton>
class PromiseWorker final : public QueuedJob {
 public:
  // [sync] Queues the work and returns its Promise (resolves to undefined, rejects with a coded Error).
  static Napi::Promise Queue(Napi::Env env, Baton baton, std::initializer_list<Napi::Value> keepAlive) {
    return QueueKeeping(env, std::move(baton), keepAlive);
  }

  // The same, for a keep-alive list whose length is known only at run time (a variadic op's inputs).
  static Napi::Promise Queue(Napi::Env env, Baton baton, const std::vector<Napi::Value>& keepAlive) {
    return QueueKeeping(env, std::move(baton), keepAlive);
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
    if (failed_) {
      deferred_.Reject(ToJsError(env, error_).Value());
    } else {
      deferred_.Resolve(env.Undefined());
    }
  }

 private:
  template <typename Values>
  static Napi::Promise QueueKeeping(Napi::Env env, Baton baton, const Values& keepAlive) {
    auto job = std::unique_ptr<PromiseWorker>(new PromiseWorker(env, std::move(baton), keepAlive));
    Napi::Promise promise = job->deferred_.Promise();
    QueueJob(env, std::move(job));
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
