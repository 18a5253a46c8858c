// ExecutionPlan: one GPU partition of a model, built once from a plain description (buffers laid
// out in one arena allocation, constants uploaded, steps resolved to step ops) and run in ONE
// native call: copy the inputs in, launch every step (or replay them as a captured HIP/CUDA graph),
// copy the outputs out, wait -- the waiting on a worker thread, or (start/poll) on the event loop, so
// the JS thread never blocks on the GPU.
//
// Description (the TS side builds it: packages/ep-rocm/src/plan/plan-description.ts):
//   { deviceId, arenaBytes, captureGraph, tuning?,            tuning: 0 | 1 | 2 (StepArgs::Tuning; default 2)
//     buffers:   [{ offset, bytes, dtype, dims }],          dtype: ONNX TensorProto number
//     constants: [{ buffer, data: TypedArray }],           uploaded once, at construction
//     inputs:    [bufferId], outputs: [bufferId],          in the partition's order
//     steps:     [{ op, attrs: number[], inputs: [bufferId | -1], outputs: [bufferId],
//                   workspace?: { offset, bytes } }] }
#pragma once

#include <napi.h>

#include <switchyard/instance_tag.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "plan/host_copy.h"
#include "plan/step_op.h"

namespace switchyard::plan {

struct PlanStep {
  const StepOp* op = nullptr;
  StepArgs args;
};

// One run's copies (filled by Run on the JS thread) and what its phases hand on to each other.
struct RunIo {
  std::vector<const void*> input_sources;
  std::vector<hipMemcpyKind> input_kinds;
  std::vector<void*> output_targets;
  std::vector<hipMemcpyKind> output_kinds;
  std::vector<HostMirror*> out_mirrors;  // BeginRun -> FinishRun
  std::chrono::steady_clock::time_point begin;
  double copy_in_ms = -1;
  double launch_ms = -1;
  bool launched_on_caller = false;
  bool polled = false;  // begun by start(): poll() finishes it on the JS thread
};

class ExecutionPlan : public Napi::ObjectWrap<ExecutionPlan> {
 public:
  static constexpr const char* kClass = "ExecutionPlan";
  // A receiver of another class throws instead of being cast (switchyard/instance_tag.h).
  static ExecutionPlan* Unwrap(const Napi::Object& wrapper) { return UnwrapTagged<ExecutionPlan>(wrapper); }
  static Napi::Function Define(Napi::Env env);

  // [sync] new ExecutionPlan(description): allocates the arena, uploads constants, checks every
  // step. Throws TypeError/RangeError for a malformed description, Error naming the step otherwise.
  explicit ExecutionPlan(const Napi::CallbackInfo& info);
  ~ExecutionPlan() override;

  // A run is two phases: BeginRun queues the input copies, the steps (or the graph) and the output
  // DMA; FinishRun waits and drains the host outputs. One run at a time (AcquireRun). Both phases
  // normally run on the worker (Execute). A graph replay with small host inputs begins on the JS
  // thread instead (Run): it costs the JS thread the input memcpy and one graph launch (tens of
  // microseconds), and the GPU starts without waiting for a worker thread to wake.
  // Worker side. Each returns "" or the failure.
  std::string Execute(RunIo& io);   // the whole run
  std::string Complete(RunIo& io);  // a run begun on the JS thread

 private:
  // [async] run(inputs, outputs) -> Promise<void>. inputs[i]: TypedArray (host) or DeviceBuffer,
  // copied into input slot i; outputs[i]: DeviceBuffer or TypedArray, filled from output slot i.
  Napi::Value Run(const Napi::CallbackInfo& info);
  // [sync] start(inputs, outputs) -> true | Promise<void>. A graph replay with small host inputs and
  // outputs begins on the JS thread and returns true: the caller then calls poll() from the event
  // loop (setImmediate) until it returns true, which drains the outputs there. That trades a spinning
  // waiter thread for a spinning event loop that stays responsive, and saves the two thread hops of a
  // worker's completion (~0.1 ms on the H200 host). Anything else runs as run() and returns its promise.
  Napi::Value Start(const Napi::CallbackInfo& info);
  // [sync] poll() -> boolean: whether the run start() began is done (outputs in place); throws its failure.
  Napi::Value Poll(const Napi::CallbackInfo& info);
  // [sync] dispose(): frees the arena, stream and graph now (waits for a run in flight).
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  Napi::Value GetArenaBytes(const Napi::CallbackInfo& info);
  Napi::Value GetStepCount(const Napi::CallbackInfo& info);
  Napi::Value GetGraphCaptured(const Napi::CallbackInfo& info);
  Napi::Value GetGraphNote(const Napi::CallbackInfo& info);
  Napi::Value GetRuns(const Napi::CallbackInfo& info);
  Napi::Value GetLastGpuMs(const Napi::CallbackInfo& info);
  Napi::Value GetLastHostLaunchMs(const Napi::CallbackInfo& info);
  Napi::Value GetLastCopyMs(const Napi::CallbackInfo& info);
  Napi::Value GetLastRunPhasesMs(const Napi::CallbackInfo& info);
  Napi::Value GetLastStepMs(const Napi::CallbackInfo& info);
  Napi::Value GetStepNotes(const Napi::CallbackInfo& info);

  void Parse(Napi::Env env, const Napi::Object& description);
  // Checks run()/start()'s arguments against the slots into io; `values` keeps what the run reads.
  void ReadRunArgs(const Napi::CallbackInfo& info, const char* method, RunIo& io, std::vector<Napi::Value>& values);
  Napi::Value QueueRun(Napi::Env env, Napi::Object self, RunIo io, const std::vector<Napi::Value>& values);
  void AcquireRun();     // waits until no run is in flight, then owns the plan's run
  bool TryAcquireRun();  // the same, or false at once when one is in flight
  void ReleaseRun();
  bool LaunchOnCaller(const RunIo& io) const;
  std::string BeginRun(RunIo& io);
  std::string FinishRun(RunIo& io);
  void TouchHostOutputs(const RunIo& io) const;  // faults in the host outputs' pages, during the GPU's work
  std::string FinishPolledRun();  // poll()'s end of a run, and dispose()'s when one is in flight
  bool PollEligible(const RunIo& io) const;
  void AbortRun();       // after a failed phase: lets queued work finish before the slots are reused
  std::string LaunchSteps(bool capturing);
  void Release();

  // Host inputs up to this many bytes may be copied in on the JS thread (~0.1 ms of memcpy).
  static constexpr size_t kCallerCopyBytes = size_t{1} << 20;
  // Host outputs up to this many bytes may be drained on the JS thread by poll().
  static constexpr size_t kCallerDrainBytes = size_t{1} << 20;
  // The run start() began, until poll() or dispose() finishes it (JS thread only), with the JS values it reads.
  struct PolledRun {
    RunIo io;
    std::vector<Napi::Reference<Napi::Value>> keep;
  };
  std::unique_ptr<PolledRun> polled_;
  std::mutex mutex_;             // guards in_flight_ and the last_* results
  std::condition_variable run_done_;
  bool in_flight_ = false;       // a run owns the stream, slots and mirrors
  int device_id_ = 0;
  void* arena_ = nullptr;
  size_t arena_bytes_ = 0;
  hipStream_t stream_ = nullptr;
  std::vector<TensorRef> buffers_;
  std::vector<PlanStep> steps_;
  std::vector<int> inputs_;
  std::vector<int> outputs_;
  bool capture_graph_ = false;
  hipGraphExec_t graph_exec_ = nullptr;
  std::string graph_note_;  // why capture was not used, when asked for
  double runs_ = 0;
  // Events around the steps (not the copies) of each run: lastGpuMs is the device time of the
  // model itself, comparable with a framework timed by CUDA/HIP events on device-resident data.
  hipEvent_t steps_begin_ = nullptr;
  hipEvent_t steps_end_ = nullptr;
  // Events before the input copies and after the output copies are queued: with the two above,
  // the device time of the copies (lastRunPhasesMs).
  hipEvent_t run_begin_ = nullptr;
  hipEvent_t run_end_ = nullptr;
  // Host wall time of the last run's phases, for locating overhead outside the steps' device time.
  struct RunPhases {
    double execute = -1;     // the whole Execute call on the worker thread
    double wait_steps = -1;  // blocked until the steps' end event
    double drain = -1;       // after that, until the outputs are in the JS arrays
    bool on_caller = false;  // whether the run began on the JS thread
    bool polled = false;     // whether it ended there too (start/poll)
  } last_phases_;
  double last_gpu_ms_ = -1;
  double last_host_launch_ms_ = -1;  // host wall time of the last run's step launches (or graph launch)
  double last_copy_in_ms_ = -1;      // host wall time of the last run's input copies (until on the device)
  double last_copy_out_ms_ = -1;     // ... of its host output copies (after the steps finished)
  // Pinned mirrors of the slots that host arrays feed or receive (host_copy.h).
  HostMirrors input_mirrors_;
  HostMirrors output_mirrors_;
  std::vector<hipEvent_t> step_events_;  // SWITCHYARD_PLAN_PROFILE=1: one per step boundary
  std::vector<double> last_step_ms_;     // each step's device time in the last eager run
  std::vector<std::string> step_notes_;  // what each step's check chose (StepArgs::note); kept after dispose
  bool disposed_ = false;
};

}  // namespace switchyard::plan
