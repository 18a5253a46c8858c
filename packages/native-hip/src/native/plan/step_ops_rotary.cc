// Step op for kernels/rotary.hip (ONNX RotaryEmbedding). Attribute blob:
//   [batch, heads, seq, headSize, packed, rotDim, interleaved, posBatch, cacheBatch]
// Inputs x, cos_cache, sin_cache, position_ids (int64 [posBatch, seq]; absent: posBatch 0, and the
// caches are [cacheBatch, seq, rotDim / 2]); output of x's shape. posBatch and cacheBatch are 1 or batch.
#include <cmath>

#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::plan {
namespace {

constexpr size_t kRotaryAttrs = 9;

std::string CheckRotary(StepArgs* args) {
  std::string p = ExpectArity(*args, 3, 4, 1);
  if (!p.empty()) return p;
  const int dtype = args->in(0).dtype;
  if (dtype != kFloat32 && dtype != kFloat16) return "x must be float32 or float16";
  if (args->in(1).dtype != dtype || args->in(2).dtype != dtype || args->out(0).dtype != dtype) return "the caches and the output must have x's type";
  if (args->attrs.size() != kRotaryAttrs) return "needs 9 attributes (sizes, layout, rotary dim, interleaved, position and cache batches)";
  for (double a : args->attrs) {
    if (!(a >= 0 && a <= 9.0e15 && a == std::floor(a))) return "attributes must be whole non-negative numbers";
  }
  const auto at = [&](size_t i) { return static_cast<int64_t>(args->attrs[i]); };
  auto s = std::make_shared<kernels::RotaryShape>();
  s->batch = at(0), s->heads = at(1), s->seq = at(2), s->head_size = at(3), s->packed = at(4) != 0, s->rot_dim = at(5);
  s->interleaved = at(6) != 0;
  if (s->heads < 1 || s->head_size < 1) return "heads and head size must be at least 1";
  if (s->rot_dim < 2 || s->rot_dim % 2 != 0 || s->rot_dim > s->head_size) return "the rotary dim must be even, at least 2 and at most the head size";
  const int64_t count = s->batch * s->heads * s->seq * s->head_size;
  if (args->in(0).count() != count || args->out(0).count() != count) return "x and the output must hold batch * heads * seq * headSize elements";
  const int64_t half = s->rot_dim / 2;
  const int64_t cache = args->in(1).count();
  if (args->in(2).count() != cache) return "cos_cache and sin_cache differ in size";
  const bool has_positions = args->inputs.size() > 3 && args->inputs[3] != nullptr;
  if (has_positions) {
    const TensorRef& pos = args->in(3);
    s->pos_batch = at(7);
    if (pos.dtype != kInt64) return "position_ids must be int64";
    if ((s->pos_batch != 1 && s->pos_batch != s->batch) || pos.count() != s->pos_batch * s->seq) return "position_ids must be [1 or batch, seq]";
    if (cache % half != 0) return "the caches' size is not a multiple of rotDim / 2";
    s->cache_rows = cache / half;
  } else {
    s->cache_batch = at(8);
    if ((s->cache_batch != 1 && s->cache_batch != s->batch) || cache != s->cache_batch * s->seq * half) return "without position_ids the caches must be [1 or batch, seq, rotDim / 2]";
    s->cache_rows = s->cache_batch * s->seq;
  }
  args->state = s;
  return "";
}

hipError_t LaunchRotaryStep(const StepArgs& args) {
  const auto* s = static_cast<const kernels::RotaryShape*>(args.state.get());
  const int64_t* positions = args.inputs.size() > 3 && args.inputs[3] != nullptr ? static_cast<const int64_t*>(args.inputs[3]->data) : nullptr;
  return kernels::LaunchRotary(args.out(0).dtype == kFloat16 ? kernels::DType::kFloat16 : kernels::DType::kFloat32, args.in(0).data,
                               args.in(1).data, args.in(2).data, positions, args.out(0).data, *s, args.stream);
}

}  // namespace

SWITCHYARD_STEP_OP("RotaryEmbedding", CheckRotary, LaunchRotaryStep, &kernels::LaunchRotary != nullptr);

}  // namespace switchyard::plan
