// Runs a plain-data "baton" on the libuv thread pool and settles a Promise on the main thread.
//
// A Baton is copyable plain data (raw pointers into JS buffers, shared_ptr to a V8-free kernel) with
//   void Run() const;             // executes off the main thread; must not touch V8
//   const char* Context() const;  // prefix for error messages
// The JS objects that own those buffers are held by persistent references from construction (main
// thread) until the worker is destroyed (main thread), so the GC cannot free them mid-run.
#pragma once

#include <napi.h>

#include <initializer_list>
#include <utility>
#include <vector>

#include "errors.h"

namespace switchyard {

template <typename Baton>
class PromiseWorker final : public Napi::AsyncWorker {
 public:
  // [sync] Queues the work and returns its Promise (resolves to undefined, rejects with a coded Error).
  static Napi::Promise Queue(Napi::Env env, Baton baton, std::initializer_list<Napi::Value> keepAlive) {
    auto* worker = new PromiseWorker(env, std::move(baton), keepAlive);
    Napi::Promise promise = worker->deferred_.Promise();
    worker->Napi::AsyncWorker::Queue();  // libuv deletes nothing; AsyncWorker deletes itself after OnOK/OnError
    return promise;
  }

 private:
  PromiseWorker(Napi::Env env, Baton baton, std::initializer_list<Napi::Value> keepAlive)
      : Napi::AsyncWorker(env, "switchyard:onednn"), deferred_(Napi::Promise::Deferred::New(env)), baton_(std::move(baton)) {
    for (const auto& value : keepAlive) {
      if (value.IsObject()) keepAlive_.push_back(Napi::Persistent(value.As<Napi::Object>()));
    }
  }

  void Execute() override {
    try {
      baton_.Run();
    } catch (...) {
      failed_ = true;
      error_ = DescribeCurrentException(baton_.Context());
    }
  }

  void OnOK() override {
    Napi::HandleScope scope(Env());
    if (failed_) {
      deferred_.Reject(ToJsError(Env(), error_).Value());
    } else {
      deferred_.Resolve(Env().Undefined());
    }
  }

  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

  Napi::Promise::Deferred deferred_;
  Baton baton_;
  std::vector<Napi::ObjectReference> keepAlive_;
  bool failed_ = false;
  NativeError error_;
};

}  // namespace switchyard
