#include "gemm_kernel.h"

#include <algorithm>
#include <cstring>

#include "channel_split.h"
#include "engine.h"
#include <switchyard/errors.h>

namespace switchyard {

namespace {

void Require(bool ok, const std::string& message) {
  if (!ok) throw CodedError("INVALID_ARGUMENT", "Gemm: " + message);
}

// A [rows, cols] matrix stored row-major, or its transpose viewed in place (column-major strides).
dnnl::memory::desc MatrixDesc(int64_t rows, int64_t cols, bool transposed) {
  if (!transposed) return PlainDesc({rows, cols});
  return dnnl::memory::desc({rows, cols}, dnnl::memory::data_type::f32, Dims{1, rows});
}

// C's dims as exactly [cm, cn] (leading 1s for lower ranks).
Dims CMatrix(const Dims& c) {
  Dims out(2 - c.size(), 1);
  out.insert(out.end(), c.begin(), c.end());
  return out;
}

}  // namespace

Dims GemmOutputDims(const GemmParams& p) {
  Require(p.a.size() == 2 && p.b.size() == 2, "A and B must be 2-D, got A " + DimsToString(p.a) + " and B " + DimsToString(p.b));
  ElementCount(p.a, "Gemm: A");
  ElementCount(p.b, "Gemm: B");
  const int64_t m = p.transA ? p.a[1] : p.a[0], k = p.transA ? p.a[0] : p.a[1];
  const int64_t kb = p.transB ? p.b[1] : p.b[0], n = p.transB ? p.b[0] : p.b[1];
  Require(k == kb, "inner dimensions differ: op(A) is " + std::to_string(m) + "×" + std::to_string(k) + ", op(B) is " +
                       std::to_string(kb) + "×" + std::to_string(n));
  if (p.hasC) {
    Require(p.c.size() <= 2, "C must have rank <= 2, got " + DimsToString(p.c));
    const Dims c = CMatrix(p.c);
    Require((c[0] == 1 || c[0] == m) && (c[1] == 1 || c[1] == n), "C " + DimsToString(p.c) + " does not broadcast to [" +
                                                                       std::to_string(m) + ", " + std::to_string(n) + "]");
  }
  return {m, n};
}

GemmKernel::GemmKernel(const GemmParams& params, const float* constB, const float* constC) : params_(params) {
  outputDims_ = GemmOutputDims(params_);
  const GemmParams& p = params_;
  m_ = outputDims_[0];
  n_ = outputDims_[1];
  k_ = p.transA ? p.a[0] : p.a[1];
  userA_ = MatrixDesc(m_, k_, p.transA);
  userB_ = MatrixDesc(k_, n_, p.transB);
  userDst_ = PlainDesc(outputDims_);
  userBias_ = PlainDesc({1, n_});

  const Dims c = p.hasC ? CMatrix(p.c) : Dims{};
  if (p.hasC && p.beta != 0.0f) {
    // The common Linear layer (C a row of N, alpha = beta = 1) is oneDNN's bias; anything else is
    // dst pre-filled with broadcast C and a sum post-op scaled by beta, alpha as the output scale.
    cMode_ = (p.alpha == 1.0f && p.beta == 1.0f && c[0] == 1 && c[1] == n_) ? CMode::kBias : CMode::kSum;
  }

  if (TrySkinny(constB, constC)) return;
  if (TrySplitColumns(constB, constC)) return;
  if (constB && !p.transA && p.alpha == 1.0f && cMode_ != CMode::kSum && PointwiseSplitsWell(m_, p.threads)) {
    PointwiseGemmParams pw;
    pw.m = m_;
    pw.k = k_;
    pw.n = n_;
    pw.transB = p.transB;
    pw.hasBias = cMode_ == CMode::kBias;
    pw.threads = p.threads;
    pointwise_.emplace(pw, constB, pw.hasBias ? constC : nullptr);
    if (pointwise_->Fast()) return;
    pointwise_.reset();
  }

  dnnl::primitive_attr attr = UserScratchpadAttr();
  if (p.alpha != 1.0f) attr.set_output_scales(0, {p.alpha});
  if (cMode_ == CMode::kSum) {
    dnnl::post_ops ops;
    ops.append_sum(p.beta);
    attr.set_post_ops(ops);
  }
  ThreadScope threads(p.threads);
  const auto bDesc = constB ? AnyDesc({k_, n_}) : userB_;
  if (cMode_ == CMode::kBias) {
    dnnl::matmul::desc desc(userA_, bDesc, userBias_, userDst_);
    pd_ = dnnl::matmul::primitive_desc(desc, attr, CpuEngine());
  } else {
    dnnl::matmul::desc desc(userA_, bDesc, userDst_);
    pd_ = dnnl::matmul::primitive_desc(desc, attr, CpuEngine());
  }
  primitive_ = dnnl::matmul(pd_);

  if (constB) {
    packedB_ = dnnl::memory(pd_.weights_desc(), CpuEngine());
    dnnl::memory user(userB_, CpuEngine(), const_cast<float*>(constB));
    Reorder reorder(userB_, pd_.weights_desc());
    auto stream = NewStream();
    reorder.Execute(stream, user, *packedB_);
    stream.wait();
  }
  if (cMode_ != CMode::kNone && constC) packedC_.assign(constC, constC + c[0] * c[1]);
}

void GemmKernel::FillBroadcastC(const float* c, float* y) const {
  const Dims cm = CMatrix(params_.c);
  const int64_t rowStride = cm[0] == 1 ? 0 : cm[1];
  for (int64_t i = 0; i < m_; ++i) {
    const float* row = c + i * rowStride;
    float* out = y + i * n_;
    if (cm[1] == 1) {
      for (int64_t j = 0; j < n_; ++j) out[j] = row[0];
    } else {
      std::memcpy(out, row, sizeof(float) * n_);
    }
  }
}

bool GemmKernel::TrySkinny(const float* constB, const float* constC) {
  const GemmParams& p = params_;
  const AlgorithmMode mode = WithEnvironment(p.skinny, "SWITCHYARD_CPU_SKINNY_GEMM");
  // A Linear layer (constant B, A as given, alpha 1, C absent or a constant row) of few rows.
  const bool linear = constB && !p.transA && p.alpha == 1.0f && (cMode_ == CMode::kNone || (cMode_ == CMode::kBias && constC));
  if (mode == AlgorithmMode::kNever || !linear || m_ > SkinnyGemm::kMaxRows) return false;
  skinny_ = std::make_unique<SkinnyGemm>(k_, n_, p.transB, constB, cMode_ == CMode::kBias ? constC : nullptr, p.threads);
  return true;
}

bool GemmKernel::TrySplitColumns(const float* constB, const float* constC) {
  const GemmParams& p = params_;
  const int threads = p.threads > 0 ? p.threads : DefaultThreads();
  const AlgorithmMode mode = WithEnvironment(p.channelSplit, "SWITCHYARD_CPU_CHANNEL_SPLIT");
  // One row of a Linear layer with packable B [N, K] (its columns' rows are contiguous) and C a constant row or absent.
  const bool linear = constB && p.transB && !p.transA && p.alpha == 1.0f && (cMode_ == CMode::kNone || (cMode_ == CMode::kBias && constC));
  if (mode == AlgorithmMode::kNever || !linear || m_ != 1 || threads < 2 || n_ < 8 * threads) return false;
  // Slices of whole 8-column blocks, as even as they come.
  const int64_t blocks = (n_ + 7) / 8;
  for (int t = 0; t < threads; ++t) {
    const int64_t first = std::min(n_, blocks * t / threads * 8), last = std::min(n_, blocks * (t + 1) / threads * 8);
    PointwiseGemmParams part;
    part.m = 1;
    part.k = k_;
    part.n = last - first;
    part.transB = true;
    part.hasBias = cMode_ == CMode::kBias;
    part.threads = 1;
    auto gemm = std::make_unique<PointwiseGemm>(part, constB + first * k_, part.hasBias ? constC + first : nullptr);
    if (!gemm->Fast()) {  // without a jit 1x1 kernel the split loses to matmul
      columnParts_.clear();
      columnStarts_.clear();
      return false;
    }
    columnParts_.push_back(std::move(gemm));
    columnStarts_.push_back(first);
  }
  return true;
}

void GemmKernel::Execute(const float* a, const float* b, const float* c, float* y) const {
  if (skinny_) return skinny_->Execute(a, m_, y);
  if (!columnParts_.empty()) {
    RunParts(columnParts_, [&](const PointwiseGemm& part, int i) { part.Execute(a, nullptr, y + columnStarts_[i]); });
    return;
  }
  if (pointwise_) return pointwise_->Execute(a, c, y);
  ThreadScope threads(params_.threads);
  const auto& engine = CpuEngine();
  auto stream = NewStream();
  dnnl::memory bMem;
  if (packedB_) {
    bMem = *packedB_;
  } else {
    if (!b) throw CodedError("INVALID_ARGUMENT", "Gemm: B was not packed at construction and none was given");
    bMem = dnnl::memory(userB_, engine, const_cast<float*>(b));
  }
  const float* cData = packedC_.empty() ? c : packedC_.data();
  if (cMode_ != CMode::kNone && !cData) throw CodedError("INVALID_ARGUMENT", "Gemm: C was not packed at construction and none was given");
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, dnnl::memory(userA_, engine, const_cast<float*>(a))},
                                                 {DNNL_ARG_WEIGHTS, bMem},
                                                 {DNNL_ARG_DST, dnnl::memory(userDst_, engine, y)}};
  if (cMode_ == CMode::kBias) args.emplace(DNNL_ARG_BIAS, dnnl::memory(userBias_, engine, const_cast<float*>(cData)));
  if (cMode_ == CMode::kSum) FillBroadcastC(cData, y);
  ExecuteWithScratchpad(primitive_, stream, std::move(args), pd_.scratchpad_desc());
  stream.wait();
}

void GemmKernel::UnpackB(float* out) const {
  if (skinny_) return skinny_->UnpackB(out);
  if (!columnParts_.empty()) {
    // Each part holds whole rows of B [N, K] (the split needs transB): row `first` starts at first·K.
    for (size_t i = 0; i < columnParts_.size(); ++i) columnParts_[i]->UnpackB(out + columnStarts_[i] * k_);
    return;
  }
  if (pointwise_) return pointwise_->UnpackB(out);
  if (!packedB_) throw CodedError("INVALID_ARGUMENT", "Gemm: B was not packed at construction: there is nothing to unpack");
  ThreadScope threads(params_.threads);
  CopyIntoLayout(*packedB_, userB_, out);  // userB_ views B as given (a strided view when transB)
}

const char* GemmKernel::cMode() const {
  switch (cMode_) {
    case CMode::kBias: return "bias";
    case CMode::kSum: return "sum";
    default: return "none";
  }
}

std::string GemmKernel::implementation() const {
  if (skinny_) return skinny_->implementation();
  if (!columnParts_.empty()) {
    return columnParts_[0]->implementation() + " (as 1x1 conv) x" + std::to_string(columnParts_.size()) + " (output-channel split)";
  }
  return pointwise_ ? pointwise_->implementation() + " (as 1x1 conv)" : pd_.impl_info_str();
}

}  // namespace switchyard
