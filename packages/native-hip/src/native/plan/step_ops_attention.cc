// Step op for kernels/attention.hip: the batch-1 attention chain the TS side fuses (ep-rocm
// plan/attention-fuse.ts) -- Q.K^T (scaled), an optional additive mask, Softmax and P.V -- as one
// kernel over strided views of the projections. Attribute blob (all in elements):
//   [heads, seqQ, seqK, depth, qLd, qHead, qOffset, kLd, kHead, kOffset, vLd, vHead, vOffset,
//    oLd, oHead, oOffset, maskHead, maskRow, maskCol, scale]
// Inputs q, k, v, mask (-1 when absent); output out. The check proves every view lies inside its
// buffer; out elements outside the view keep their contents.
#include <cmath>

#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::plan {
namespace {

constexpr size_t kAttentionAttrs = 20;

struct AttentionState {
  kernels::AttentionShape shape;
  int64_t offsets[4] = {};  // q, k, v, out
};

// Elements a view of `rows` rows of `cols` elements, rows `ld` apart, repeated for each head at
// `head` apart, reaches from `offset`; -1 when malformed.
int64_t Extent(int64_t offset, int64_t heads, int64_t head, int64_t rows, int64_t ld, int64_t cols) {
  if (offset < 0 || heads < 1 || rows < 1 || cols < 1 || head < 0 || ld < 0) return -1;
  return offset + (heads - 1) * head + (rows - 1) * ld + cols;
}

std::string CheckAttention(StepArgs* args) {
  std::string p = ExpectArity(*args, 3, 4, 1);
  if (!p.empty()) return p;
  const int dtype = args->out(0).dtype;
  if (dtype != kFloat32 && dtype != kFloat16) return "operands must be float32 or float16";
  for (const TensorRef* t : args->inputs) {
    if (t != nullptr && t->dtype != dtype) return "operands must share the output's type";
  }
  if (args->attrs.size() != kAttentionAttrs) return "needs 19 view attributes and a scale";
  for (size_t i = 0; i + 1 < kAttentionAttrs; ++i) {
    const double a = args->attrs[i];
    if (!(a >= 0 && a <= 9.0e15 && a == std::floor(a))) return "view attributes must be whole non-negative numbers";
  }
  if (!std::isfinite(args->attrs[19])) return "the scale must be finite";
  const auto at = [&](size_t i) { return static_cast<int64_t>(args->attrs[i]); };
  auto state = std::make_shared<AttentionState>();
  kernels::AttentionShape& s = state->shape;
  s.heads = at(0), s.seq_q = at(1), s.seq_k = at(2), s.depth = at(3);
  s.q_ld = at(4), s.q_head = at(5), s.k_ld = at(7), s.k_head = at(8), s.v_ld = at(10), s.v_head = at(11);
  s.o_ld = at(13), s.o_head = at(14), s.m_head = at(16), s.m_row = at(17), s.m_col = at(18);
  s.scale = static_cast<float>(args->attrs[19]);
  state->offsets[0] = at(6), state->offsets[1] = at(9), state->offsets[2] = at(12), state->offsets[3] = at(15);
  if (s.depth > kernels::kAttentionMaxDepth) return "head depth above " + std::to_string(kernels::kAttentionMaxDepth);
  const int64_t q = Extent(at(6), s.heads, s.q_head, s.seq_q, s.q_ld, s.depth);
  const int64_t k = Extent(at(9), s.heads, s.k_head, s.seq_k, s.k_ld, s.depth);
  const int64_t v = Extent(at(12), s.heads, s.v_head, s.seq_k, s.v_ld, s.depth);
  const int64_t o = Extent(at(15), s.heads, s.o_head, s.seq_q, s.o_ld, s.depth);
  if (q < 0 || k < 0 || v < 0 || o < 0) return "a view is malformed (an empty side or a negative offset)";
  if (q > args->in(0).count() || k > args->in(1).count() || v > args->in(2).count() || o > args->out(0).count()) {
    return "a view reaches past its buffer";
  }
  if (args->inputs.size() > 3 && args->inputs[3] != nullptr) {
    const int64_t m = (s.heads - 1) * s.m_head + (s.seq_q - 1) * s.m_row + (s.seq_k - 1) * s.m_col + 1;
    if (m > args->in(3).count()) return "the mask's strides reach past it";
  }
  args->state = state;
  return "";
}

hipError_t LaunchAttentionStep(const StepArgs& args) {
  const auto* state = static_cast<const AttentionState*>(args.state.get());
  const size_t element = DTypeSize(args.out(0).dtype);
  const auto view = [&](const void* base, int64_t offset) { return static_cast<const uint8_t*>(base) + offset * element; };
  const void* mask = args.inputs.size() > 3 && args.inputs[3] != nullptr ? args.inputs[3]->data : nullptr;
  return kernels::LaunchAttention(args.out(0).dtype == kFloat16 ? kernels::DType::kFloat16 : kernels::DType::kFloat32,
                                  view(args.in(0).data, state->offsets[0]), view(args.in(1).data, state->offsets[1]),
                                  view(args.in(2).data, state->offsets[2]), mask,
                                  static_cast<uint8_t*>(args.out(0).data) + state->offsets[3] * element, state->shape, args.stream);
}

}  // namespace

SWITCHYARD_STEP_OP("Attention", CheckAttention, LaunchAttentionStep, &kernels::LaunchAttention != nullptr);

}  // namespace switchyard::plan
