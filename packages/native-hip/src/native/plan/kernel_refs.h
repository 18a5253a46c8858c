// Weak references to the kernel library's launchers (kernels/launch.h). The kernel sources land
// family by family; a launcher not linked into this build resolves to nullptr here, its step ops
// register as unavailable, and the EP declines those ops with the reason instead of the addon
// failing to load with an undefined symbol.
#pragma once

#include "kernels/launch.h"
#include "plan/step_op.h"

namespace switchyard::kernels {
hipError_t LaunchBinary(BinaryOp, DType, const void*, const TensorShape&, const void*, const TensorShape&, void*,
                        const TensorShape&, hipStream_t) __attribute__((weak));
hipError_t LaunchWhere(DType, const uint8_t*, const TensorShape&, const void*, const TensorShape&, const void*,
                       const TensorShape&, void*, const TensorShape&, hipStream_t) __attribute__((weak));
hipError_t LaunchUnary(UnaryOp, DType, const void*, void*, int64_t, UnaryParams, hipStream_t) __attribute__((weak));
hipError_t LaunchCast(DType, DType, const void*, void*, int64_t, hipStream_t) __attribute__((weak));
hipError_t LaunchNot(const uint8_t*, uint8_t*, int64_t, hipStream_t) __attribute__((weak));
hipError_t LaunchResize(DType, const void*, void*, const ResizeShape&, hipStream_t) __attribute__((weak));
hipError_t LaunchReduce(ReduceOp, DType, const void*, int64_t, int64_t, int64_t, void*, hipStream_t) __attribute__((weak));
hipError_t LaunchSoftmax(DType, const void*, void*, int64_t, int64_t, bool, hipStream_t) __attribute__((weak));
hipError_t LaunchLayerNorm(DType, const void*, const void*, const void*, const void*, void*, void*, float*, float*, int64_t,
                           int64_t, float, hipStream_t) __attribute__((weak));
hipError_t LaunchRmsNorm(DType, const void*, const void*, void*, int64_t, int64_t, float, hipStream_t) __attribute__((weak));
hipError_t LaunchGather(DType, const void*, int64_t, int64_t, int64_t, const void*, DType, int64_t, void*, hipStream_t)
    __attribute__((weak));
hipError_t LaunchConcat(DType, const void* const*, const int64_t*, int, int64_t, int64_t, void*, hipStream_t) __attribute__((weak));
hipError_t LaunchSlice(DType, const void*, const TensorShape&, const int64_t*, const int64_t*, void*, const TensorShape&,
                       hipStream_t) __attribute__((weak));
hipError_t LaunchLstm(DType, DType, const void*, const void*, const void*, const void*, const void*, const void*, void*, void*, void*,
                      const LstmShape&, void*, size_t, hipStream_t) __attribute__((weak));
hipError_t LaunchTranspose(DType, const void*, const TensorShape&, const int*, void*, hipStream_t) __attribute__((weak));
hipError_t LaunchExpand(DType, const void*, const TensorShape&, void*, const TensorShape&, hipStream_t) __attribute__((weak));
hipError_t LaunchPad(DType, const void*, const TensorShape&, const int64_t*, void*, const TensorShape&, PadMode, double,
                     hipStream_t) __attribute__((weak));
hipError_t LaunchBiasActivation(DType, const void*, const void*, const void*, void*, int64_t, int64_t, int64_t, UnaryOp,
                                UnaryParams, ResidualPlacement, hipStream_t) __attribute__((weak));
hipError_t LaunchIm2Col(DType, const void*, const Im2ColShape&, void*, hipStream_t) __attribute__((weak));
hipError_t LaunchSplitTf32(const float*, int64_t, int64_t, int64_t, float*, int64_t, int64_t, int, hipStream_t) __attribute__((weak));
hipError_t LaunchAttention(DType, const void*, const void*, const void*, const void*, void*, const AttentionShape&, hipStream_t)
    __attribute__((weak));
hipError_t LaunchRotary(DType, const void*, const void*, const void*, const int64_t*, void*, const RotaryShape&, hipStream_t)
    __attribute__((weak));
hipError_t LaunchDynamicQuantize(const float*, int64_t, uint8_t*, float*, uint8_t*, float*, hipStream_t) __attribute__((weak));
hipError_t LaunchQuantShift(DType, const void*, const void*, int64_t, int64_t, int64_t, float*, hipStream_t) __attribute__((weak));
hipError_t LaunchRescale(const float*, const float*, const float*, float*, int64_t, int64_t, int64_t, bool, hipStream_t) __attribute__((weak));
}  // namespace switchyard::kernels

namespace switchyard::plan {

// The kernel library's dtype for a plan dtype (ONNX number); false when it has none.
bool KernelDType(int onnx_dtype, kernels::DType* out);
// A plan buffer's shape as the kernel library takes it; false above kernels::kMaxRank.
bool KernelShape(const TensorRef& t, kernels::TensorShape* out);

}  // namespace switchyard::plan
