// ExecutionPlan's run path (execution_plan.h): run() on the JS thread, the worker that waits, and
// the two phases of a run -- BeginRun (copies in, the steps or the graph, the output DMA) and FinishRun
// (the wait and the drain into JS arrays). The description's parsing and the accessors live in
// execution_plan.cc.
#include <chrono>
#include <cstdlib>
#include <cstring>

#include <switchyard/promise_worker.h>

#include "device_buffer.h"
#include "gpu_errors.h"
#include "plan/execution_plan.h"
#include "plan/host_bytes.h"
#include "runtime/runtime.h"

namespace switchyard::plan {
namespace {

std::string Status(const char* call, hipError_t status) { return DescribeGpuStatus(call, status); }

// The plan's run as a promise baton (the PromiseWorker keeps the JS values it reads referenced until
// it settles). `failed` holds the error of a run that failed to begin on the JS thread: Run only reports it.
struct RunBaton {
  ExecutionPlan* plan;
  RunIo io;
  std::string failed;

  const char* Context() const { return ""; }  // the plan's messages name the step
  void Run() {
    const std::string error = !failed.empty() ? failed : io.launched_on_caller ? plan->Complete(io) : plan->Execute(io);
    if (!error.empty()) throw CodedError("RUNTIME", error);
  }
};

}  // namespace

std::string ExecutionPlan::LaunchSteps(bool capturing) {
  // Profiling (SWITCHYARD_PLAN_PROFILE=1 when the plan was built): an event after every step of an
  // eager run; the gaps between them are each step's device time (launch gaps included).
  const bool profile = !capturing && !step_events_.empty();
  if (profile && hipEventRecord(step_events_[0], stream_) != hipSuccess) return "profile event failed";
  for (size_t i = 0; i < steps_.size(); ++i) {
    const hipError_t status = steps_[i].op->launch(steps_[i].args);
    if (status != hipSuccess) return Status(("step " + std::to_string(i) + " (" + steps_[i].op->name + ")").c_str(), status);
    if (profile && hipEventRecord(step_events_[i + 1], stream_) != hipSuccess) return "profile event failed";
  }
  return "";
}

void ExecutionPlan::AcquireRun() {
  std::unique_lock<std::mutex> lock(mutex_);
  run_done_.wait(lock, [this] { return !in_flight_; });
  in_flight_ = true;
}

bool ExecutionPlan::TryAcquireRun() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (in_flight_) return false;
  in_flight_ = true;
  return true;
}

void ExecutionPlan::ReleaseRun() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_ = false;
  }
  run_done_.notify_all();
}

bool ExecutionPlan::LaunchOnCaller(const RunIo& io) const {
  // Only a graph replay: an eager launch is the libraries' host work (up to ~1.5 ms for BERT), which
  // belongs on the worker. And only small host inputs, whose memcpy into the mirrors is short.
  if (graph_exec_ == nullptr || disposed_) return false;
  const char* mode = std::getenv("SWITCHYARD_PLAN_LAUNCH");
  if (mode != nullptr && std::strcmp(mode, "worker") == 0) return false;
  size_t host_bytes = 0;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (io.input_kinds[i] == hipMemcpyHostToDevice) host_bytes += buffers_[inputs_[i]].bytes;
  }
  return host_bytes <= kCallerCopyBytes;
}

std::string ExecutionPlan::Execute(RunIo& io) {
  AcquireRun();
  const std::string error = BeginRun(io);
  if (error.empty()) return Complete(io);
  AbortRun();
  ReleaseRun();
  return error;
}

std::string ExecutionPlan::Complete(RunIo& io) {
  const std::string error = FinishRun(io);
  if (!error.empty()) AbortRun();
  ReleaseRun();
  return error;
}

void ExecutionPlan::AbortRun() {
  // Whatever was queued before the failure finishes before the slots are reused.
  if (stream_ != nullptr) (void)hipStreamSynchronize(stream_);
  (void)hipGetLastError();
}

std::string ExecutionPlan::BeginRun(RunIo& io) {
  if (disposed_) return "the plan was disposed";
  hipError_t status = hipSetDevice(device_id_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipSetDevice), status);
  // Host inputs go through the plan's pinned mirror of their slot: a memcpy (split over threads when
  // large) and a DMA queued on the plan's stream, ahead of the steps -- no wait here; the run's one
  // synchronization comes at its end. (A plain async copy from pageable JS memory would be staged by
  // the driver, synchronously and in small pieces.) Past the mirrors' budget, the runtime's shared
  // staging path, which returns once the bytes are on the device. Device inputs are copied on the
  // plan's stream. The previous run finished (FinishRun ends with a sync), so overwriting the input
  // slots and mirrors is safe.
  io.begin = std::chrono::steady_clock::now();
  status = hipEventRecord(run_begin_, stream_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipEventRecord), status);
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const TensorRef& slot = buffers_[inputs_[i]];
    if (slot.bytes == 0) continue;
    if (io.input_kinds[i] == hipMemcpyHostToDevice) {
      HostMirror* mirror = input_mirrors_.Get(i, slot.bytes);
      status = mirror != nullptr ? QueueHostToDevice(device_id_, stream_, slot.data, mirror->host, io.input_sources[i], slot.bytes)
                                 : runtime::CopyHostToDevice(device_id_, slot.data, io.input_sources[i], slot.bytes);
    } else {
      status = hipMemcpyAsync(slot.data, io.input_sources[i], slot.bytes, io.input_kinds[i], stream_);
    }
    if (status != hipSuccess) return Status("input copy", status);
  }
  io.copy_in_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - io.begin).count();
  // The first run is eager (libraries may allocate workspaces on first use, which a capture forbids);
  // the second captures; later runs replay.
  if (capture_graph_ && graph_exec_ == nullptr && runs_ >= 1) {
    hipGraph_t graph = nullptr;
    status = hipStreamBeginCapture(stream_, hipStreamCaptureModeThreadLocal);
    if (status == hipSuccess) {
      const std::string launched = LaunchSteps(true);
      const hipError_t ended = hipStreamEndCapture(stream_, &graph);
      if (!launched.empty() || ended != hipSuccess) {
        graph_note_ = !launched.empty() ? "capture failed: " + launched : Status(SWITCHYARD_GPU_NAME(hipStreamEndCapture), ended);
        capture_graph_ = false;
        (void)hipGetLastError();
      } else {
        status = hipGraphInstantiateWithFlags(&graph_exec_, graph, 0);
        if (status != hipSuccess) {
          graph_note_ = Status(SWITCHYARD_GPU_NAME(hipGraphInstantiateWithFlags), status);
          graph_exec_ = nullptr;
          capture_graph_ = false;
        }
      }
      if (graph != nullptr) (void)hipGraphDestroy(graph);
    } else {
      graph_note_ = Status(SWITCHYARD_GPU_NAME(hipStreamBeginCapture), status);
      capture_graph_ = false;
    }
  }
  status = hipEventRecord(steps_begin_, stream_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipEventRecord), status);
  // Host time spent queuing the steps (library descriptor work, launches): the profile of what a
  // graph replay saves.
  const auto launch_begin = std::chrono::steady_clock::now();
  if (graph_exec_ != nullptr) {
    status = hipGraphLaunch(graph_exec_, stream_);
    if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipGraphLaunch), status);
  } else {
    const std::string launched = LaunchSteps(false);
    if (!launched.empty()) return launched;
  }
  io.launch_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - launch_begin).count();
  status = hipEventRecord(steps_end_, stream_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipEventRecord), status);
  // Outputs: device targets copied on the stream; host targets DMA'd into their pinned mirror on the
  // stream too, slice by slice, and drained into the JS array as each slice lands (past the mirrors'
  // budget: the runtime's staging path, after the sync).
  io.out_mirrors.assign(outputs_.size(), nullptr);
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const TensorRef& slot = buffers_[outputs_[i]];
    if (slot.bytes == 0) continue;
    if (io.output_kinds[i] == hipMemcpyDeviceToHost) {
      io.out_mirrors[i] = output_mirrors_.Get(i, slot.bytes);
      if (io.out_mirrors[i] == nullptr) continue;
      status = QueueDeviceToHost(stream_, io.out_mirrors[i], slot.data, slot.bytes);
    } else {
      status = hipMemcpyAsync(io.output_targets[i], slot.data, slot.bytes, io.output_kinds[i], stream_);
    }
    if (status != hipSuccess) return Status("output copy", status);
  }
  status = hipEventRecord(run_end_, stream_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipEventRecord), status);
  return "";
}

void ExecutionPlan::TouchHostOutputs(const RunIo& io) const {
  // While the GPU still works, the JS arrays' pages are touched so that the drain does not fault them in.
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (io.output_kinds[i] == hipMemcpyDeviceToHost) TouchPages(io.output_targets[i], buffers_[outputs_[i]].bytes);
  }
}

std::string ExecutionPlan::FinishRun(RunIo& io) {
  hipError_t status = hipSetDevice(device_id_);  // the current device is per thread (BeginRun may have run on another)
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipSetDevice), status);
  if (!io.polled) TouchHostOutputs(io);  // start() touched them already
  // lastCopyMs.out: from the end of the steps until the host outputs are in place (DMA and drain).
  const auto wait_begin = std::chrono::steady_clock::now();
  status = hipEventSynchronize(steps_end_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipEventSynchronize), status);
  const auto copy_out_begin = std::chrono::steady_clock::now();
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (io.out_mirrors[i] == nullptr) continue;
    status = DrainDeviceToHost(device_id_, io.output_targets[i], io.out_mirrors[i], buffers_[outputs_[i]].bytes);
    if (status != hipSuccess) return Status("output copy", status);
  }
  status = hipStreamSynchronize(stream_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipStreamSynchronize), status);
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const TensorRef& slot = buffers_[outputs_[i]];
    if (slot.bytes == 0 || io.output_kinds[i] != hipMemcpyDeviceToHost || io.out_mirrors[i] != nullptr) continue;
    status = runtime::CopyDeviceToHost(device_id_, io.output_targets[i], slot.data, slot.bytes);
    if (status != hipSuccess) return Status("output copy", status);
  }
  const auto run_done = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);  // the accessors read what follows
  last_copy_in_ms_ = io.copy_in_ms;
  last_host_launch_ms_ = io.launch_ms;
  last_copy_out_ms_ = std::chrono::duration<double, std::milli>(run_done - copy_out_begin).count();
  last_phases_.execute = std::chrono::duration<double, std::milli>(run_done - io.begin).count();
  last_phases_.wait_steps = std::chrono::duration<double, std::milli>(copy_out_begin - wait_begin).count();
  last_phases_.drain = last_copy_out_ms_;
  last_phases_.on_caller = io.launched_on_caller;
  last_phases_.polled = io.polled;
  if (!step_events_.empty() && graph_exec_ == nullptr) {
    last_step_ms_.assign(steps_.size(), -1.0);
    for (size_t i = 0; i < steps_.size(); ++i) {
      float ms = -1;
      if (hipEventElapsedTime(&ms, step_events_[i], step_events_[i + 1]) == hipSuccess) last_step_ms_[i] = ms;
    }
  }
  float gpu_ms = -1;
  last_gpu_ms_ = hipEventElapsedTime(&gpu_ms, steps_begin_, steps_end_) == hipSuccess ? gpu_ms : -1;
  runs_ += 1;
  return "";
}

void ExecutionPlan::ReadRunArgs(const Napi::CallbackInfo& info, const char* method, RunIo& io, std::vector<Napi::Value>& values) {
  Napi::Env env = info.Env();
  const std::string call = std::string("ExecutionPlan.") + method;
  if (disposed_) ThrowJs(env, "RELEASED", call + ": the plan was disposed");
  if (info.Length() < 2 || !info[0].IsArray() || !info[1].IsArray()) {
    ThrowJs(env, "INVALID_ARGUMENT", call + "(inputs, outputs): both must be arrays", true);
  }
  Napi::Array inputs = info[0].As<Napi::Array>();
  Napi::Array outputs = info[1].As<Napi::Array>();
  if (inputs.Length() != inputs_.size() || outputs.Length() != outputs_.size()) {
    ThrowJsRange(env, "INVALID_ARGUMENT", call + ": the plan takes " + std::to_string(inputs_.size()) + " inputs and " +
                                         std::to_string(outputs_.size()) + " outputs, got " + std::to_string(inputs.Length()) + " and " +
                                         std::to_string(outputs.Length()));
  }
  // One check for both directions: a host array must match the slot exactly, a device buffer hold it.
  // Returns the memory and whether it is on the host.
  auto read = [&](Napi::Value v, const TensorRef& slot, const std::string& what, const char* verb) -> std::pair<void*, bool> {
    values.push_back(v);
    HostBytes host;
    if (HostBytesOf(v, &host)) {
      if (host.bytes != slot.bytes) ThrowJsRange(env, "INVALID_ARGUMENT", what + " has " + std::to_string(host.bytes) + " bytes, the plan " + verb + " " + std::to_string(slot.bytes));
      return {host.data, true};
    }
    DeviceBuffer* b = DeviceBuffer::FromValue(env, v, what.c_str());
    if (b->byte_length() < slot.bytes) ThrowJsRange(env, "INVALID_ARGUMENT", what + " holds " + std::to_string(b->byte_length()) + " bytes, the plan " + verb + " " + std::to_string(slot.bytes));
    if (b->device_id() != device_id_) ThrowJs(env, "INVALID_ARGUMENT", what + " is on device " + std::to_string(b->device_id()) + ", the plan on " + std::to_string(device_id_));
    return {b->data(), false};
  };
  for (uint32_t i = 0; i < inputs.Length(); ++i) {
    const auto [data, on_host] = read(inputs.Get(i), buffers_[inputs_[i]], call + ": inputs[" + std::to_string(i) + "]", "expects");
    io.input_sources.push_back(data);
    io.input_kinds.push_back(on_host ? hipMemcpyHostToDevice : hipMemcpyDeviceToDevice);
  }
  for (uint32_t i = 0; i < outputs.Length(); ++i) {
    const auto [data, on_host] = read(outputs.Get(i), buffers_[outputs_[i]], call + ": outputs[" + std::to_string(i) + "]", "makes");
    io.output_targets.push_back(data);
    io.output_kinds.push_back(on_host ? hipMemcpyDeviceToHost : hipMemcpyDeviceToDevice);
  }
}

Napi::Value ExecutionPlan::Run(const Napi::CallbackInfo& info) {
  RunIo io;
  std::vector<Napi::Value> values;
  ReadRunArgs(info, "run", io, values);
  return QueueRun(info.Env(), info.This().As<Napi::Object>(), std::move(io), values);
}

Napi::Value ExecutionPlan::QueueRun(Napi::Env env, Napi::Object self, RunIo io, const std::vector<Napi::Value>& values) {
  RunBaton baton{this, std::move(io), ""};
  // A graph replay begins here, on the JS thread (see execution_plan.h); anything else, or a run
  // while another is in flight, goes to the worker whole.
  if (TryAcquireRun()) {
    if (LaunchOnCaller(baton.io)) {
      baton.io.launched_on_caller = true;
      const std::string error = BeginRun(baton.io);
      if (!error.empty()) {
        AbortRun();
        ReleaseRun();
        baton.failed = error;
      }
    } else {
      ReleaseRun();
    }
  }
  std::vector<Napi::Value> keep(values);
  keep.push_back(self);
  return PromiseWorker<RunBaton>::QueueOnPool(env, std::move(baton), keep);
}

bool ExecutionPlan::PollEligible(const RunIo& io) const {
  const char* mode = std::getenv("SWITCHYARD_PLAN_WAIT");
  if (mode != nullptr && std::strcmp(mode, "worker") == 0) return false;
  size_t host_bytes = 0;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (io.output_kinds[i] == hipMemcpyDeviceToHost) host_bytes += buffers_[outputs_[i]].bytes;
  }
  return host_bytes <= kCallerDrainBytes && LaunchOnCaller(io);
}

Napi::Value ExecutionPlan::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto run = std::make_unique<PolledRun>();
  std::vector<Napi::Value> values;
  ReadRunArgs(info, "start", run->io, values);
  // Polled only when nothing is in flight: a second run while one is polled waits on the worker.
  if (polled_ == nullptr && PollEligible(run->io) && TryAcquireRun()) {
    run->io.launched_on_caller = true;
    run->io.polled = true;
    const std::string error = BeginRun(run->io);
    if (!error.empty()) {
      AbortRun();
      ReleaseRun();
      ThrowJs(env, "RUNTIME", "ExecutionPlan.start: " + error);
    }
    TouchHostOutputs(run->io);
    for (const Napi::Value& v : values) run->keep.push_back(Napi::Persistent(v));
    polled_ = std::move(run);
    return Napi::Boolean::New(env, true);
  }
  return QueueRun(env, info.This().As<Napi::Object>(), std::move(run->io), values);
}

std::string ExecutionPlan::FinishPolledRun() {
  std::unique_ptr<PolledRun> run = std::move(polled_);
  const std::string error = FinishRun(run->io);
  if (!error.empty()) AbortRun();
  ReleaseRun();
  return error;
}

Napi::Value ExecutionPlan::Poll(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (polled_ == nullptr) {
    // After dispose(): it finished the run in flight, if there was one, before freeing the plan.
    ThrowJs(env, disposed_ ? "RELEASED" : "INVALID_ARGUMENT",
            disposed_ ? "ExecutionPlan.poll: the plan was disposed" : "ExecutionPlan.poll: no run begun by start() is in flight");
  }
  // hipErrorNotReady: still running. Any other failure surfaces from FinishRun's synchronization.
  if (hipEventQuery(steps_end_) == hipErrorNotReady) return Napi::Boolean::New(env, false);
  const std::string error = FinishPolledRun();
  if (!error.empty()) ThrowJs(env, "RUNTIME", "ExecutionPlan.run: " + error);
  return Napi::Boolean::New(env, true);
}

}  // namespace switchyard::plan
