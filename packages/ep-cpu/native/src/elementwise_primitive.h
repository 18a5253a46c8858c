// JS class ElementwisePrimitive: one elementwise program (a single ONNX op, or a chain the CPU EP's
// elementwise fusion merged into com.switchyard::FusedElementwise) built for one set of input shapes;
// and elementwiseOps(), the instruction names this build knows.
#pragma once

#include <napi.h>

#include <memory>

#include "elementwise_kernel.h"

namespace switchyard {

class ElementwisePrimitive : public Napi::ObjectWrap<ElementwisePrimitive> {
 public:
  static constexpr char kClass[] = "ElementwisePrimitive";
  static Napi::Function Define(Napi::Env env);

  // [sync] new ElementwisePrimitive({inputs: [{dims, type?: 'float32' | 'bool'}], program: [{op, args?,
  //        alpha?, beta?, value?}], outputType?: 'float32' | 'bool', threads?, isa?}). Value i < inputs.length
  //        is input i; value inputs.length + k is instruction k's result; the last instruction's result
  //        is the output, of the inputs' broadcast shape. Throws a coded Error on bad options.
  explicit ElementwisePrimitive(const Napi::CallbackInfo& info);

  // Checks the receiver of every method (instance_tag.h).
  static ElementwisePrimitive* Unwrap(const Napi::Object& wrapper);

  // [async] run(inputs: (Float32Array | Uint8Array)[], output): Promise<void>.
  // [sync] runSync(inputs, output): void.
  // [sync] dispose(); getters outputDims, implementation ('elementwise:avx512' ...), threads.

 private:
  const eltwise::ElementwiseKernel& Kernel(Napi::Env env, const char* method) const;
  Napi::Value Run(const Napi::CallbackInfo& info);
  Napi::Value RunSync(const Napi::CallbackInfo& info);
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  Napi::Value OutputDims(const Napi::CallbackInfo& info);
  Napi::Value Implementation(const Napi::CallbackInfo& info);
  Napi::Value Threads(const Napi::CallbackInfo& info);

  std::shared_ptr<const eltwise::ElementwiseKernel> kernel_;
};

// [sync] elementwiseOps(): string[], every instruction name ElementwisePrimitive accepts.
Napi::Value ElementwiseOpsJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
