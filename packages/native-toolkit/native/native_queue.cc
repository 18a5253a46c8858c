#include <switchyard/native_queue.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace switchyard {

namespace {

class NativeQueue {
 public:
  explicit NativeQueue(napi_env env) : env_(env) {
    napi_value name;
    napi_create_string_utf8(env, "switchyard:native-queue", NAPI_AUTO_LENGTH, &name);
    // No JS function: CallJs settles the job itself. Max queue size 0 = unbounded (the worker
    // never blocks handing back a finished job).
    const napi_status status =
        napi_create_threadsafe_function(env, nullptr, nullptr, name, 0, 1, nullptr, nullptr, this, CallJs, &tsfn_);
    if (status != napi_ok) throw Napi::Error::New(Napi::Env(env), "could not create the native work queue");
    napi_unref_threadsafe_function(env, tsfn_);  // idle: do not keep the process alive
  }

  // At environment teardown: finish the running job, drop the rest (nobody awaits them any more).
  ~NativeQueue() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
    napi_release_threadsafe_function(tsfn_, napi_tsfn_abort);
  }

  void Push(std::unique_ptr<QueuedJob> job) {
    if (inFlight_++ == 0) napi_ref_threadsafe_function(env_, tsfn_);
    bool start = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push_back(std::move(job));
      start = !running_;
      running_ = true;
    }
    if (start) {
      // The previous thread (if any) has left its loop already: joining it is immediate.
      if (thread_.joinable()) thread_.join();
      thread_ = std::thread([this] { Loop(); });
    } else {
      wake_.notify_one();
    }
  }

 private:
  // Why the thread exits when idle: its OpenMP team lives as long as the thread. While a second
  // team exists (the JS thread runs small work inline with its own), libgomp manages more threads
  // than there are cores and switches every team to short, throttled spinning, so each parallel
  // region's barrier sleeps and wakes through the kernel: MobileNetV2 at 2 threads ran 19 ms instead
  // of 9 after one ResNet-50 batch-8 run had used this thread. Ending the thread ends its team.
  // Work that comes here is >= ~3 ms (native-support.ts), so starting a thread again costs little.
  static constexpr std::chrono::milliseconds kIdleExit{50};

  void Loop() {
    for (;;) {
      std::unique_ptr<QueuedJob> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        const bool woken = wake_.wait_for(lock, kIdleExit, [this] { return stop_ || !jobs_.empty(); });
        if (stop_) return;
        if (!woken) {
          running_ = false;  // the next Push starts a new thread
          return;
        }
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job->Run();
      QueuedJob* done = job.release();
      if (napi_call_threadsafe_function(tsfn_, done, napi_tsfn_blocking) != napi_ok) delete done;  // closing
    }
  }

  // [JavaScript thread] A finished job comes back: settle it. `env` is null when the function is
  // being torn down; then the job is only freed.
  static void CallJs(napi_env env, napi_value /*callback*/, void* context, void* data) {
    std::unique_ptr<QueuedJob> job(static_cast<QueuedJob*>(data));
    auto* self = static_cast<NativeQueue*>(context);
    if (env == nullptr) return;
    {
      Napi::Env jsEnv(env);
      Napi::HandleScope scope(jsEnv);
      job->Settle(jsEnv);
    }
    if (--self->inFlight_ == 0) napi_unref_threadsafe_function(env, self->tsfn_);
  }

  napi_env env_;
  napi_threadsafe_function tsfn_ = nullptr;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::unique_ptr<QueuedJob>> jobs_;
  bool stop_ = false;
  bool running_ = false;  // a thread is in Loop (guarded by mutex_)
  size_t inFlight_ = 0;  // queued + running + finished-not-settled; JavaScript thread only
};

// Each environment (the main thread, each worker_thread) runs JavaScript on its own OS thread, so
// a thread_local pointer finds that environment's queue.
thread_local NativeQueue* currentQueue = nullptr;

void DestroyQueue(void* arg) {
  delete static_cast<NativeQueue*>(arg);
  currentQueue = nullptr;
}

}  // namespace

void QueueJob(Napi::Env env, std::unique_ptr<QueuedJob> job) {
  if (currentQueue == nullptr) {
    currentQueue = new NativeQueue(env);
    napi_add_env_cleanup_hook(env, DestroyQueue, currentQueue);
  }
  currentQueue->Push(std::move(job));
}

}  // namespace switchyard
