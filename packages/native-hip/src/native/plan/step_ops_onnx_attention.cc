// Step op for ONNX Attention (opset 23) on kernels/attention.hip: the node itself, not a fused chain.
// Attribute blob:
//   [batch, qHeads, kvHeads, seqQ, seqK, depth, packed, causal, scale, maskB, maskH, maskQ, maskW]
// packed = 1: Q/K/V/Y are 3-D [batch, seq, heads * depth]; 0: 4-D [batch, heads, seq, depth].
// Inputs q, k, v, attn_mask (-1 when absent: then the mask dims are 0); output Y, Q's layout.
// The mask is [maskB, maskH, maskQ, maskW] (the EP pads its rank to 4), each of the first three 1 or
// the full size, maskW <= seqK (keys past it are masked); bool (0 = masked) or additive of Q's type.
// K/V heads are shared by qHeads / kvHeads query heads (GQA). The head size of V must equal Q's, and
// there is no KV cache: the EP declines the other forms when it claims the node.
#include <cmath>

#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::plan {
namespace {

constexpr size_t kOnnxAttentionAttrs = 13;

std::string CheckOnnxAttention(StepArgs* args) {
  std::string p = ExpectArity(*args, 3, 4, 1);
  if (!p.empty()) return p;
  const int dtype = args->in(0).dtype;
  if (dtype != kFloat32 && dtype != kFloat16) return "Q, K and V must be float32 or float16";
  if (args->in(1).dtype != dtype || args->in(2).dtype != dtype || args->out(0).dtype != dtype) return "Q, K, V and Y must share one type";
  if (args->attrs.size() != kOnnxAttentionAttrs) return "needs 13 attributes (sizes, layout, causal, scale, mask dims)";
  for (size_t i = 0; i < kOnnxAttentionAttrs; ++i) {
    if (i == 8) continue;
    const double a = args->attrs[i];
    if (!(a >= 0 && a <= 9.0e15 && a == std::floor(a))) return "sizes must be whole non-negative numbers";
  }
  if (!std::isfinite(args->attrs[8])) return "the scale must be finite";
  const auto at = [&](size_t i) { return static_cast<int64_t>(args->attrs[i]); };
  const int64_t batch = at(0), q_heads = at(1), kv_heads = at(2), seq_q = at(3), seq_k = at(4), depth = at(5);
  const bool packed = at(6) != 0;
  if (batch < 1 || q_heads < 1 || kv_heads < 1 || seq_q < 1 || seq_k < 1 || depth < 1) return "every size must be at least 1";
  if (q_heads % kv_heads != 0) return "q heads must be a multiple of kv heads";
  if (depth > kernels::kAttentionMaxDepth) return "head size above " + std::to_string(kernels::kAttentionMaxDepth);
  if (batch * q_heads > 2147483647) return "too many heads";
  const int64_t q_count = batch * q_heads * seq_q * depth, kv_count = batch * kv_heads * seq_k * depth;
  if (args->in(0).count() != q_count || args->out(0).count() != q_count) return "Q and Y must hold batch * qHeads * seqQ * depth elements";
  if (args->in(1).count() != kv_count || args->in(2).count() != kv_count) return "K and V must hold batch * kvHeads * seqK * depth elements";

  auto s = std::make_shared<kernels::AttentionShape>();
  s->heads = batch * q_heads, s->heads_per_batch = q_heads, s->kv_group = q_heads / kv_heads;
  s->seq_q = seq_q, s->seq_k = seq_k, s->depth = depth;
  s->scale = static_cast<float>(args->attrs[8]);
  s->causal = at(7) != 0;
  s->empty_rows_zero = true;
  // Strides of each operand: (batch, head, row); elements within a row are contiguous.
  const auto strides = [&](int64_t heads, int64_t seq, int64_t* b, int64_t* h, int64_t* ld) {
    *b = heads * seq * depth;
    if (packed) *h = depth, *ld = heads * depth;
    else *h = seq * depth, *ld = depth;
  };
  strides(q_heads, seq_q, &s->q_batch, &s->q_head, &s->q_ld);
  strides(kv_heads, seq_k, &s->k_batch, &s->k_head, &s->k_ld);
  strides(kv_heads, seq_k, &s->v_batch, &s->v_head, &s->v_ld);
  strides(q_heads, seq_q, &s->o_batch, &s->o_head, &s->o_ld);

  const bool has_mask = args->inputs.size() > 3 && args->inputs[3] != nullptr;
  if (has_mask) {
    const TensorRef& m = args->in(3);
    if (m.dtype != kBool && m.dtype != dtype) return "attn_mask must be bool or Q's type";
    const int64_t mb = at(9), mh = at(10), mq = at(11), mw = at(12);
    if ((mb != 1 && mb != batch) || (mh != 1 && mh != q_heads) || (mq != 1 && mq != seq_q) || mw < 1 || mw > seq_k) {
      return "attn_mask dims do not broadcast to [batch, qHeads, seqQ, <= seqK]";
    }
    if (m.count() != mb * mh * mq * mw) return "attn_mask dims do not match its buffer";
    s->mask_bool = m.dtype == kBool;
    s->mask_cols = mw;
    s->m_col = 1;
    s->m_row = mq == 1 ? 0 : mw;
    s->m_head = mh == 1 ? 0 : mq * mw;
    s->m_batch = mb == 1 ? 0 : mh * mq * mw;
  }
  args->state = s;
  return "";
}

hipError_t LaunchOnnxAttentionStep(const StepArgs& args) {
  const auto* s = static_cast<const kernels::AttentionShape*>(args.state.get());
  const void* mask = args.inputs.size() > 3 && args.inputs[3] != nullptr ? args.inputs[3]->data : nullptr;
  return kernels::LaunchAttention(args.out(0).dtype == kFloat16 ? kernels::DType::kFloat16 : kernels::DType::kFloat32, args.in(0).data,
                                  args.in(1).data, args.in(2).data, mask, args.out(0).data, *s, args.stream);
}

}  // namespace

SWITCHYARD_STEP_OP("OnnxAttention", CheckOnnxAttention, LaunchOnnxAttentionStep, &kernels::LaunchAttention != nullptr);

}  // namespace switchyard::plan
