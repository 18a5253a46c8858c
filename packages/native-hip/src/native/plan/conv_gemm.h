// A 2-D NCHW convolution (group 1) run as one GEMM per image:
//   Y[ni] (k x oh*ow) = W (k x c*kh*kw) * B[ni]
// where B is x itself for an unpadded 1x1 stride-1 convolution, and im2col(x) (kernels/im2col.hip)
// in the step's workspace otherwise. Channels-last (NHWC, float16 plans), an unpadded 1x1 stride-1
// convolution is one GEMM over the whole batch: Y (n*h*w x k) = X (n*h*w x c) * W^T (W is [k, c]). Why: at batch 1 the DNN library's fp32 convolutions cover a
// [k, oh*ow] output with a handful of thread blocks (ResNet-50's 14x14 and 7x7 layers), while the BLAS
// seam's prepared GEMM times split-K kernels that fill the GPU. The Conv step op (step_ops_dnn.cc)
// times both forms on the step's own buffers at plan build and keeps the faster.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "blas/blas.h"
#include "dnn/dnn.h"
#include "kernels/launch.h"
#include "plan/step_op.h"

namespace switchyard::plan {

struct ConvGemm {
  bool im2col = false;  // false: x is the GEMM's B as it is
  kernels::Im2ColShape shape;
  blas::GemmDesc gemm;  // carries the step's pointers (plans never move their buffers)
  blas::PreparedGemm prepared;
  // Batch 1, NCHW, a bias and no residual: the bias broadcast once to [k, oh*ow] is the GEMM's C (beta
  // 1) and a ReLU rides cuBLASLt's epilogue, so no epilogue kernel runs after the GEMM (at batch 1 that
  // kernel cost about as much as a 1x1 convolution's GEMM). The matrix is the step's own device memory.
  // Channels-last: the bias rides cuBLASLt's bias epilogue (`bias`, the step's constant), the residual is
  // C and a ReLU the same epilogue (PrepareNhwcEpilogue in conv_gemm.cc).
  bool epilogue_fused = false;
  std::shared_ptr<void> bias_matrix;
  const void* bias = nullptr;
};

// An unpadded 1x1 stride-1 convolution: x itself is the GEMM's operand (both layouts).
bool ConvGemmDirect(const dnn::Conv2dDesc& d);

// "im2col + GEMM" or "GEMM" (x read as it is), for step notes.
inline const char* ConvGemmFormName(const ConvGemm& g) { return g.im2col ? "im2col + GEMM" : "GEMM"; }

// Bytes of workspace the GEMM form needs for `d` with output oh x ow and elements of `element_bytes`
// (im2col's buffer; 0 when x serves as B), or -1 when the form does not serve it: a grouped
// convolution, a channels-last one that is not 1x1 stride 1 unpadded, or a buffer of 2^31 elements or more.
int64_t ConvGemmWorkspaceBytes(const dnn::Conv2dDesc& d, dnn::TensorLayout layout, int64_t oh, int64_t ow, int64_t element_bytes);

// Prepares the GEMM form on the step's buffers (x, w, y and the workspace the plan gave the step):
// fills the im2col buffer once, then lets the BLAS seam choose the GEMM's algorithm on it. "" or why
// the form cannot run (a kernel or the BLAS seam missing from this build, too little workspace).
// `activation` is the step's epilogue activation: bias and ReLU (or none) may fuse into the GEMM.
std::string PrepareConvGemm(const StepArgs& args, const dnn::Conv2dDesc& d, dnn::TensorLayout layout, kernels::UnaryOp activation,
                            ConvGemm* out);

// Queues im2col (when needed) and the GEMM on args.stream; bias, activation and residual are the
// caller's (the epilogue kernel).
hipError_t LaunchConvGemm(const StepArgs& args, const ConvGemm& g);

// The form a Conv step chose by timing, kept in the algorithm cache (dnn/algo_cache.h, kind kConvForm:
// memory, and the cache folder's "<device>-convform-<library><version>.txt") so that a later plan or
// process with the same problem takes it without timing. The key is the problem and its epilogue.
struct ConvForm {
  bool gemm = false;
  std::string note;  // what the timing said
};
std::string ConvFormKey(const dnn::Conv2dDesc& d, dnn::TensorLayout layout, bool bias, bool residual, int activation);
bool LookupConvForm(int device, const std::string& key, ConvForm* out);
void StoreConvForm(int device, const std::string& key, const ConvForm& form);

// Device milliseconds per call of `launch` on `stream`: one untimed call, then two rounds of five,
// the faster round's mean. Synchronizes the stream (plan build only); -1 when a call fails.
float TimeLaunchesMs(hipStream_t stream, const std::function<hipError_t()>& launch);

}  // namespace switchyard::plan
