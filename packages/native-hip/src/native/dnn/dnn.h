// The DNN seam: 2-D convolution (with bias, ReLU and residual add fused where the library can),
// transposed convolution, pooling and batch-norm inference on NCHW device tensors, through cuDNN
// on NVIDIA or MIOpen on AMD -- or, when the build found no library, a seam that only reports why
// (Unavailable()). One file per backend (dnn_cudnn.cc, dnn_miopen.cc, dnn_none.cc): CMakeLists.txt
// compiles the one whose library it found.
//
// Convolution algorithms are picked per problem by `AlgoSearch` and remembered in memory and in an
// on-disk cache (AlgoCache), keyed by device arch + library version + problem, so a second process
// skips the search.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "vendor/gpu.h"

namespace switchyard::dnn {

enum class DataType : int { kFloat32 = 0, kFloat16 = 1 };  // fp16: fp32 accumulation
enum class Activation : int { kNone = 0, kRelu = 1 };
enum class AlgoSearch : int {
  kDefault = 0,     // a fixed algorithm, no search (implicit precomputed GEMM)
  kHeuristic = 1,   // the library's heuristic ranking (cudnnGetConvolutionForwardAlgorithm_v7)
  kExhaustive = 2,  // time every algorithm once (cudnnFindConvolutionForwardAlgorithmEx)
};

struct Status {
  bool ok = true;
  std::string message;
  bool unsupported = false;  // the library declines this configuration (the EP should fall back)
};

struct ConvOptions {
  AlgoSearch search = AlgoSearch::kHeuristic;
  // Folder of the on-disk algorithm cache; "" = the default (SWITCHYARD_CONV_ALGO_CACHE, else
  // $XDG_CACHE_HOME/switchyard/conv-algos, else ~/.cache/switchyard/conv-algos); "-" = memory only.
  std::string cache_dir;
};

// Conv (x [n,c,h,w] * w [k, c/group, kh, kw] -> y [n,k,oh,ow]) or ConvTranspose (x [n,c,h,w] *
// w [c, k/group, kh, kw] -> y [n,k,oh,ow]). Pads are begin/end per axis; cuDNN needs begin == end.
struct Conv2dDesc {
  DataType dtype = DataType::kFloat32;
  int n = 0, c = 0, h = 0, w = 0;
  int k = 0;  // output channels
  int kh = 0, kw = 0;
  int group = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  int output_padding_h = 0, output_padding_w = 0;  // ConvTranspose only
  // float32 operands that hold integers of magnitude at most 2^11 (ConvInteger's shifted operands): the
  // library may multiply them on TF32 tensor cores, which represent them exactly, and only algorithms
  // that sum the products as they are serve it -- Winograd and FFT transform the operands and round.
  bool integer_operands = false;
};

// Output height/width of a Conv (transposed = false) or ConvTranspose; -1 when the shape is invalid.
int ConvOutputSize(const Conv2dDesc& d, bool height, bool transposed);

struct ConvArgs {
  const void* x = nullptr;
  const void* w = nullptr;
  const void* bias = nullptr;      // [k] or nullptr
  const void* residual = nullptr;  // [n,k,oh,ow] added before the activation, or nullptr (may equal y)
  void* y = nullptr;
  Activation activation = Activation::kNone;
};

// y = act(conv(x, w) + bias + residual). Asynchronous on `stream`.
Status ConvForward(int device, hipStream_t stream, const Conv2dDesc& d, const ConvArgs& args, const ConvOptions& options);
// y = conv_transpose(x, w) + bias (residual and activation are ignored). Asynchronous on `stream`.
Status ConvTransposeForward(int device, hipStream_t stream, const Conv2dDesc& d, const ConvArgs& args,
                            const ConvOptions& options);

enum class PoolMode : int { kMax = 0, kAverageExcludePad = 1, kAverageIncludePad = 2 };

struct Pool2dDesc {
  DataType dtype = DataType::kFloat32;
  PoolMode mode = PoolMode::kMax;
  int n = 0, c = 0, h = 0, w = 0;
  int kh = 0, kw = 0;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int stride_h = 1, stride_w = 1;
};

// Output height/width (floor mode); -1 when invalid.
int PoolOutputSize(const Pool2dDesc& d, bool height);

Status Pool2dForward(int device, hipStream_t stream, const Pool2dDesc& d, const void* x, void* y);

// y = scale * (x - mean) / sqrt(var + epsilon) + bias per channel, x/y [n,c,spatial] in `dtype`;
// scale/bias/mean/var are float32 [c] for both dtypes. cuDNN needs epsilon >= 1e-5.
Status BatchNormInference(int device, hipStream_t stream, DataType dtype, int n, int c, int64_t spatial, const void* x,
                          const void* scale, const void* bias, const void* mean, const void* var, double epsilon,
                          void* y);

// ---------------------------------------------------------------- prepared problems
// Plans run the same convolution and pooling every replay: PrepareConv/PreparePool build the
// library's descriptors, pick the algorithm and size its workspace ONCE (at plan build), and Run
// only launches. ConvForward/Pool2dForward above stay for one-off callers (dnn_js.cc); a backend
// without a prepared path gets a fallback that calls them on every Run (dnn_prepared_fallback.cc).

// Memory order of x, y (and the residual). kNHWC: x is [n,h,w,c], y [n,oh,ow,k], and the filter
// [k,kh,kw,c/group] (KRSC) -- the tensor-core layout for float16; Conv2dDesc keeps the logical sizes.
enum class TensorLayout : int { kNCHW = 0, kNHWC = 1 };

class PreparedConv {
 public:
  virtual ~PreparedConv() = default;
  // y = act(conv(x, w) + bias + residual) as ConvForward, with the prepared descriptors and algorithm.
  // Asynchronous on the stream it was prepared for; never synchronizes (graph-capturable).
  virtual Status Run(const ConvArgs& args) = 0;
};

class PreparedPool {
 public:
  virtual ~PreparedPool() = default;
  virtual Status Run(const void* x, void* y) = 0;
};

// `sample`'s pointers are the buffers later runs use (an exhaustive search times on them and may
// write y; x and w are only read). The stream must be the one every Run is queued on.
Status PrepareConv(int device, hipStream_t stream, const Conv2dDesc& d, TensorLayout layout, const ConvArgs& sample,
                   const ConvOptions& options, std::unique_ptr<PreparedConv>* out);
Status PreparePool(int device, hipStream_t stream, const Pool2dDesc& d, TensorLayout layout, std::unique_ptr<PreparedPool>* out);

// Destroys the library handle (and gives back its workspace) made for (device, stream), if any. Call
// before destroying the stream, once nothing is queued on it: a plan that owned the stream does.
void ReleaseStream(int device, hipStream_t stream);

// nullptr when the seam works in this build; else why not.
const char* Unavailable();
const char* BackendName();  // "cuDNN" | "MIOpen" | "none"
int LibraryVersion();       // e.g. 91400 for cuDNN 9.14.0; 0 when none

// Algorithm-cache counters (for tests and profiling).
struct AlgoCacheStats {
  int64_t searches = 0;     // library searches run (heuristic or exhaustive)
  int64_t memory_hits = 0;  // answered from this process's memory
  int64_t disk_hits = 0;    // answered from the cache file (first use in this process)
  std::string last_file;    // the cache file last read or written
};
AlgoCacheStats GetAlgoCacheStats();

}  // namespace switchyard::dnn
