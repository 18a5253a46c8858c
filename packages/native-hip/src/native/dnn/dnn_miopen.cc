// The DNN seam on AMD: MIOpen (see dnn.h). CMakeLists.txt compiles this file instead of dnn_none.cc
// only when it found <miopen/miopen.h> (SWITCHYARD_HAVE_MIOPEN), with dnn_prepared_fallback.cc for
// plans' prepared problems on top of these functions.
//
// MIOpen is loaded at run time (dlopen), like rocBLAS: the header is all the build needs, and an
// addon built with it still loads where MIOpen is missing -- the seam then says why.
//
// Algorithms use MIOpen's immediate mode: a solution id runs without the legacy Find step that
// miopenConvolutionForward requires in every process. Search modes:
//   kDefault     the first solution miopenConvolutionForwardGetSolution ranks (no cache)
//   kHeuristic   the same ranking, remembered in the algorithm cache (AlgoCache)
//   kExhaustive  miopenFindConvolutionForwardAlgorithm(exhaustiveSearch = true) first, which times
//                the kernels and records them in MIOpen's find-db, so the ranking that follows is by
//                measured time; the winner's id goes to the algorithm cache
// The cache file is keyed by device arch + "miopen<version>", each line by the problem.
#include <dlfcn.h>
#include <miopen/miopen.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "algo_cache.h"
#include "dnn.h"
#include "runtime/stream_handles.h"
#include "runtime/device_arena.h"

namespace switchyard::dnn {
namespace {

// Every MIOpen function this file calls. The types come from the header, so a signature change
// is a compile error rather than a crash.
#define SWITCHYARD_MIOPEN_FUNCTIONS(X)                                                                    \
  X(miopenGetErrorString) X(miopenGetVersion) X(miopenCreateWithStream) X(miopenDestroy) X(miopenCreateTensorDescriptor) \
  X(miopenSet4dTensorDescriptor) X(miopenDestroyTensorDescriptor) X(miopenCreateConvolutionDescriptor)  \
  X(miopenInitConvolutionDescriptor) X(miopenSetConvolutionGroupCount)                                  \
  X(miopenSetTransposeConvOutputPadding) X(miopenDestroyConvolutionDescriptor)                          \
  X(miopenConvolutionForwardGetWorkSpaceSize) X(miopenFindConvolutionForwardAlgorithm)                  \
  X(miopenConvolutionForwardGetSolutionCount) X(miopenConvolutionForwardGetSolution)                    \
  X(miopenConvolutionForwardCompileSolution) X(miopenConvolutionForwardImmediate) X(miopenOpTensor)     \
  X(miopenCreateActivationDescriptor) X(miopenSetActivationDescriptor) X(miopenActivationForward)       \
  X(miopenDestroyActivationDescriptor) X(miopenCreatePoolingDescriptor) X(miopenSet2dPoolingDescriptor) \
  X(miopenGetPoolingForwardOutputDim) X(miopenPoolingForward) X(miopenDestroyPoolingDescriptor)         \
  X(miopenBatchNormalizationForwardInference)

struct MiopenApi {
#define SWITCHYARD_DECLARE(name) decltype(&::name) name = nullptr;
  SWITCHYARD_MIOPEN_FUNCTIONS(SWITCHYARD_DECLARE)
#undef SWITCHYARD_DECLARE
  std::string failure;  // why MIOpen is unusable; empty once every symbol is bound
  int version = 0;      // major * 10000 + minor * 100 + patch, as cuDNN counts
};

// SWITCHYARD_MIOPEN_LIBRARY (environment), the library CMake found at build time, $ROCM_PATH/lib,
// /opt/rocm/lib, then the loader's search path by soname.
std::vector<std::string> LibraryCandidates() {
  std::vector<std::string> names;
  if (const char* env = std::getenv("SWITCHYARD_MIOPEN_LIBRARY"); env != nullptr && *env != '\0') names.emplace_back(env);
#if defined(SWITCHYARD_MIOPEN_LIBRARY)
  names.emplace_back(SWITCHYARD_MIOPEN_LIBRARY);
#endif
  if (const char* rocm = std::getenv("ROCM_PATH"); rocm != nullptr && *rocm != '\0') names.push_back(std::string(rocm) + "/lib/libMIOpen.so");
  names.emplace_back("/opt/rocm/lib/libMIOpen.so");
  names.emplace_back("libMIOpen.so");
  names.emplace_back("libMIOpen.so.1");
  return names;
}

const MiopenApi& Api() {
  static const MiopenApi* const api = [] {
    auto* result = new MiopenApi();  // leaked on purpose: handles outlive static destruction
    void* library = nullptr;
    std::string error_text;
    for (const std::string& name : LibraryCandidates()) {
      library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (library != nullptr) break;
      const char* error = dlerror();
      const std::string message = error != nullptr ? error : name + ": not found";
      // A library that exists but fails to load says more than the later "No such file" ones.
      if (error_text.empty() || (error_text.find("No such file") != std::string::npos && message.find("No such file") == std::string::npos)) {
        error_text = message;
      }
    }
    if (library == nullptr) {
      result->failure = "built with <miopen/miopen.h>, but libMIOpen could not be loaded at run time (" + error_text +
                        "): install MIOpen (ROCm) or set SWITCHYARD_MIOPEN_LIBRARY to its path";
      return result;
    }
#define SWITCHYARD_BIND(name)                                                                         \
  result->name = reinterpret_cast<decltype(result->name)>(dlsym(library, #name));                    \
  if (result->name == nullptr && result->failure.empty()) result->failure = "the loaded MIOpen has no " #name;
    SWITCHYARD_MIOPEN_FUNCTIONS(SWITCHYARD_BIND)
#undef SWITCHYARD_BIND
    size_t major = 0, minor = 0, patch = 0;
    if (result->failure.empty() && result->miopenGetVersion(&major, &minor, &patch) == miopenStatusSuccess) {
      result->version = static_cast<int>(major * 10000 + minor * 100 + patch);
    }
    return result;
  }();
  return *api;
}

Status Failure(const char* call, miopenStatus_t status) {
  Status result{false, std::string(call) + ": " + Api().miopenGetErrorString(status)};
  result.unsupported = status == miopenStatusNotImplemented || status == miopenStatusUnsupportedOp;
  return result;
}

// MIOPEN_TRY(miopenX, args...) calls the bound function and returns a Status on failure.
#define MIOPEN_TRY(fn, ...)                                         \
  do {                                                              \
    miopenStatus_t status_ = Api().fn(__VA_ARGS__);                 \
    if (status_ != miopenStatusSuccess) return Failure(#fn, status_); \
  } while (0)

// RAII owner of a MIOpen descriptor, destroyed through the bound function.
template <class T, auto Destroy>
struct Owned {
  T value = nullptr;
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() {
    if (value != nullptr) (Api().*Destroy)(value);
  }
};
using TensorDesc = Owned<miopenTensorDescriptor_t, &MiopenApi::miopenDestroyTensorDescriptor>;
using ConvDesc = Owned<miopenConvolutionDescriptor_t, &MiopenApi::miopenDestroyConvolutionDescriptor>;
using ActivationDesc = Owned<miopenActivationDescriptor_t, &MiopenApi::miopenDestroyActivationDescriptor>;
using PoolingDesc = Owned<miopenPoolingDescriptor_t, &MiopenApi::miopenDestroyPoolingDescriptor>;

// One MIOpen handle per (device, stream), with a workspace and a scratch block (the convolution's
// output when the residual lives in y) that grow after the stream drains.
struct Handle {
  miopenHandle_t handle = nullptr;
  std::shared_ptr<runtime::DeviceArena> arena;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  void* scratch = nullptr;
  size_t scratch_bytes = 0;
  std::string arch;  // "gfx90a_sramecc__xnack--AMD_Instinct_MI210": part of the cache file's name
  std::map<std::string, CachedAlgo> default_picks;  // kDefault's answers: asked once per problem
  std::set<std::string> compiled;                   // "<problem>#<solution id>" built in this process
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
    if (hipSetDevice(device) != hipSuccess) return Status{false, "hipSetDevice failed"};
    Handle entry;
    MIOPEN_TRY(miopenCreateWithStream, &entry.handle, stream);
    entry.arena = runtime::DefaultArena(device);
    hipDeviceProp_t props;
    if (hipGetDeviceProperties(&props, device) == hipSuccess) {
      entry.arch = std::string(props.gcnArchName) + "-" + props.name;
      for (char& ch : entry.arch) {
        if (!(isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-')) ch = '_';
      }
    } else {
      entry.arch = "unknown";
    }
    it = handles->emplace(std::make_pair(device, stream), std::move(entry)).first;
  }
  *out = &it->second;
  return Status{};
}

// Grows one of the handle's blocks to `bytes`. Queued work may still use the old block, so it goes
// back to the arena only after the stream drains.
Status EnsureBlock(Handle* h, hipStream_t stream, void** block, size_t* block_bytes, size_t bytes, const char* what) {
  if (bytes <= *block_bytes) return Status{};
  if (*block != nullptr) {
    if (hipStreamSynchronize(stream) != hipSuccess) return Status{false, "hipStreamSynchronize failed"};
    h->arena->ReleaseMemory(*block);
    *block = nullptr;
    *block_bytes = 0;
  }
  runtime::ArenaResult got = h->arena->Allocate(bytes);
  if (got.failure != runtime::ArenaFailure::kNone) return Status{false, std::string("MIOpen ") + what + ": " + got.message};
  *block = reinterpret_cast<void*>(got.address);
  *block_bytes = bytes;
  return Status{};
}

miopenDataType_t DataTypeOf(DataType dtype) { return dtype == DataType::kFloat16 ? miopenHalf : miopenFloat; }
size_t ElementBytes(DataType dtype) { return dtype == DataType::kFloat16 ? 2 : 4; }

Status MakeTensor(TensorDesc* desc, miopenDataType_t type, int n, int c, int h, int w) {
  MIOPEN_TRY(miopenCreateTensorDescriptor, &desc->value);
  MIOPEN_TRY(miopenSet4dTensorDescriptor, desc->value, type, n, c, h, w);
  return Status{};
}

// The descriptors of one convolution. ConvTranspose is MIOpen's miopenTranspose mode of the same
// forward call, with the filter [c, k/group, kh, kw] exactly as ONNX stores it.
struct ConvProblem {
  TensorDesc x, y, w, bias;
  ConvDesc conv;
  int oh = 0, ow = 0;
  size_t y_bytes = 0;
};

Status MakeProblem(const Conv2dDesc& d, bool transposed, ConvProblem* p) {
  if (d.pad_top != d.pad_bottom || d.pad_left != d.pad_right) {
    return Status{false, "MIOpen convolution needs symmetric padding (begin == end per axis)", true};
  }
  if (d.group <= 0 || d.c % d.group != 0 || d.k % d.group != 0) return Status{false, "channels must divide by group"};
  p->oh = ConvOutputSize(d, true, transposed);
  p->ow = ConvOutputSize(d, false, transposed);
  if (p->oh <= 0 || p->ow <= 0 || d.n <= 0) return Status{false, "the convolution's output would be empty or invalid"};
  p->y_bytes = static_cast<size_t>(d.n) * d.k * p->oh * p->ow * ElementBytes(d.dtype);
  const miopenDataType_t type = DataTypeOf(d.dtype);
  Status s = MakeTensor(&p->x, type, d.n, d.c, d.h, d.w);
  if (!s.ok) return s;
  s = MakeTensor(&p->y, type, d.n, d.k, p->oh, p->ow);
  if (!s.ok) return s;
  s = MakeTensor(&p->bias, type, 1, d.k, 1, 1);
  if (!s.ok) return s;
  s = transposed ? MakeTensor(&p->w, type, d.c, d.k / d.group, d.kh, d.kw) : MakeTensor(&p->w, type, d.k, d.c / d.group, d.kh, d.kw);
  if (!s.ok) return s;
  MIOPEN_TRY(miopenCreateConvolutionDescriptor, &p->conv.value);
  MIOPEN_TRY(miopenInitConvolutionDescriptor, p->conv.value, transposed ? miopenTranspose : miopenConvolution, d.pad_top,
             d.pad_left, d.stride_h, d.stride_w, d.dilation_h, d.dilation_w);
  if (d.group > 1) MIOPEN_TRY(miopenSetConvolutionGroupCount, p->conv.value, d.group);
  if (transposed && (d.output_padding_h != 0 || d.output_padding_w != 0)) {
    MIOPEN_TRY(miopenSetTransposeConvOutputPadding, p->conv.value, d.output_padding_h, d.output_padding_w);
  }
  return Status{};
}

std::string ProblemKey(const char* op, const Conv2dDesc& d, AlgoSearch search) {
  std::string key = op;
  key += d.dtype == DataType::kFloat16 ? "|f16|" : "|f32|";
  key += search == AlgoSearch::kExhaustive ? "x|" : "h|";
  if (d.integer_operands) key += "int|";
  const int fields[] = {d.n, d.c, d.h, d.w, d.k, d.kh, d.kw, d.group, d.pad_top, d.pad_left,
                        d.stride_h, d.stride_w, d.dilation_h, d.dilation_w, d.output_padding_h, d.output_padding_w};
  for (int f : fields) key += std::to_string(f) + ",";
  return key;
}

std::string CacheStem(const Handle& h) { return h.arch + "-miopen" + std::to_string(Api().version); }

// Largest workspace an exhaustive search may use.
constexpr size_t kSearchWorkspaceBytes = size_t{256} << 20;

// MIOpen's ranking of the immediate-mode solutions (by the find-db's measured times when a Find ran
// for this problem, else by its heuristics): the first one's id and workspace.
Status RankedSolution(Handle* h, ConvProblem& p, bool integer_operands, CachedAlgo* out) {
  size_t count = 0;
  MIOPEN_TRY(miopenConvolutionForwardGetSolutionCount, h->handle, p.w.value, p.x.value, p.conv.value, p.y.value, &count);
  if (count == 0) return Status{false, "MIOpen has no solution for this convolution", true};
  std::vector<miopenConvSolution_t> solutions(count);
  size_t returned = 0;
  MIOPEN_TRY(miopenConvolutionForwardGetSolution, h->handle, p.w.value, p.x.value, p.conv.value, p.y.value, count, &returned,
             solutions.data());
  if (returned == 0) return Status{false, "MIOpen has no solution for this convolution", true};
  // Integer-valued operands (ConvInteger) need a solution that sums the products as they are: Winograd
  // and FFT transform the operands with roundings that break the exact integer result.
  size_t pick = 0;
  while (integer_operands && pick < returned &&
         (solutions[pick].algorithm == miopenConvolutionAlgoWinograd || solutions[pick].algorithm == miopenConvolutionAlgoFFT)) {
    ++pick;
  }
  if (pick == returned) return Status{false, "MIOpen has no solution that sums this convolution's products directly", true};
  // Solver ids are small registry indices; the cache stores an int.
  if (solutions[pick].solution_id > static_cast<uint64_t>(INT_MAX)) return Status{false, "MIOpen solution id out of range"};
  out->algo = static_cast<int>(solutions[pick].solution_id);
  out->workspace = solutions[pick].workspace_size;
  return Status{};
}

Status PickSolution(Handle* h, hipStream_t stream, const Conv2dDesc& d, bool transposed, ConvProblem& p, const ConvArgs& args,
                    const ConvOptions& options, CachedAlgo* out) {
  const std::string key = ProblemKey(transposed ? "tfwd" : "fwd", d, options.search);
  if (options.search == AlgoSearch::kDefault) {
    if (auto it = h->default_picks.find(key); it != h->default_picks.end()) {
      *out = it->second;
      return Status{};
    }
    Status s = RankedSolution(h, p, d.integer_operands, out);
    if (s.ok) h->default_picks[key] = *out;
    return s;
  }
  const std::string dir = ResolveCacheDir(options.cache_dir);
  if (LookupAlgo(dir, CacheStem(*h), key, out)) return Status{};
  if (options.search == AlgoSearch::kExhaustive) {
    size_t wanted = 0;
    MIOPEN_TRY(miopenConvolutionForwardGetWorkSpaceSize, h->handle, p.w.value, p.x.value, p.conv.value, p.y.value, &wanted);
    Status s = EnsureBlock(h, stream, &h->workspace, &h->workspace_bytes, std::min(wanted, kSearchWorkspaceBytes), "workspace");
    if (!s.ok) return s;
    // The search writes y; when y holds the residual, it writes the scratch block instead.
    void* y = args.y;
    if (args.residual != nullptr && args.residual == args.y) {
      s = EnsureBlock(h, stream, &h->scratch, &h->scratch_bytes, p.y_bytes, "scratch");
      if (!s.ok) return s;
      y = h->scratch;
    }
    miopenConvAlgoPerf_t perf[8];
    int found = 0;
    MIOPEN_TRY(miopenFindConvolutionForwardAlgorithm, h->handle, p.x.value, args.x, p.w.value, args.w, p.conv.value, p.y.value, y,
               8, &found, perf, h->workspace, h->workspace_bytes, true);
    if (found == 0) return Status{false, "MIOpen's search found no algorithm for this convolution", true};
  }
  Status s = RankedSolution(h, p, d.integer_operands, out);
  if (!s.ok) return s;
  StoreAlgo(dir, CacheStem(*h), key, *out);
  return Status{};
}

// y = act(conv(x, w) + bias + residual), or the transposed convolution plus bias.
Status RunConv(int device, hipStream_t stream, const Conv2dDesc& d, bool transposed, const ConvArgs& args,
               const ConvOptions& options) {
  std::lock_guard<std::mutex> lock(HandleMutex());
  Handle* h;
  Status s = HandleFor(device, stream, &h);
  if (!s.ok) return s;
  ConvProblem p;
  s = MakeProblem(d, transposed, &p);
  if (!s.ok) return s;
  CachedAlgo algo;
  s = PickSolution(h, stream, d, transposed, p, args, options, &algo);
  if (!s.ok) return s;
  s = EnsureBlock(h, stream, &h->workspace, &h->workspace_bytes, algo.workspace, "workspace");
  if (!s.ok) return s;
  const void* residual = transposed ? nullptr : args.residual;
  // With the residual in y, the convolution writes the scratch block and the add puts the sum in y.
  void* conv_out = args.y;
  if (residual != nullptr && residual == args.y) {
    s = EnsureBlock(h, stream, &h->scratch, &h->scratch_bytes, p.y_bytes, "scratch");
    if (!s.ok) return s;
    conv_out = h->scratch;
  }
  // Builds the solution's kernels once per process (MIOpen keeps them in its kernel cache on disk).
  const std::string compiled = ProblemKey(transposed ? "tfwd" : "fwd", d, options.search) + "#" + std::to_string(algo.algo);
  if (h->compiled.count(compiled) == 0) {
    MIOPEN_TRY(miopenConvolutionForwardCompileSolution, h->handle, p.w.value, p.x.value, p.conv.value, p.y.value,
               static_cast<uint64_t>(algo.algo));
    h->compiled.insert(compiled);
  }
  MIOPEN_TRY(miopenConvolutionForwardImmediate, h->handle, p.w.value, args.w, p.x.value, args.x, p.conv.value, p.y.value,
             conv_out, h->workspace, h->workspace_bytes, static_cast<uint64_t>(algo.algo));
  // The epilogue, unfused: y = conv + residual, y += bias (broadcast over [1,k,1,1]), ReLU in place.
  const float one = 1.0f, zero = 0.0f;
  if (residual != nullptr) {
    MIOPEN_TRY(miopenOpTensor, h->handle, miopenTensorOpAdd, &one, p.y.value, conv_out, &one, p.y.value, residual, &zero, p.y.value,
               args.y);
  }
  if (args.bias != nullptr) {
    MIOPEN_TRY(miopenOpTensor, h->handle, miopenTensorOpAdd, &one, p.y.value, args.y, &one, p.bias.value, args.bias, &zero,
               p.y.value, args.y);
  }
  if (!transposed && args.activation == Activation::kRelu) {
    ActivationDesc act;
    MIOPEN_TRY(miopenCreateActivationDescriptor, &act.value);
    MIOPEN_TRY(miopenSetActivationDescriptor, act.value, miopenActivationRELU, 0.0, 0.0, 0.0);
    MIOPEN_TRY(miopenActivationForward, h->handle, act.value, &one, p.y.value, args.y, &zero, p.y.value, args.y);
  }
  return Status{};
}

}  // namespace

void ReleaseStream(int device, hipStream_t stream) {
  runtime::EraseStreamHandle(HandleMutex(), Handles(), device, stream, [](Handle& h) {
    if (h.workspace != nullptr) h.arena->ReleaseMemory(h.workspace);
    if (h.scratch != nullptr) h.arena->ReleaseMemory(h.scratch);
    if (h.handle != nullptr) (void)Api().miopenDestroy(h.handle);
  });
}

const char* Unavailable() {
  const MiopenApi& api = Api();
  return api.failure.empty() ? nullptr : api.failure.c_str();
}
const char* BackendName() { return "MIOpen"; }
int LibraryVersion() { return Unavailable() == nullptr ? Api().version : 0; }

Status ConvForward(int device, hipStream_t stream, const Conv2dDesc& d, const ConvArgs& args, const ConvOptions& options) {
  if (const char* why = Unavailable(); why != nullptr) return Status{false, why, true};
  return RunConv(device, stream, d, false, args, options);
}

Status ConvTransposeForward(int device, hipStream_t stream, const Conv2dDesc& d, const ConvArgs& args,
                            const ConvOptions& options) {
  if (const char* why = Unavailable(); why != nullptr) return Status{false, why, true};
  return RunConv(device, stream, d, true, args, options);
}

Status Pool2dForward(int device, hipStream_t stream, const Pool2dDesc& d, const void* x, void* y) {
  if (const char* why = Unavailable(); why != nullptr) return Status{false, why, true};
  if (d.pad_top != d.pad_bottom || d.pad_left != d.pad_right) {
    return Status{false, "MIOpen pooling needs symmetric padding (begin == end per axis)", true};
  }
  const int oh = PoolOutputSize(d, true), ow = PoolOutputSize(d, false);
  if (oh <= 0 || ow <= 0 || d.n <= 0 || d.c <= 0) return Status{false, "the pooling's output would be empty or invalid"};
  std::lock_guard<std::mutex> lock(HandleMutex());
  Handle* h;
  Status s = HandleFor(device, stream, &h);
  if (!s.ok) return s;
  const miopenDataType_t type = DataTypeOf(d.dtype);
  TensorDesc xd, yd;
  s = MakeTensor(&xd, type, d.n, d.c, d.h, d.w);
  if (!s.ok) return s;
  s = MakeTensor(&yd, type, d.n, d.c, oh, ow);
  if (!s.ok) return s;
  PoolingDesc pool;
  MIOPEN_TRY(miopenCreatePoolingDescriptor, &pool.value);
  // MIOpen's plain "Average" leaves the padding out of the count; "Inclusive" counts it.
  const miopenPoolingMode_t mode = d.mode == PoolMode::kMax                 ? miopenPoolingMax
                                   : d.mode == PoolMode::kAverageIncludePad ? miopenPoolingAverageInclusive
                                                                            : miopenPoolingAverage;
  MIOPEN_TRY(miopenSet2dPoolingDescriptor, pool.value, mode, d.kh, d.kw, d.pad_top, d.pad_left, d.stride_h, d.stride_w);
  // Our sizes are ONNX's floor mode; should this MIOpen size the output otherwise, decline.
  int mn = 0, mc = 0, mh = 0, mw = 0;
  MIOPEN_TRY(miopenGetPoolingForwardOutputDim, pool.value, xd.value, &mn, &mc, &mh, &mw);
  if (mh != oh || mw != ow) {
    return Status{false, "MIOpen sizes this pooling's output " + std::to_string(mh) + "x" + std::to_string(mw) + ", ONNX " +
                             std::to_string(oh) + "x" + std::to_string(ow), true};
  }
  const float one = 1.0f, zero = 0.0f;
  // do_backward = false: no index workspace is kept.
  MIOPEN_TRY(miopenPoolingForward, h->handle, pool.value, &one, xd.value, x, &zero, yd.value, y, false, nullptr, 0);
  return Status{};
}

Status BatchNormInference(int device, hipStream_t stream, DataType dtype, int n, int c, int64_t spatial, const void* x,
                          const void* scale, const void* bias, const void* mean, const void* var, double epsilon, void* y) {
  if (const char* why = Unavailable(); why != nullptr) return Status{false, why, true};
  if (spatial <= 0 || spatial > INT_MAX || n <= 0 || c <= 0) return Status{false, "bad batch-norm shape"};
  if (!(epsilon > 0.0)) return Status{false, "MIOpen batch norm needs epsilon > 0", true};
  std::lock_guard<std::mutex> lock(HandleMutex());
  Handle* h;
  Status s = HandleFor(device, stream, &h);
  if (!s.ok) return s;
  TensorDesc xd, params;
  s = MakeTensor(&xd, DataTypeOf(dtype), n, c, static_cast<int>(spatial), 1);
  if (!s.ok) return s;
  // Parameters stay float32 for float16 data: MIOpen's mixed-precision batch norm.
  s = MakeTensor(&params, miopenFloat, 1, c, 1, 1);
  if (!s.ok) return s;
  float one = 1.0f, zero = 0.0f;
  // MIOpen's prototype takes the (read-only) parameters as void*.
  MIOPEN_TRY(miopenBatchNormalizationForwardInference, h->handle, miopenBNSpatial, &one, &zero, xd.value, x, xd.value, y,
             params.value, const_cast<void*>(scale), const_cast<void*>(bias), const_cast<void*>(mean), const_cast<void*>(var),
             epsilon);
  return Status{};
}

}  // namespace switchyard::dnn
