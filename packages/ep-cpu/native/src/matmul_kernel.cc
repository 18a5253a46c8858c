#include "matmul_kernel.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "engine.h"
#include <switchyard/errors.h>

namespace switchyard {

namespace {

void Require(bool ok, const std::string& message) {
  if (!ok) throw CodedError("INVALID_ARGUMENT", "MatMul: " + message);
}

Dims LeftPad(const Dims& dims, size_t rank) {
  Dims out(rank - dims.size(), 1);
  out.insert(out.end(), dims.begin(), dims.end());
  return out;
}

}  // namespace

Dims MatMulOutputDims(const MatMulParams& p) {
  Require(p.a.size() >= 2 && p.b.size() >= 2, "operands must have rank >= 2, got A " + DimsToString(p.a) + " and B " + DimsToString(p.b));
  const size_t rank = std::max(p.a.size(), p.b.size());
  Require(rank <= DNNL_MAX_NDIMS, "rank " + std::to_string(rank) + " exceeds oneDNN's " + std::to_string(DNNL_MAX_NDIMS));
  ElementCount(p.a, "MatMul: A");
  ElementCount(p.b, "MatMul: B");
  const Dims a = LeftPad(p.a, rank), b = LeftPad(p.b, rank);
  Require(a[rank - 1] == b[rank - 2], "inner dimensions differ: A " + DimsToString(p.a) + " × B " + DimsToString(p.b));
  Dims out(rank);
  for (size_t i = 0; i + 2 < rank; ++i) {
    Require(a[i] == b[i] || a[i] == 1 || b[i] == 1,
            "batch dimensions of A " + DimsToString(p.a) + " and B " + DimsToString(p.b) + " do not broadcast");
    out[i] = std::max(a[i], b[i]);
  }
  out[rank - 2] = a[rank - 2];
  out[rank - 1] = b[rank - 1];
  ElementCount(out, "MatMul: output");
  return out;
}

MatMulKernel::MatMulKernel(const MatMulParams& params, const float* constB, const float* constBias) : params_(params) {
  outputDims_ = MatMulOutputDims(params_);
  const size_t rank = outputDims_.size();
  userA_ = PlainDesc(LeftPad(params_.a, rank));
  userB_ = PlainDesc(LeftPad(params_.b, rank));
  userDst_ = PlainDesc(outputDims_);
  Dims biasDims(rank, 1);
  biasDims[rank - 1] = outputDims_[rank - 1];
  userBias_ = PlainDesc(biasDims);

  if (params_.epilogue.sum) throw CodedError("INVALID_ARGUMENT", "MatMul: a sum epilogue is not supported");
  if (constB && params_.b.size() == 2 && PointwiseSplitsWell(ElementCount(params_.a, "MatMul: A") / params_.a.back(), params_.threads)) {
    // Every batch dim comes from A, so the product is one [M, K] × [K, N] over A's rows.
    PointwiseGemmParams pw;
    pw.m = ElementCount(params_.a, "MatMul: A") / params_.a.back();
    pw.k = params_.b[0];
    pw.n = params_.b[1];
    pw.hasBias = params_.hasBias;
    pw.epilogue = params_.epilogue;
    pw.threads = params_.threads;
    pointwise_.emplace(pw, constB, constBias);
    if (pointwise_->Fast()) return;
    pointwise_.reset();
  }
  dnnl::primitive_attr attr = UserScratchpadAttr();
  AppendEpilogue(attr, params_.epilogue);
  ThreadScope threads(params_.threads);
  // A constant B may take oneDNN's preferred layout (packed once here); a runtime B stays plain.
  const auto bDesc = constB ? AnyDesc(LeftPad(params_.b, rank)) : userB_;
  if (params_.hasBias) {
    dnnl::matmul::desc desc(userA_, bDesc, userBias_, userDst_);
    pd_ = dnnl::matmul::primitive_desc(desc, attr, CpuEngine());
  } else {
    dnnl::matmul::desc desc(userA_, bDesc, userDst_);
    pd_ = dnnl::matmul::primitive_desc(desc, attr, CpuEngine());
  }
  primitive_ = dnnl::matmul(pd_);

  if (constB) {
    if (pd_.weights_desc() == userB_) {
      // A plain copy, placed 16 bytes past a 64-byte boundary, as JS typed arrays usually are.
      // Measured with oneDNN 2.6 gemm:jit at one thread (AVX2): a 64-byte-aligned plain B of
      // [768, 3072] (BERT's FFN up-projection, A [128, 768]) takes 15-16 ms, the same B 16 bytes off
      // 8-10 ms; other shapes measured were equal within noise. Alignment still suits SSE loads.
      constexpr size_t kOffset = 16;
      const size_t bytes = userB_.get_size();
      packedBStorage_ = std::shared_ptr<void>(std::aligned_alloc(64, (bytes + kOffset + 63) / 64 * 64), std::free);
      if (!packedBStorage_) throw std::bad_alloc();
      void* data = static_cast<char*>(packedBStorage_.get()) + kOffset;
      std::memcpy(data, constB, bytes);
      packedB_ = dnnl::memory(userB_, CpuEngine(), data);
    } else {
      packedB_ = dnnl::memory(pd_.weights_desc(), CpuEngine());
      Reorder reorder(userB_, pd_.weights_desc());
      dnnl::memory user(userB_, CpuEngine(), const_cast<float*>(constB));
      auto stream = NewStream();
      reorder.Execute(stream, user, *packedB_);
      stream.wait();
    }
  }
  if (params_.hasBias && constBias) {
    packedBias_ = dnnl::memory(userBias_, CpuEngine());
    std::memcpy(packedBias_->get_data_handle(), constBias, userBias_.get_size());
  }
}

void MatMulKernel::Execute(const float* a, const float* b, const float* bias, float* y) const {
  if (pointwise_) return pointwise_->Execute(a, bias, y);
  ThreadScope threads(params_.threads);
  const auto& engine = CpuEngine();
  auto stream = NewStream();
  dnnl::memory bMem;
  if (packedB_) {
    bMem = *packedB_;
  } else {
    if (!b) throw CodedError("INVALID_ARGUMENT", "MatMul: B was not packed at construction and none was given");
    bMem = dnnl::memory(userB_, engine, const_cast<float*>(b));
  }
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, dnnl::memory(userA_, engine, const_cast<float*>(a))},
                                                 {DNNL_ARG_WEIGHTS, bMem},
                                                 {DNNL_ARG_DST, dnnl::memory(userDst_, engine, y)}};
  if (params_.hasBias) {
    if (packedBias_) {
      args.emplace(DNNL_ARG_BIAS, *packedBias_);
    } else {
      if (!bias) throw CodedError("INVALID_ARGUMENT", "MatMul: bias was not packed at construction and none was given");
      args.emplace(DNNL_ARG_BIAS, dnnl::memory(userBias_, engine, const_cast<float*>(bias)));
    }
  }
  ExecuteWithScratchpad(primitive_, stream, std::move(args), pd_.scratchpad_desc());
  stream.wait();
}

void MatMulKernel::UnpackB(float* out) const {
  if (pointwise_) return pointwise_->UnpackB(out);
  if (!packedB_) throw CodedError("INVALID_ARGUMENT", "MatMul: B was not packed at construction: there is nothing to unpack");
  ThreadScope threads(params_.threads);
  CopyIntoLayout(*packedB_, userB_, out);
}

std::string MatMulKernel::implementation() const {
  return pointwise_ ? pointwise_->implementation() + " (as 1x1 conv)" : pd_.impl_info_str();
}

}  // namespace switchyard
