// KernelWrap<Derived, KernelT>: what every JS class over a V8-free kernel shares (ConvPrimitive,
// ConvDwPrimitive, ConvTransposePrimitive, MatMulPrimitive, StridedMatMulPrimitive, GemmPrimitive,
// PoolPrimitive, ReorderPrimitive, ResizePrimitive): the kernel held by shared_ptr, run() / runSync() / dispose(), the RELEASED
// check after dispose(), and the outputDims / implementation / threads getters.
//
// Derived supplies `static constexpr char kClass[]` (its JS name, for messages), a constructor that
// sets `kernel_`, and a Define that calls DefineKernelClass<getters, Read>() with its run-argument reader:
//   std::array<View, N> Read(const Napi::CallbackInfo&, const KernelT&, const char* method);
// which checks the run arguments (coded TypeErrors whose text is built only on failure) and returns
// the buffers in the order KernelT::Execute takes them (views with data == nullptr where absent).
// View is Float32View (Execute takes float*) or TypedView (the int8 kernels: Execute takes void*).
#pragma once

#include <napi.h>

#include <array>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine.h"
#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include <switchyard/promise_worker.h>
#include <switchyard/instance_tag.h>

namespace switchyard {

// One run as plain data (promise_worker.h's Baton): the kernel, shared so dispose() or GC cannot
// free it while a worker uses it, and the buffers for KernelT::Execute, in its argument order.
template <typename KernelT, typename Pointer, size_t N>
struct KernelBaton {
  std::shared_ptr<const KernelT> kernel;
  std::array<Pointer, N> buffers;
  const char* context;  // "Class.run", for error messages: a string that is never freed

  void Run() const { Execute(std::make_index_sequence<N>()); }
  const char* Context() const { return context; }

 private:
  template <size_t... I>
  void Execute(std::index_sequence<I...>) const {
    kernel->Execute(buffers[I]...);
  }
};

// Which of the shared getters a class exposes (each keeps the JS surface it always had).
enum class KernelGetters { kNone, kWithoutThreads, kAll };

template <typename Derived, typename KernelT>
class KernelWrap : public Napi::ObjectWrap<Derived> {
 protected:
  using Wrap = Napi::ObjectWrap<Derived>;
  using Descriptor = typename Wrap::PropertyDescriptor;

  explicit KernelWrap(const Napi::CallbackInfo& info) : Wrap(info) { TagInstance(info.Env(), info.This(), ClassTag(Derived::kClass)); }

 public:
  // Hides ObjectWrap::Unwrap, which node-addon-api calls before every method and getter: a receiver that
  // is not one of this class's objects throws instead of being cast (instance_tag.h).
  static Derived* Unwrap(const Napi::Object& wrapper) { return UnwrapTagged<Derived>(wrapper); }

 protected:

  // The class: run, runSync, dispose, the getters asked for, then Derived's own members. The getters
  // are a template argument so that a kernel without outputDims() (ReorderKernel) still compiles.
  // The shared members go in as runtime member pointers, not template arguments: a pointer to a
  // KernelWrap member has to become one to a Derived member, and GCC takes only the plain `&X::Y`
  // form as a template argument. That costs one pointer load per call.
  template <KernelGetters getters, auto Read>
  static Napi::Function DefineKernelClass(Napi::Env env, std::initializer_list<Descriptor> own = {}) {
    std::vector<Descriptor> members = {
        Wrap::InstanceMethod("run", &KernelWrap::template Run<Read>),
        Wrap::InstanceMethod("runSync", &KernelWrap::template RunSync<Read>),
        Wrap::InstanceMethod("dispose", &KernelWrap::Dispose),
    };
    if constexpr (getters != KernelGetters::kNone) {
      members.push_back(Wrap::InstanceAccessor("outputDims", &KernelWrap::OutputDims, nullptr));
      members.push_back(Wrap::InstanceAccessor("implementation", &KernelWrap::Implementation, nullptr));
    }
    if constexpr (getters == KernelGetters::kAll) {
      members.push_back(Wrap::InstanceAccessor("threads", &KernelWrap::Threads, nullptr));
    }
    members.insert(members.end(), own.begin(), own.end());
    return Wrap::DefineClass(env, Derived::kClass, members);
  }

  // The kernel, or a RELEASED error naming `Class.method` once dispose() has run.
  const KernelT& Kernel(Napi::Env env, const char* method) const {
    if (!kernel_) ThrowJs(env, "RELEASED", std::string(Derived::kClass) + "." + method + ": the primitive was disposed");
    return *kernel_;
  }

  // Shared with in-flight batons so dispose() or GC never frees a kernel a worker is using.
  std::shared_ptr<const KernelT> kernel_;

 private:
  // [async] run(...): Promise<void>. The buffers and `this` stay referenced until it settles.
  template <auto Read>
  Napi::Value Run(const Napi::CallbackInfo& info) {
    // Built once per class, not per run, and never destroyed: batons on worker threads point into it.
    static const std::string& method = *new std::string(std::string(Derived::kClass) + ".run");
    Napi::Env env = info.Env();
    const auto views = Read(info, Kernel(env, "run"), method.c_str());
    return Queue(env, info.This(), Baton(views, method.c_str()), views, std::make_index_sequence<views.size()>());
  }

  // [sync] runSync(...): the same run on the calling thread, for work too small to pay for the hop.
  template <auto Read>
  Napi::Value RunSync(const Napi::CallbackInfo& info) {
    static const std::string& method = *new std::string(std::string(Derived::kClass) + ".runSync");
    Napi::Env env = info.Env();
    const auto views = Read(info, Kernel(env, "runSync"), method.c_str());
    const auto baton = Baton(views, method.c_str());
    GuardSync(env, method, [&] { baton.Run(); });
    return env.Undefined();
  }

  // The baton holds the pointers only: `views` keep the JS holders for the keep-alive list.
  template <typename View, size_t N>
  KernelBaton<KernelT, decltype(View::data), N> Baton(const std::array<View, N>& views, const char* context) const {
    KernelBaton<KernelT, decltype(View::data), N> baton{kernel_, {}, context};
    for (size_t i = 0; i < N; ++i) baton.buffers[i] = views[i].data;
    return baton;
  }

  // PromiseWorker::Queue takes its keep-alive list as an initializer_list: one braced list, expanded.
  template <typename Baton, typename View, size_t N, size_t... I>
  static Napi::Promise Queue(Napi::Env env, Napi::Value self, Baton baton, const std::array<View, N>& views, std::index_sequence<I...>) {
    return PromiseWorker<Baton>::Queue(env, std::move(baton), {self, views[I].holder...});
  }

  // [sync] dispose(): drops this object's share of the kernel; in-flight runs hold their own.
  Napi::Value Dispose(const Napi::CallbackInfo& info) {
    kernel_.reset();
    return info.Env().Undefined();
  }

  Napi::Value OutputDims(const Napi::CallbackInfo& info) {
    return DimsToJs(info.Env(), Kernel(info.Env(), "outputDims").outputDims());
  }

  Napi::Value Implementation(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), Kernel(info.Env(), "implementation").implementation());
  }

  // The team size runs use: the `threads` option, or OpenMP's default when it was 0.
  Napi::Value Threads(const Napi::CallbackInfo& info) {
    const int threads = Kernel(info.Env(), "threads").params().threads;
    return Napi::Number::New(info.Env(), threads > 0 ? threads : DefaultThreads());
  }
};

}  // namespace switchyard
