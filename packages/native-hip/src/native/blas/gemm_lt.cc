#include "gemm_lt.h"

#if defined(SWITCHYARD_BLAS_CUBLASLT)
#include <cublasLt.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "dnn/algo_cache.h"

namespace switchyard::blas::lt {
namespace {

// Timed launches per candidate and round; two rounds, each candidate's best round counts (the first
// round also warms clocks and caches, as the convolution search's second pass does).
constexpr int kReps = 5;
constexpr int kRounds = 2;
constexpr int kHeuristics = 24;
// Split-K variants are tried on the best few heuristic answers only: enough to fill the SMs when m*n
// is small (batch 1), without timing hundreds of configurations per shape.
constexpr int kSplitBases = 4;
constexpr int32_t kSplits[] = {2, 3, 4, 6, 8, 12, 16};

Status LtFailure(const char* call, cublasStatus_t status) {
  return Status{false, std::string(call) + ": " + cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")"};
}

std::mutex& Mutex() {
  static std::mutex mutex;
  return mutex;
}

// One per device, leaked on purpose (as the cuBLAS handles): never destroyed after the runtime.
Status HandleFor(int device, cublasLtHandle_t* out) {
  std::lock_guard<std::mutex> lock(Mutex());
  static auto* handles = new std::map<int, cublasLtHandle_t>();
  if (auto it = handles->find(device); it != handles->end()) {
    *out = it->second;
    return Status{};
  }
  if (hipSetDevice(device) != hipSuccess) return Status{false, "cublasLt: cudaSetDevice failed"};
  cublasLtHandle_t handle = nullptr;
  if (cublasStatus_t s = cublasLtCreate(&handle); s != CUBLAS_STATUS_SUCCESS) return LtFailure("cublasLtCreate", s);
  handles->emplace(device, handle);
  *out = handle;
  return Status{};
}

// A prepared problem's descriptors. The library's A is our B and its B our A (row-major C = AB is
// column-major C^T = B^T A^T, as blas_cublas.cc hands it to cublasGemmEx).
struct LtGemm {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;  // c describes C and D (in place)
  cublasLtMatmulAlgo_t algo{};
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  LtGemm() = default;
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;
  ~LtGemm() {
    if (op != nullptr) cublasLtMatmulDescDestroy(op);
    for (cublasLtMatrixLayout_t l : {a, b, c}) if (l != nullptr) cublasLtMatrixLayoutDestroy(l);
  }
};

// What a search chose for a problem key. Kept in the algorithm cache (dnn/algo_cache.h, kind kGemm)
// -- in memory for every plan of the process, and on disk for the next process -- as the value
// "<algorithm>\t<workspace bytes>\t<text>": the algorithm "gemmex" when cublasGemmEx's default won,
// else the 8 words of cublasLtMatmulAlgo_t in hex, which NVIDIA documents may be saved and reused
// with the same library version and device (the file's name carries both).
struct Choice {
  bool legacy = true;
  cublasLtMatmulAlgo_t algo{};
  size_t workspace = 0;
  std::string text;
};

constexpr char kLegacyName[] = "gemmex";
constexpr size_t kAlgoWords = sizeof(cublasLtMatmulAlgo_t::data) / sizeof(uint64_t);
static_assert(sizeof(cublasLtMatmulAlgo_t) == kAlgoWords * sizeof(uint64_t), "cublasLtMatmulAlgo_t is 8 plain words");

std::string Serialize(const Choice& c) {
  std::string algo = kLegacyName;
  if (!c.legacy) {
    algo.clear();
    char word[17];
    for (size_t i = 0; i < kAlgoWords; ++i) {
      std::snprintf(word, sizeof word, "%016llx", static_cast<unsigned long long>(c.algo.data[i]));
      algo += word;
    }
  }
  std::string text = c.text;
  for (char& ch : text) if (ch == '\t' || ch == '\n' || ch == '\r') ch = ' ';
  return algo + "\t" + std::to_string(c.legacy ? 0 : c.workspace) + "\t" + text;
}

// False for anything but a well-formed value (the cache drops such lines when it loads the file).
bool Parse(const std::string& value, Choice* out) {
  const size_t tab1 = value.find('\t');
  const size_t tab2 = tab1 == std::string::npos ? std::string::npos : value.find('\t', tab1 + 1);
  if (tab2 == std::string::npos || tab2 == tab1 + 1) return false;
  Choice c;
  const std::string algo = value.substr(0, tab1);
  if (algo == kLegacyName) {
    c.legacy = true;
  } else {
    if (algo.size() != kAlgoWords * 16) return false;
    for (char ch : algo) if (!std::isxdigit(static_cast<unsigned char>(ch))) return false;
    c.legacy = false;
    for (size_t i = 0; i < kAlgoWords; ++i) c.algo.data[i] = std::strtoull(algo.substr(i * 16, 16).c_str(), nullptr, 16);
  }
  for (size_t i = tab1 + 1; i < tab2; ++i) if (!std::isdigit(static_cast<unsigned char>(value[i]))) return false;
  if (tab2 - tab1 - 1 > 15) return false;  // no workspace is that large; keeps strtoull in range
  c.workspace = static_cast<size_t>(std::strtoull(value.c_str() + tab1 + 1, nullptr, 10));
  c.text = value.substr(tab2 + 1);
  if (out != nullptr) *out = std::move(c);
  return true;
}

// The cache file's name: a new GPU or cublasLt version starts a new file, never reusing an answer.
std::string CacheStem(int device) { return dnn::DeviceCacheName(device) + "-cublaslt" + std::to_string(cublasLtGetVersion()); }

int AlignmentOf(const void* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  int a = 256;
  while (a > 1 && v % static_cast<uintptr_t>(a) != 0) a /= 2;
  return a;
}

// The problem, as a line's key (the device is in the file's name): type, transposes, m n k, leading
// dimensions, batch and strides, alpha and beta, bias, the pointers' alignments (the search asks for
// algorithms relying on them) and the workspace.
std::string KeyOf(const GemmDesc& d, const void* bias, size_t workspace_bytes) {
  char key[340];
  std::snprintf(key, sizeof key, "%d|%d%d|%lld,%lld,%lld|%lld,%lld,%lld|%lld|%lld,%lld,%lld|%g,%g|%d|%d,%d,%d,%d|%zu%s%s",
                static_cast<int>(d.dtype), d.trans_a ? 1 : 0, d.trans_b ? 1 : 0, static_cast<long long>(d.m), static_cast<long long>(d.n),
                static_cast<long long>(d.k), static_cast<long long>(d.lda), static_cast<long long>(d.ldb), static_cast<long long>(d.ldc),
                static_cast<long long>(d.batch), static_cast<long long>(d.stride_a), static_cast<long long>(d.stride_b),
                static_cast<long long>(d.stride_c), d.alpha, d.beta, bias != nullptr ? 1 : 0, AlignmentOf(d.a), AlignmentOf(d.b),
                AlignmentOf(d.c), bias != nullptr ? AlignmentOf(bias) : 0, workspace_bytes,
                d.c_source != nullptr ? ("|c" + std::to_string(AlignmentOf(d.c_source))).c_str() : "", d.relu ? "|relu" : "");
  return d.tf32 ? std::string(key) + "|tf32" : std::string(key);
}

Status Layout(cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld, const GemmDesc& d, int64_t stride, cublasLtMatrixLayout_t* out) {
  if (cublasStatus_t s = cublasLtMatrixLayoutCreate(out, type, rows, cols, ld); s != CUBLAS_STATUS_SUCCESS) return LtFailure("cublasLtMatrixLayoutCreate", s);
  if (d.batch > 1) {
    const int32_t count = static_cast<int32_t>(d.batch);
    cublasStatus_t s = cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride);
    if (s != CUBLAS_STATUS_SUCCESS) return LtFailure("cublasLtMatrixLayoutSetAttribute", s);
  }
  return Status{};
}

Status Describe(const GemmDesc& d, const void* bias, LtGemm* g) {
  const cudaDataType type = d.dtype == DataType::kFloat16 ? CUDA_R_16F : CUDA_R_32F;
  // fp32 math for both types: no TF32 for float32 (the references and PyTorch's baseline use none),
  // except for operands TF32 represents exactly (GemmDesc::tf32: a 3xTF32 product's split operands).
  const cublasComputeType_t compute = d.tf32 && d.dtype == DataType::kFloat32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  if (cublasStatus_t s = cublasLtMatmulDescCreate(&g->op, compute, CUDA_R_32F); s != CUBLAS_STATUS_SUCCESS) {
    return LtFailure("cublasLtMatmulDescCreate", s);
  }
  const cublasOperation_t ta = d.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = d.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasStatus_t s = cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
  if (s == CUBLAS_STATUS_SUCCESS && (bias != nullptr || d.relu)) {
    // A bias is one value per row of the column-major D, i.e. per column n of our row-major C; ReLU
    // applies after it (and after beta * C).
    const cublasLtEpilogue_t epilogue = bias != nullptr ? (d.relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS) : CUBLASLT_EPILOGUE_RELU;
    s = cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue);
    if (s == CUBLAS_STATUS_SUCCESS && bias != nullptr) s = cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
  }
  if (s != CUBLAS_STATUS_SUCCESS) return LtFailure("cublasLtMatmulDescSetAttribute", s);
  const uint64_t m = d.m, n = d.n, k = d.k;
  Status made = Layout(type, ta == CUBLAS_OP_N ? n : k, ta == CUBLAS_OP_N ? k : n, d.ldb, d, d.stride_b, &g->a);
  if (made.ok) made = Layout(type, tb == CUBLAS_OP_N ? k : m, tb == CUBLAS_OP_N ? m : k, d.lda, d, d.stride_a, &g->b);
  if (made.ok) made = Layout(type, n, m, d.ldc, d, d.stride_c, &g->c);
  return made;
}

cublasStatus_t Launch(const LtGemm& g, const cublasLtMatmulAlgo_t& algo, size_t workspace_bytes, hipStream_t stream, const GemmDesc& d) {
  const void* c = d.c_source != nullptr ? d.c_source : d.c;
  return cublasLtMatmul(g.handle, g.op, &d.alpha, d.b, g.a, d.a, g.b, &d.beta, c, g.c, d.c, g.c, &algo, g.workspace, workspace_bytes,
                        stream);
}

struct Candidate {
  cublasLtMatmulAlgo_t algo;
  size_t workspace;
  float ms = -1;  // best round; < 0: failed
};

template <class T>
T ConfigOf(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr) {
  T value{};
  size_t written = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof value, &written);
  return value;
}

// The heuristic's answers that fit the workspace, then split-K variants of the first kSplitBases
// that support it (cublasLtMatmulAlgoCheck says whether each variant is valid and what it needs).
std::vector<Candidate> Candidates(const LtGemm& g, const GemmDesc& d, const void* bias) {
  std::vector<Candidate> out;
  cublasLtMatmulPreference_t pref = nullptr;
  if (cublasLtMatmulPreferenceCreate(&pref) != CUBLAS_STATUS_SUCCESS) return out;
  const uint64_t max_workspace = g.workspace_bytes;
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace, sizeof max_workspace);
  // The plan's pointers never move, so algorithms may rely on their actual alignment.
  const uint32_t align_a = AlignmentOf(d.b), align_b = AlignmentOf(d.a), align_c = AlignmentOf(d.c);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_a, sizeof align_a);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_b, sizeof align_b);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_c, sizeof align_c);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_c, sizeof align_c);
  cublasLtMatmulHeuristicResult_t results[kHeuristics] = {};
  int count = 0;
  const cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(g.handle, g.op, g.a, g.b, g.c, g.c, pref, kHeuristics, results, &count);
  cublasLtMatmulPreferenceDestroy(pref);
  if (s != CUBLAS_STATUS_SUCCESS) return out;
  for (int i = 0; i < count; ++i) {
    if (results[i].state == CUBLAS_STATUS_SUCCESS && results[i].workspaceSize <= g.workspace_bytes) {
      out.push_back(Candidate{results[i].algo, results[i].workspaceSize});
    }
  }
  const size_t bases = std::min<size_t>(out.size(), kSplitBases);
  for (size_t i = 0; i < bases; ++i) {
    const cublasLtMatmulAlgo_t base = out[i].algo;
    int32_t supported = 0;
    size_t written = 0;
    cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT, &supported, sizeof supported, &written);
    if (supported == 0 || ConfigOf<int32_t>(base, CUBLASLT_ALGO_CONFIG_SPLITK_NUM) > 1) continue;
    uint32_t schemes = 0;
    cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK, &schemes, sizeof schemes, &written);
    for (int32_t split : kSplits) {
      if (split > d.k / 32) break;  // slices under 32 deep are all overhead
      for (uint32_t scheme : {uint32_t{CUBLASLT_REDUCTION_SCHEME_INPLACE}, uint32_t{CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE}}) {
        if ((schemes & scheme) == 0) continue;
        cublasLtMatmulAlgo_t algo = base;
        if (cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split, sizeof split) != CUBLAS_STATUS_SUCCESS) continue;
        if (cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme, sizeof scheme) != CUBLAS_STATUS_SUCCESS) continue;
        cublasLtMatmulHeuristicResult_t checked{};
        if (cublasLtMatmulAlgoCheck(g.handle, g.op, g.a, g.b, g.c, g.c, &algo, &checked) != CUBLAS_STATUS_SUCCESS) continue;
        if (checked.workspaceSize > g.workspace_bytes) continue;
        out.push_back(Candidate{algo, checked.workspaceSize});
      }
    }
  }
  (void)bias;
  return out;
}

// Mean milliseconds of kReps launches after one untimed one; < 0 when a launch fails.
template <class LaunchFn>
float TimeLaunches(hipStream_t stream, hipEvent_t begin, hipEvent_t end, const LaunchFn& launch) {
  if (!launch()) return -1;
  if (hipEventRecord(begin, stream) != hipSuccess) return -1;
  for (int r = 0; r < kReps; ++r) if (!launch()) return -1;
  if (hipEventRecord(end, stream) != hipSuccess || hipEventSynchronize(end) != hipSuccess) return -1;
  float ms = 0;
  if (hipEventElapsedTime(&ms, begin, end) != hipSuccess) return -1;
  return ms / kReps;
}

std::string Describe(const Candidate& c) {
  char text[160];
  std::snprintf(text, sizeof text, "cublasLt algo %d tile %u splitK %d (%.4f ms)", ConfigOf<int32_t>(c.algo, CUBLASLT_ALGO_CONFIG_ID),
                ConfigOf<uint32_t>(c.algo, CUBLASLT_ALGO_CONFIG_TILE_ID), ConfigOf<int32_t>(c.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM), c.ms);
  return text;
}

// Times every candidate and the baseline; the fastest wins.
Status Search(const LtGemm& g, hipStream_t stream, const GemmDesc& d, const void* bias, const std::function<Status()>& legacy, Choice* out) {
  std::vector<Candidate> candidates = Candidates(g, d, bias);
  hipEvent_t begin = nullptr, end = nullptr;
  if (hipEventCreate(&begin) != hipSuccess || hipEventCreate(&end) != hipSuccess) return Status{false, "cublasLt search: cudaEventCreate failed"};
  float legacy_ms = -1;
  for (int round = 0; round < kRounds; ++round) {
    const float ms = TimeLaunches(stream, begin, end, [&] { return legacy().ok; });
    if (ms >= 0 && (legacy_ms < 0 || ms < legacy_ms)) legacy_ms = ms;
    for (Candidate& c : candidates) {
      if (round > 0 && c.ms < 0) continue;  // failed in the first round
      const float t = TimeLaunches(stream, begin, end, [&] { return Launch(g, c.algo, c.workspace, stream, d) == CUBLAS_STATUS_SUCCESS; });
      if (t < 0) {
        c.ms = -1;
        (void)hipGetLastError();  // a rejected launch leaves no sticky error; clear the last one
        continue;
      }
      if (c.ms < 0 || t < c.ms) c.ms = t;
    }
  }
  (void)hipStreamSynchronize(stream);
  hipEventDestroy(begin);
  hipEventDestroy(end);
  const Candidate* best = nullptr;
  for (const Candidate& c : candidates) if (c.ms >= 0 && (best == nullptr || c.ms < best->ms)) best = &c;
  char baseline[96];
  std::snprintf(baseline, sizeof baseline, "cublasGemmEx %.4f ms", legacy_ms);
  if (best == nullptr || (legacy_ms >= 0 && legacy_ms <= best->ms)) {
    out->legacy = true;
    out->text = std::string(baseline) + (best != nullptr ? " beat " + Describe(*best) : " (no cublasLt candidate ran)") + ", " +
                std::to_string(candidates.size()) + " candidates";
    return Status{};
  }
  out->legacy = false;
  out->algo = best->algo;
  out->workspace = best->workspace;
  out->text = Describe(*best) + (bias != nullptr ? " with bias" : "") + " over " + baseline + ", " + std::to_string(candidates.size()) +
              " candidates";
  return Status{};
}

// A cached cublasLt algorithm is used only when the library accepts it for this problem now and its
// workspace fits: a stale or damaged line then means a search, never a bad launch.
bool Usable(const LtGemm& g, Choice* c) {
  if (c->legacy) return true;
  cublasLtMatmulHeuristicResult_t checked{};
  if (cublasLtMatmulAlgoCheck(g.handle, g.op, g.a, g.b, g.c, g.c, &c->algo, &checked) != CUBLAS_STATUS_SUCCESS) return false;
  if (checked.state != CUBLAS_STATUS_SUCCESS) return false;
  c->workspace = std::max(c->workspace, checked.workspaceSize);
  return c->workspace <= g.workspace_bytes;
}

void LogChoice(const GemmDesc& d, const std::string& text) {
  if (const char* log = std::getenv("SWITCHYARD_GEMM_SEARCH_LOG"); log != nullptr && *log != '\0' && *log != '0') {
    std::fprintf(stderr, "[switchyard gemm] %s m=%lld n=%lld k=%lld batch=%lld: %s\n", d.dtype == DataType::kFloat16 ? "fp16" : "fp32",
                 static_cast<long long>(d.m), static_cast<long long>(d.n), static_cast<long long>(d.k), static_cast<long long>(d.batch),
                 text.c_str());
  }
}

}  // namespace

Status Prepare(int device, hipStream_t stream, const GemmDesc& d, const void* bias, void* workspace, size_t workspace_bytes,
               const std::string& cache_dir, bool search, const std::function<Status()>& legacy, PreparedGemm* out) {
  // Broadcast batches (a stride of 0) stay on cublasGemmStridedBatchedEx, which documents them.
  if (d.batch > 1 && (d.stride_a == 0 || d.stride_b == 0 || bias != nullptr)) return Status{};
  auto g = std::make_shared<LtGemm>();
  Status got = HandleFor(device, &g->handle);
  if (!got.ok) return got;
  g->workspace = workspace;
  g->workspace_bytes = workspace != nullptr ? workspace_bytes : 0;
  got = Describe(d, bias, g.get());
  if (!got.ok) return got;
  const std::string dir = dnn::ResolveCacheDir(cache_dir);
  const std::string stem = CacheStem(device);
  const std::string key = KeyOf(d, bias, g->workspace_bytes);
  Choice choice;
  std::string value;
  bool from_disk = false;
  const auto well_formed = [](const std::string& v) { return Parse(v, nullptr); };
  const bool known = dnn::LookupValue(dnn::CacheKind::kGemm, dir, stem, key, well_formed, &value, &from_disk) &&
                     Parse(value, &choice) && Usable(*g, &choice);
  if (known) {
    if (from_disk) LogChoice(d, choice.text + " (cached)");
  } else if (!search) {
    out->choice = "cublasGemmEx (no cached choice; tuning off)";
    return Status{};
  } else {
    choice = Choice{};
    got = Search(*g, stream, d, bias, legacy, &choice);
    if (!got.ok) return got;
    LogChoice(d, choice.text);
    dnn::StoreValue(dnn::CacheKind::kGemm, dir, stem, key, Serialize(choice));
  }
  out->choice = from_disk && known ? choice.text + " (cached)" : choice.text;
  if (choice.legacy) return Status{};
  g->algo = choice.algo;
  g->workspace_bytes = choice.workspace;
  out->bias_fused = bias != nullptr;
  out->epilogue_fused = d.c_source != nullptr || d.relu;
  out->backend = std::move(g);
  return Status{};
}

Status Run(const PreparedGemm& prepared, hipStream_t stream, const GemmDesc& d) {
  const auto& g = *static_cast<const LtGemm*>(prepared.backend.get());
  const cublasStatus_t s = Launch(g, g.algo, g.workspace_bytes, stream, d);
  return s == CUBLAS_STATUS_SUCCESS ? Status{} : LtFailure("cublasLtMatmul", s);
}

}  // namespace switchyard::blas::lt

#endif
