#include "strided_matmul_kernel.h"

#include <algorithm>

#include <omp.h>

#include "engine.h"
#include <switchyard/errors.h>
#include "scratchpad.h"

namespace switchyard {

namespace {

void Require(bool ok, const std::string& message) {
  if (!ok) throw CodedError("INVALID_ARGUMENT", "StridedMatMul: " + message);
}

Dims RowMajorStrides(const Dims& dims) {
  Dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  return strides;
}

// `perm` checked to be a permutation of 0..rank-1 (empty becomes the identity).
std::vector<int> CheckedPerm(const std::vector<int>& perm, size_t rank, const char* what) {
  if (perm.empty()) {
    std::vector<int> id(rank);
    for (size_t i = 0; i < rank; ++i) id[i] = static_cast<int>(i);
    return id;
  }
  Require(perm.size() == rank, std::string(what) + " must have " + std::to_string(rank) + " entries");
  std::vector<bool> seen(rank, false);
  for (int p : perm) {
    Require(p >= 0 && static_cast<size_t>(p) < rank && !seen[p], std::string(what) + " is not a permutation");
    seen[p] = true;
  }
  return perm;
}

// A size-1 dim's stride never addresses anything, but a permutation can leave one that makes a view
// look transposed (e.g. [1, N] with strides [1, 1]), and oneDNN's gemm then fails with invalid_arguments.
// Such strides are set to what a row-major layout would have: the next inner dim's extent.
dnnl::memory::desc StridedDesc(const Dims& dims, Dims strides) {
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    if (dims[i] != 1) continue;
    strides[i] = i + 1 < static_cast<int>(dims.size()) ? strides[i + 1] * dims[i + 1] : 1;
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

bool IsReference(const dnnl::matmul::primitive_desc& pd) { return std::string(pd.impl_info_str()).rfind("ref", 0) == 0; }

// y (dense row-major, `dims`) += mask broadcast to it (`mask`: the same rank, each dim 1 or dims'). The
// innermost dims where the two agree are one contiguous run of both; the outer index walks the rest.
void AddMask(float* y, const float* mask, const Dims& dims, const Dims& maskDims, int threads) {
  const int rank = static_cast<int>(dims.size());
  int inner = rank;
  int64_t run = 1;
  while (inner > 0 && maskDims[inner - 1] == dims[inner - 1]) run *= dims[--inner];
  const Dims maskStrides = RowMajorStrides(maskDims);
  int64_t outer = 1;
  for (int i = 0; i < inner; ++i) outer *= dims[i];
  const int team = outer * run >= (int64_t{1} << 16) ? std::max(1, threads > 0 ? threads : omp_get_max_threads()) : 1;
#pragma omp parallel for num_threads(team) schedule(static)
  for (int64_t o = 0; o < outer; ++o) {
    // The mask's offset of outer index o: its digits over dims[0..inner), only where the mask is not broadcast.
    int64_t rest = o, offset = 0;
    for (int i = inner - 1; i >= 0; --i) {
      const int64_t digit = rest % dims[i];
      rest /= dims[i];
      if (maskDims[i] != 1) offset += digit * maskStrides[i];
    }
    float* out = y + o * run;
    const float* m = mask + offset;
    for (int64_t j = 0; j < run; ++j) out[j] += m[j];
  }
}

// The transposed view of a dense buffer of `dims`: permuted dims with the matching strides.
dnnl::memory::desc PermutedView(const Dims& dims, const std::vector<int>& perm, Dims* viewDims) {
  const Dims strides = RowMajorStrides(dims);
  Dims d(dims.size()), s(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    d[i] = dims[perm[i]];
    s[i] = strides[perm[i]];
  }
  *viewDims = d;
  return StridedDesc(d, s);
}

}  // namespace

StridedMatMulKernel::StridedMatMulKernel(const StridedMatMulParams& params) : params_(params) {
  const size_t rank = params_.a.size();
  Require(rank >= 2 && params_.b.size() == rank, "A and B must have the same rank >= 2, got A " + DimsToString(params_.a) + " and B " + DimsToString(params_.b));
  Require(rank <= DNNL_MAX_NDIMS, "rank " + std::to_string(rank) + " exceeds oneDNN's " + std::to_string(DNNL_MAX_NDIMS));
  ElementCount(params_.a, "StridedMatMul: A");
  ElementCount(params_.b, "StridedMatMul: B");
  const auto permA = CheckedPerm(params_.permA, rank, "permA");
  const auto permB = CheckedPerm(params_.permB, rank, "permB");
  const auto permY = CheckedPerm(params_.permY, rank, "permY");

  Dims av, bv;
  a_ = PermutedView(params_.a, permA, &av);
  b_ = PermutedView(params_.b, permB, &bv);
  Require(av[rank - 1] == bv[rank - 2], "inner dimensions differ: A' " + DimsToString(av) + " × B' " + DimsToString(bv));
  Dims product(rank);
  for (size_t i = 0; i + 2 < rank; ++i) {
    Require(av[i] == bv[i] || av[i] == 1 || bv[i] == 1, "batch dimensions of A' " + DimsToString(av) + " and B' " + DimsToString(bv) + " do not broadcast");
    product[i] = std::max(av[i], bv[i]);
  }
  product[rank - 2] = av[rank - 2];
  product[rank - 1] = bv[rank - 1];

  // Y = permute(product, permY) is dense; the product is written through Y's strides, permuted back.
  outputDims_.resize(rank);
  for (size_t i = 0; i < rank; ++i) outputDims_[i] = product[permY[i]];
  ElementCount(outputDims_, "StridedMatMul: output");
  const Dims yStrides = RowMajorStrides(outputDims_);
  Dims productStrides(rank);
  for (size_t i = 0; i < rank; ++i) productStrides[permY[i]] = yStrides[i];
  y_ = StridedDesc(product, productStrides);

  dnnl::primitive_attr attr = UserScratchpadAttr();
  if (params_.scale != 1.0f) attr.set_output_scales(0, {params_.scale});
  if (params_.hasMask) {
    // oneDNN 2.6's gemm:jit matmul reads a binary post-op's operand out of bounds when dst is not
    // dense row-major (a mask with a permuted Y crashed the process), so that pair is refused.
    bool permuted = false;
    for (size_t i = 0; i < rank; ++i) permuted = permuted || permY[i] != static_cast<int>(i);
    if (permuted) throw CodedError("UNSUPPORTED", "StridedMatMul: a mask with a non-identity permY is not supported");
    Require(params_.mask.size() <= rank, "mask " + DimsToString(params_.mask) + " has a higher rank than the product " + DimsToString(product));
    Dims mask(rank - params_.mask.size(), 1);
    mask.insert(mask.end(), params_.mask.begin(), params_.mask.end());
    for (size_t i = 0; i < rank; ++i) {
      Require(mask[i] == 1 || mask[i] == product[i], "mask " + DimsToString(params_.mask) + " does not broadcast to the product " + DimsToString(product) + " without widening it");
    }
    ElementCount(mask, "StridedMatMul: mask");
    mask_ = PlainDesc(mask);
    dnnl::post_ops ops;
    ops.append_binary(dnnl::algorithm::binary_add, mask_);
    attr.set_post_ops(ops);
  }
  ThreadScope threads(params_.threads);
  dnnl::matmul::desc desc(a_, b_, y_);
  pd_ = dnnl::matmul::primitive_desc(desc, attr, CpuEngine());
  if (params_.hasMask && IsReference(pd_)) {
    // A mask broadcast over the leading dims only (a windowed attention's bias [1, heads, n, n] over
    // [windows, heads, n, n]: post-op mask 14) got oneDNN 2.6's reference matmul, ~100x slower than the
    // gemm; without the post-op the gemm serves it, and the add after costs one pass over Y.
    dnnl::primitive_attr plain = UserScratchpadAttr();
    if (params_.scale != 1.0f) plain.set_output_scales(0, {params_.scale});
    dnnl::matmul::primitive_desc alternative(desc, plain, CpuEngine());
    if (!IsReference(alternative)) {
      pd_ = alternative;
      addMaskAfter_ = true;
      product_ = product;
      maskDims_ = mask_.dims();
    }
  }
  primitive_ = dnnl::matmul(pd_);
}

void StridedMatMulKernel::Execute(const float* a, const float* b, const float* mask, float* y) const {
  ThreadScope threads(params_.threads);
  const auto& engine = CpuEngine();
  auto stream = NewStream();
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, dnnl::memory(a_, engine, const_cast<float*>(a))},
                                                 {DNNL_ARG_WEIGHTS, dnnl::memory(b_, engine, const_cast<float*>(b))},
                                                 {DNNL_ARG_DST, dnnl::memory(y_, engine, y)}};
  if (params_.hasMask) {
    if (!mask) throw CodedError("INVALID_ARGUMENT", "StridedMatMul: built with a mask but none was given");
    if (!addMaskAfter_) args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, dnnl::memory(mask_, engine, const_cast<float*>(mask)));
  }
  ExecuteWithScratchpad(primitive_, stream, std::move(args), pd_.scratchpad_desc());
  stream.wait();
  // Y is the product itself here (a mask comes only with the identity permY).
  if (addMaskAfter_) AddMask(y, mask, product_, maskDims_, params_.threads);
}

}  // namespace switchyard
