// The DNN seam on NVIDIA: cuDNN (see dnn.h). CMakeLists.txt compiles this file instead of
// dnn_none.cc only when it found <cudnn.h> and libcudnn to link (SWITCHYARD_HAVE_CUDNN).
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "algo_cache.h"
#include "dnn.h"
#include "runtime/stream_handles.h"

// Pooling, activation and batch-norm inference are "legacy" (deprecated) in cuDNN 9 but present;
// the graph API would be far more code for the same kernels.
#define CUDNN_NO_DEPRECATED_WARNINGS 1
#include <cudnn.h>

#include "runtime/device_arena.h"
#include "runtime/runtime.h"

namespace switchyard::dnn {

namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

Status Failure(const char* call, cudnnStatus_t status) {
  Status result{false, std::string(call) + ": " + cudnnGetErrorString(status)};
  result.unsupported = status == CUDNN_STATUS_NOT_SUPPORTED;
  return result;
}

#define CUDNN_TRY(call)                                               \
  do {                                                                \
    cudnnStatus_t status_ = (call);                                   \
    if (status_ != CUDNN_STATUS_SUCCESS) return Failure(#call, status_); \
  } while (0)

// One cuDNN handle per (device, stream) with its own workspace, which grows (after the stream
// drains) and is never shared with another stream.
struct Handle {
  cudnnHandle_t handle = nullptr;
  std::shared_ptr<runtime::DeviceArena> arena;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  std::string arch;  // "sm_90-NVIDIA_H200": part of the algorithm cache's file name
};

std::mutex& HandleMutex() {
  static std::mutex mutex;
  return mutex;
}

// Handles by (device, stream); a plan that releases its stream releases its handle (ReleaseStream).
std::map<std::pair<int, hipStream_t>, Handle>* Handles() {
  static auto* handles = new std::map<std::pair<int, hipStream_t>, Handle>();
  return handles;
}

Status HandleFor(int device, hipStream_t stream, Handle** out) {
  auto* handles = Handles();
  auto it = handles->find({device, stream});
  if (it == handles->end()) {
    if (hipSetDevice(device) != hipSuccess) return Status{false, "cudaSetDevice failed"};
    Handle entry;
    const size_t free_before = runtime::DeviceFreeBytes(device);
    CUDNN_TRY(cudnnCreate(&entry.handle));
    CUDNN_TRY(cudnnSetStream(entry.handle, stream));
    const size_t free_after = runtime::DeviceFreeBytes(device);
    if (free_before > 0 && free_after > 0) runtime::RecordHandleBytes(device, runtime::HandleLibrary::kDnn, free_before > free_after ? free_before - free_after : 0);
    entry.arena = runtime::DefaultArena(device);
    entry.arch = DeviceCacheName(device);
    it = handles->emplace(std::make_pair(device, stream), std::move(entry)).first;
  }
  *out = &it->second;
  return Status{};
}

Status EnsureWorkspace(Handle* h, hipStream_t stream, size_t bytes) {
  if (bytes <= h->workspace_bytes) return Status{};
  if (h->workspace != nullptr) {
    // Queued work may still use the old block; once the stream drains, it is free to go back.
    if (hipStreamSynchronize(stream) != hipSuccess) return Status{false, "cudaStreamSynchronize failed"};
    h->arena->ReleaseMemory(h->workspace);
    h->workspace = nullptr;
    h->workspace_bytes = 0;
  }
  runtime::ArenaResult block = h->arena->Allocate(bytes);
  if (block.failure != runtime::ArenaFailure::kNone) return Status{false, "cuDNN workspace: " + block.message};
  h->workspace = reinterpret_cast<void*>(block.address);
  h->workspace_bytes = bytes;
  return Status{};
}

// RAII owners of cuDNN descriptors.
template <class T, cudnnStatus_t (*Destroy)(T)>
struct Descriptor {
  T value = nullptr;
  ~Descriptor() {
    if (value != nullptr) Destroy(value);
  }
};
using TensorDesc = Descriptor<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor>;
using FilterDesc = Descriptor<cudnnFilterDescriptor_t, cudnnDestroyFilterDescriptor>;
using ConvDesc = Descriptor<cudnnConvolutionDescriptor_t, cudnnDestroyConvolutionDescriptor>;
using ActivationDesc = Descriptor<cudnnActivationDescriptor_t, cudnnDestroyActivationDescriptor>;
using PoolingDesc = Descriptor<cudnnPoolingDescriptor_t, cudnnDestroyPoolingDescriptor>;

cudnnDataType_t DataTypeOf(DataType dtype) { return dtype == DataType::kFloat16 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT; }

cudnnTensorFormat_t FormatOf(TensorLayout layout) { return layout == TensorLayout::kNHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW; }

// n, c, h, w are the logical sizes whatever the layout (cuDNN derives the strides from the format).
Status MakeTensor(TensorDesc* desc, DataType dtype, int n, int c, int h, int w, TensorLayout layout = TensorLayout::kNCHW) {
  CUDNN_TRY(cudnnCreateTensorDescriptor(&desc->value));
  CUDNN_TRY(cudnnSetTensor4dDescriptor(desc->value, FormatOf(layout), DataTypeOf(dtype), n, c, h, w));
  return Status{};
}

// The descriptors of one (transposed) convolution. For ConvTranspose the "forward" convolution
// runs from y to x, so the roles of the tensors swap and cuDNN's backward-data computes it.
struct ConvProblem {
  TensorDesc x, y, bias;
  FilterDesc filter;
  ConvDesc conv;
  int oh = 0, ow = 0;
};

Status MakeProblem(const Conv2dDesc& d, bool transposed, ConvProblem* p, TensorLayout layout = TensorLayout::kNCHW) {
  if (d.pad_top != d.pad_bottom || d.pad_left != d.pad_right) {
    return Status{false, "cuDNN convolution needs symmetric padding (begin == end per axis)", true};
  }
  if (d.group <= 0 || d.c % d.group != 0 || d.k % d.group != 0) return Status{false, "channels must divide by group"};
  p->oh = ConvOutputSize(d, true, transposed);
  p->ow = ConvOutputSize(d, false, transposed);
  if (p->oh <= 0 || p->ow <= 0 || d.n <= 0) return Status{false, "the convolution's output would be empty or invalid"};
  Status s = MakeTensor(&p->x, d.dtype, d.n, d.c, d.h, d.w, layout);
  if (!s.ok) return s;
  s = MakeTensor(&p->y, d.dtype, d.n, d.k, p->oh, p->ow, layout);
  if (!s.ok) return s;
  s = MakeTensor(&p->bias, d.dtype, 1, d.k, 1, 1);
  if (!s.ok) return s;
  CUDNN_TRY(cudnnCreateFilterDescriptor(&p->filter.value));
  // Conv: [k, c/group, kh, kw]. ConvTranspose: [c, k/group, kh, kw] -- cuDNN's filter of the
  // forward convolution from y (k channels) to x (c channels).
  const int filter_out = transposed ? d.c : d.k;
  const int filter_in = transposed ? d.k / d.group : d.c / d.group;
  CUDNN_TRY(cudnnSetFilter4dDescriptor(p->filter.value, DataTypeOf(d.dtype), FormatOf(layout), filter_out, filter_in, d.kh, d.kw));
  CUDNN_TRY(cudnnCreateConvolutionDescriptor(&p->conv.value));
  CUDNN_TRY(cudnnSetConvolution2dDescriptor(p->conv.value, d.pad_top, d.pad_left, d.stride_h, d.stride_w, d.dilation_h,
                                            d.dilation_w, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CUDNN_TRY(cudnnSetConvolutionGroupCount(p->conv.value, d.group));
  // fp32 stays fp32 (no TF32), matching the CPU EP; fp16 may use tensor cores, and so may fp32
  // operands TF32 holds exactly (integer_operands).
  const bool tensor_ops = d.dtype == DataType::kFloat16 || d.integer_operands;
  CUDNN_TRY(cudnnSetConvolutionMathType(p->conv.value, tensor_ops ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
  return Status{};
}

std::string ProblemKey(const char* op, const Conv2dDesc& d, AlgoSearch search, TensorLayout layout = TensorLayout::kNCHW) {
  std::string key = op;
  if (layout == TensorLayout::kNHWC) key += "-nhwc";  // NCHW keys stay as earlier caches wrote them
  key += d.dtype == DataType::kFloat16 ? "|f16|" : "|f32|";
  key += search == AlgoSearch::kExhaustive ? "x|" : "h|";
  if (d.integer_operands) key += "int|";
  const int fields[] = {d.n, d.c, d.h, d.w, d.k, d.kh, d.kw, d.group, d.pad_top, d.pad_left,
                        d.stride_h, d.stride_w, d.dilation_h, d.dilation_w, d.output_padding_h, d.output_padding_w};
  for (int f : fields) key += std::to_string(f) + ",";
  return key;
}

std::string CacheStem(const Handle& h) { return h.arch + "-cudnn" + std::to_string(cudnnGetVersion()); }

// The algorithms that add the products of the operands as they are (integer_operands needs one):
// Winograd and FFT transform the operands first, with roundings that break an exact integer sum.
bool SumsProductsDirectly(cudnnConvolutionFwdAlgo_t algo) {
  return algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
         algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
}

// Largest workspace an exhaustive search may try: what the device arena can give, capped.
constexpr size_t kSearchWorkspaceBytes = size_t{256} << 20;

Status PickForwardAlgo(Handle* h, hipStream_t stream, const Conv2dDesc& d, ConvProblem& p, const ConvArgs& args,
                       const ConvOptions& options, CachedAlgo* out, TensorLayout layout = TensorLayout::kNCHW) {
  if (options.search == AlgoSearch::kDefault) {
    out->algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    size_t bytes = 0;
    CUDNN_TRY(cudnnGetConvolutionForwardWorkspaceSize(h->handle, p.x.value, p.filter.value, p.conv.value, p.y.value,
                                                      static_cast<cudnnConvolutionFwdAlgo_t>(out->algo), &bytes));
    out->workspace = bytes;
    return Status{};
  }
  const std::string dir = ResolveCacheDir(options.cache_dir);
  const std::string key = ProblemKey("fwd", d, options.search, layout);
  if (LookupAlgo(dir, CacheStem(*h), key, out)) return Status{};
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int found = 0;
  if (options.search == AlgoSearch::kExhaustive) {
    Status s = EnsureWorkspace(h, stream, kSearchWorkspaceBytes);
    size_t workspace_bytes = kSearchWorkspaceBytes;
    if (!s.ok) workspace_bytes = h->workspace_bytes;  // search within what we have
    // The search writes y; when y holds the residual, it writes a scratch copy instead.
    void* y = args.y;
    std::unique_ptr<void, std::function<void(void*)>> scratch(nullptr, [h](void* ptr) { h->arena->ReleaseMemory(ptr); });
    if (args.residual == args.y) {
      const size_t bytes = static_cast<size_t>(d.n) * d.k * p.oh * p.ow * (d.dtype == DataType::kFloat16 ? 2 : 4);
      runtime::ArenaResult block = h->arena->Allocate(bytes);
      if (block.failure != runtime::ArenaFailure::kNone) return Status{false, "conv search scratch: " + block.message};
      y = reinterpret_cast<void*>(block.address);
      scratch.reset(y);
    }
    // Twice: the first search also loads each candidate's kernels (CUDA loads modules lazily, on a
    // kernel's first launch), which made single-search timings -- and so the pick -- vary from process
    // to process (ResNet-50 fp16 b32: 2.6 vs 7.7 ms of GPU time in two runs). The second times warm kernels.
    for (int pass = 0; pass < 2; ++pass) {
      CUDNN_TRY(cudnnFindConvolutionForwardAlgorithmEx(h->handle, p.x.value, args.x, p.filter.value, args.w, p.conv.value,
                                                       p.y.value, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf,
                                                       h->workspace, workspace_bytes));
    }
    // The scratch block goes back to the arena only after the search's kernels finished.
    if (scratch && hipStreamSynchronize(stream) != hipSuccess) return Status{false, "cudaStreamSynchronize failed"};
  } else {
    CUDNN_TRY(cudnnGetConvolutionForwardAlgorithm_v7(h->handle, p.x.value, p.filter.value, p.conv.value, p.y.value,
                                                     CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf));
  }
  for (int i = 0; i < found; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    if (d.integer_operands && !SumsProductsDirectly(perf[i].algo)) continue;
    out->algo = perf[i].algo;
    out->workspace = perf[i].memory;
    StoreAlgo(dir, CacheStem(*h), key, *out);
    return Status{};
  }
  return Status{false, "cuDNN found no forward algorithm for this convolution", true};
}

Status PickBackwardDataAlgo(Handle* h, hipStream_t stream, const Conv2dDesc& d, ConvProblem& p, const ConvArgs& args,
                            const ConvOptions& options, CachedAlgo* out) {
  if (options.search == AlgoSearch::kDefault) {
    out->algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    size_t bytes = 0;
    CUDNN_TRY(cudnnGetConvolutionBackwardDataWorkspaceSize(h->handle, p.filter.value, p.x.value, p.conv.value, p.y.value,
                                                           static_cast<cudnnConvolutionBwdDataAlgo_t>(out->algo), &bytes));
    out->workspace = bytes;
    return Status{};
  }
  const std::string dir = ResolveCacheDir(options.cache_dir);
  const std::string key = ProblemKey("bwd-data", d, options.search);
  if (LookupAlgo(dir, CacheStem(*h), key, out)) return Status{};
  cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  int found = 0;
  if (options.search == AlgoSearch::kExhaustive) {
    Status s = EnsureWorkspace(h, stream, kSearchWorkspaceBytes);
    const size_t workspace_bytes = s.ok ? kSearchWorkspaceBytes : h->workspace_bytes;
    CUDNN_TRY(cudnnFindConvolutionBackwardDataAlgorithmEx(h->handle, p.filter.value, args.w, p.x.value, args.x, p.conv.value,
                                                          p.y.value, args.y, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found,
                                                          perf, h->workspace, workspace_bytes));
  } else {
    CUDNN_TRY(cudnnGetConvolutionBackwardDataAlgorithm_v7(h->handle, p.filter.value, p.x.value, p.conv.value, p.y.value,
                                                          CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf));
  }
  for (int i = 0; i < found; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    out->algo = perf[i].algo;
    out->workspace = perf[i].memory;
    StoreAlgo(dir, CacheStem(*h), key, *out);
    return Status{};
  }
  return Status{false, "cuDNN found no backward-data algorithm for this transposed convolution", true};
}

Status ApplyRelu(Handle* h, const TensorDesc& y, void* data) {
  ActivationDesc act;
  CUDNN_TRY(cudnnCreateActivationDescriptor(&act.value));
  CUDNN_TRY(cudnnSetActivationDescriptor(act.value, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  const float one = 1.0f, zero = 0.0f;
  CUDNN_TRY(cudnnActivationForward(h->handle, act.value, &one, y.value, data, &zero, y.value, data));
  return Status{};
}

}  // namespace

void ReleaseStream(int device, hipStream_t stream) {
  runtime::EraseStreamHandle(HandleMutex(), Handles(), device, stream, [](Handle& h) {
    if (h.handle != nullptr) (void)cudnnDestroy(h.handle);
    if (h.workspace != nullptr) h.arena->ReleaseMemory(h.workspace);
  });
}

const char* Unavailable() { return nullptr; }
const char* BackendName() { return "cuDNN"; }
int LibraryVersion() { return static_cast<int>(cudnnGetVersion()); }

Status ConvForward(int device, hipStream_t stream, const Conv2dDesc& d, const ConvArgs& args, const ConvOptions& options) {
  std::lock_guard<std::mutex> lock(HandleMutex());
  Handle* h;
  Status s = HandleFor(device, stream, &h);
  if (!s.ok) return s;
  ConvProblem p;
  s = MakeProblem(d, false, &p);
  if (!s.ok) return s;
  CachedAlgo algo;
  s = PickForwardAlgo(h, stream, d, p, args, options, &algo);
  if (!s.ok) return s;
  s = EnsureWorkspace(h, stream, algo.workspace);
  if (!s.ok) return s;
  const auto fwd_algo = static_cast<cudnnConvolutionFwdAlgo_t>(algo.algo);
  const float one = 1.0f, zero = 0.0f;

  // Fused path: y = relu(conv + residual + bias) in one call (cuDNN supports ReLU here; identity
  // only with one algorithm, so that case takes the unfused path).
  // fp32 only: the fused call's bias type rules for fp16 differ between cuDNN versions.
  if (args.activation == Activation::kRelu && args.bias != nullptr && d.dtype == DataType::kFloat32) {
    ActivationDesc act;
    CUDNN_TRY(cudnnCreateActivationDescriptor(&act.value));
    CUDNN_TRY(cudnnSetActivationDescriptor(act.value, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    const float alpha2 = args.residual != nullptr ? 1.0f : 0.0f;
    const void* z = args.residual != nullptr ? args.residual : args.y;
    cudnnStatus_t fused = cudnnConvolutionBiasActivationForward(h->handle, &one, p.x.value, args.x, p.filter.value, args.w,
                                                                p.conv.value, fwd_algo, h->workspace, h->workspace_bytes,
                                                                &alpha2, p.y.value, z, p.bias.value, args.bias, act.value,
                                                                p.y.value, args.y);
    if (fused == CUDNN_STATUS_SUCCESS) return Status{};
    if (fused != CUDNN_STATUS_NOT_SUPPORTED) return Failure("cudnnConvolutionBiasActivationForward", fused);
  }
  // Unfused: residual first (conv accumulates onto it with beta = 1), then bias, then ReLU.
  float beta = 0.0f;
  if (args.residual != nullptr) {
    if (args.residual != args.y) {
      const size_t bytes = static_cast<size_t>(d.n) * d.k * p.oh * p.ow * (d.dtype == DataType::kFloat16 ? 2 : 4);
      if (hipMemcpyAsync(args.y, args.residual, bytes, hipMemcpyDeviceToDevice, stream) != hipSuccess) {
        return Status{false, "cudaMemcpyAsync (residual) failed"};
      }
    }
    beta = 1.0f;
  }
  CUDNN_TRY(cudnnConvolutionForward(h->handle, &one, p.x.value, args.x, p.filter.value, args.w, p.conv.value, fwd_algo,
                                    h->workspace, h->workspace_bytes, &beta, p.y.value, args.y));
  if (args.bias != nullptr) CUDNN_TRY(cudnnAddTensor(h->handle, &one, p.bias.value, args.bias, &one, p.y.value, args.y));
  if (args.activation == Activation::kRelu) return ApplyRelu(h, p.y, args.y);
  (void)zero;
  return Status{};
}

Status ConvTransposeForward(int device, hipStream_t stream, const Conv2dDesc& d, const ConvArgs& args,
                            const ConvOptions& options) {
  std::lock_guard<std::mutex> lock(HandleMutex());
  Handle* h;
  Status s = HandleFor(device, stream, &h);
  if (!s.ok) return s;
  // cuDNN's view: a forward convolution from y (k channels, oh x ow) to x (c channels, h x w);
  // ConvTranspose computes its data gradient. MakeProblem's "x" is our input, "y" our output.
  ConvProblem p;
  s = MakeProblem(d, true, &p);
  if (!s.ok) return s;
  CachedAlgo algo;
  s = PickBackwardDataAlgo(h, stream, d, p, args, options, &algo);
  if (!s.ok) return s;
  s = EnsureWorkspace(h, stream, algo.workspace);
  if (!s.ok) return s;
  const float one = 1.0f, zero = 0.0f;
  CUDNN_TRY(cudnnConvolutionBackwardData(h->handle, &one, p.filter.value, args.w, p.x.value, args.x, p.conv.value,
                                         static_cast<cudnnConvolutionBwdDataAlgo_t>(algo.algo), h->workspace,
                                         h->workspace_bytes, &zero, p.y.value, args.y));
  if (args.bias != nullptr) CUDNN_TRY(cudnnAddTensor(h->handle, &one, p.bias.value, args.bias, &one, p.y.value, args.y));
  return Status{};
}

Status Pool2dForward(int device, hipStream_t stream, const Pool2dDesc& d, const void* x, void* y) {
  std::lock_guard<std::mutex> lock(HandleMutex());
  Handle* h;
  Status s = HandleFor(device, stream, &h);
  if (!s.ok) return s;
  if (d.pad_top != d.pad_bottom || d.pad_left != d.pad_right) {
    return Status{false, "cuDNN pooling needs symmetric padding (begin == end per axis)", true};
  }
  const int oh = PoolOutputSize(d, true), ow = PoolOutputSize(d, false);
  if (oh <= 0 || ow <= 0 || d.n <= 0 || d.c <= 0) return Status{false, "the pooling's output would be empty or invalid"};
  TensorDesc xd, yd;
  s = MakeTensor(&xd, d.dtype, d.n, d.c, d.h, d.w);
  if (!s.ok) return s;
  s = MakeTensor(&yd, d.dtype, d.n, d.c, oh, ow);
  if (!s.ok) return s;
  PoolingDesc pool;
  CUDNN_TRY(cudnnCreatePoolingDescriptor(&pool.value));
  const cudnnPoolingMode_t mode = d.mode == PoolMode::kMax                 ? CUDNN_POOLING_MAX
                                  : d.mode == PoolMode::kAverageIncludePad ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                                           : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
  CUDNN_TRY(cudnnSetPooling2dDescriptor(pool.value, mode, CUDNN_NOT_PROPAGATE_NAN, d.kh, d.kw, d.pad_top, d.pad_left, d.stride_h,
                                        d.stride_w));
  const float one = 1.0f, zero = 0.0f;
  CUDNN_TRY(cudnnPoolingForward(h->handle, pool.value, &one, xd.value, x, &zero, yd.value, y));
  return Status{};
}

Status BatchNormInference(int device, hipStream_t stream, DataType dtype, int n, int c, int64_t spatial, const void* x,
                          const void* scale, const void* bias, const void* mean, const void* var, double epsilon, void* y) {
  if (epsilon < CUDNN_BN_MIN_EPSILON) {
    return Status{false, "cuDNN batch norm needs epsilon >= " + std::to_string(CUDNN_BN_MIN_EPSILON), true};
  }
  if (spatial <= 0 || spatial > (1LL << 31) - 1 || n <= 0 || c <= 0) return Status{false, "bad batch-norm shape"};
  std::lock_guard<std::mutex> lock(HandleMutex());
  Handle* h;
  Status s = HandleFor(device, stream, &h);
  if (!s.ok) return s;
  TensorDesc xd, params;
  s = MakeTensor(&xd, dtype, n, c, static_cast<int>(spatial), 1);
  if (!s.ok) return s;
  CUDNN_TRY(cudnnCreateTensorDescriptor(&params.value));
  CUDNN_TRY(cudnnSetTensor4dDescriptor(params.value, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, c, 1, 1));
  const float one = 1.0f, zero = 0.0f;
  CUDNN_TRY(cudnnBatchNormalizationForwardInference(h->handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd.value, x, xd.value, y,
                                                    params.value, scale, bias, mean, var, epsilon));
  return Status{};
}

// ---------------------------------------------------------------- prepared (plan) problems

namespace {

// Everything ConvForward builds per call, built once. The handle (and its workspace) belongs to the
// plan's stream; the workspace only grows, and only at prepare time (a growth synchronizes), so Run
// reads h->workspace afresh and never allocates -- it may be captured into a graph.
class CudnnConv final : public PreparedConv {
 public:
  Status Prepare(int device, hipStream_t stream, const Conv2dDesc& d, TensorLayout layout, const ConvArgs& sample,
                 const ConvOptions& options) {
    stream_ = stream;
    d_ = d;
    layout_ = layout;
    std::lock_guard<std::mutex> lock(HandleMutex());
    Status s = HandleFor(device, stream, &h_);
    if (!s.ok) return s;
    s = MakeProblem(d, false, &p_, layout);
    if (!s.ok) return s;
    s = PickForwardAlgo(h_, stream, d, p_, sample, options, &algo_, layout);
    if (!s.ok) return s;
    s = EnsureWorkspace(h_, stream, algo_.workspace);
    if (!s.ok) return s;
    CUDNN_TRY(cudnnCreateActivationDescriptor(&relu_.value));
    CUDNN_TRY(cudnnSetActivationDescriptor(relu_.value, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    y_bytes_ = static_cast<size_t>(d.n) * d.k * p_.oh * p_.ow * (d.dtype == DataType::kFloat16 ? 2 : 4);
    return Status{};
  }

  Status Run(const ConvArgs& args) override {
    const auto algo = static_cast<cudnnConvolutionFwdAlgo_t>(algo_.algo);
    const float one = 1.0f;
    // fp32 bias+ReLU(+residual): cuDNN's one fused call, as in ConvForward. A NOT_SUPPORTED answer is
    // remembered, so later runs go straight to the unfused path.
    if (fused_ok_ && args.activation == Activation::kRelu && args.bias != nullptr && d_.dtype == DataType::kFloat32 &&
        layout_ == TensorLayout::kNCHW) {
      const float alpha2 = args.residual != nullptr ? 1.0f : 0.0f;
      const void* z = args.residual != nullptr ? args.residual : args.y;
      cudnnStatus_t fused = cudnnConvolutionBiasActivationForward(h_->handle, &one, p_.x.value, args.x, p_.filter.value, args.w,
                                                                  p_.conv.value, algo, h_->workspace, h_->workspace_bytes, &alpha2,
                                                                  p_.y.value, z, p_.bias.value, args.bias, relu_.value, p_.y.value,
                                                                  args.y);
      if (fused == CUDNN_STATUS_SUCCESS) return Status{};
      if (fused != CUDNN_STATUS_NOT_SUPPORTED) return Failure("cudnnConvolutionBiasActivationForward", fused);
      fused_ok_ = false;
    }
    float beta = 0.0f;
    if (args.residual != nullptr) {
      if (args.residual != args.y &&
          hipMemcpyAsync(args.y, args.residual, y_bytes_, hipMemcpyDeviceToDevice, stream_) != hipSuccess) {
        return Status{false, "cudaMemcpyAsync (residual) failed"};
      }
      beta = 1.0f;
    }
    CUDNN_TRY(cudnnConvolutionForward(h_->handle, &one, p_.x.value, args.x, p_.filter.value, args.w, p_.conv.value, algo,
                                      h_->workspace, h_->workspace_bytes, &beta, p_.y.value, args.y));
    if (args.bias != nullptr) CUDNN_TRY(cudnnAddTensor(h_->handle, &one, p_.bias.value, args.bias, &one, p_.y.value, args.y));
    if (args.activation == Activation::kRelu) {
      const float zero = 0.0f;
      CUDNN_TRY(cudnnActivationForward(h_->handle, relu_.value, &one, p_.y.value, args.y, &zero, p_.y.value, args.y));
    }
    return Status{};
  }

 private:
  Handle* h_ = nullptr;
  hipStream_t stream_ = nullptr;
  Conv2dDesc d_;
  TensorLayout layout_ = TensorLayout::kNCHW;
  ConvProblem p_;
  CachedAlgo algo_;
  ActivationDesc relu_;
  size_t y_bytes_ = 0;
  bool fused_ok_ = true;
};

class CudnnPool final : public PreparedPool {
 public:
  Status Prepare(int device, hipStream_t stream, const Pool2dDesc& d, TensorLayout layout) {
    if (d.pad_top != d.pad_bottom || d.pad_left != d.pad_right) {
      return Status{false, "cuDNN pooling needs symmetric padding (begin == end per axis)", true};
    }
    const int oh = PoolOutputSize(d, true), ow = PoolOutputSize(d, false);
    if (oh <= 0 || ow <= 0 || d.n <= 0 || d.c <= 0) return Status{false, "the pooling's output would be empty or invalid"};
    {
      std::lock_guard<std::mutex> lock(HandleMutex());
      Status s = HandleFor(device, stream, &h_);
      if (!s.ok) return s;
    }
    Status s = MakeTensor(&x_, d.dtype, d.n, d.c, d.h, d.w, layout);
    if (!s.ok) return s;
    s = MakeTensor(&y_, d.dtype, d.n, d.c, oh, ow, layout);
    if (!s.ok) return s;
    CUDNN_TRY(cudnnCreatePoolingDescriptor(&pool_.value));
    const cudnnPoolingMode_t mode = d.mode == PoolMode::kMax                 ? CUDNN_POOLING_MAX
                                    : d.mode == PoolMode::kAverageIncludePad ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                                             : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    CUDNN_TRY(cudnnSetPooling2dDescriptor(pool_.value, mode, CUDNN_NOT_PROPAGATE_NAN, d.kh, d.kw, d.pad_top, d.pad_left,
                                          d.stride_h, d.stride_w));
    return Status{};
  }

  Status Run(const void* x, void* y) override {
    const float one = 1.0f, zero = 0.0f;
    CUDNN_TRY(cudnnPoolingForward(h_->handle, pool_.value, &one, x_.value, x, &zero, y_.value, y));
    return Status{};
  }

 private:
  Handle* h_ = nullptr;
  TensorDesc x_, y_;
  PoolingDesc pool_;
};

}  // namespace

Status PrepareConv(int device, hipStream_t stream, const Conv2dDesc& d, TensorLayout layout, const ConvArgs& sample,
                   const ConvOptions& options, std::unique_ptr<PreparedConv>* out) {
  auto conv = std::make_unique<CudnnConv>();
  Status s = conv->Prepare(device, stream, d, layout, sample, options);
  if (!s.ok) return s;
  *out = std::move(conv);
  return Status{};
}

Status PreparePool(int device, hipStream_t stream, const Pool2dDesc& d, TensorLayout layout, std::unique_ptr<PreparedPool>* out) {
  auto pool = std::make_unique<CudnnPool>();
  Status s = pool->Prepare(device, stream, d, layout);
  if (!s.ok) return s;
  *out = std::move(pool);
  return Status{};
}

}  // namespace switchyard::dnn
