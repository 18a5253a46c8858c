// Multidirectional (numpy) broadcasting for the elementwise engine, planned once per set of input
// shapes: the output's axes of extent 1 are dropped and neighbouring axes merged wherever every input
// steps through them alike, so the output is walked as rows of `inner` contiguous elements and each
// input as an offset per row plus a step of 0 or 1 along it.
//
// A channel-blocked tensor [N, C/b, H, W, b] with a per-channel operand [1, C/b, 1, 1, b] plans like any
// other broadcast: rows of b elements, the operand's row offset stepping once per H·W rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace switchyard::eltwise {

// As js_args.h ReadDims (oneDNN's DNNL_MAX_NDIMS): one rank limit for every shape the addon takes.
constexpr size_t kMaxRank = 12;
// Past this many elements a shape is taken to be a mistake, not a tensor (2^40 floats = 4 TiB).
constexpr int64_t kMaxElements = int64_t{1} << 40;

enum class InputLayout {
  kFull,       // the output's shape: element i of the output reads element i
  kScalar,     // one element, read by every output element
  kBroadcast,  // anything else: per-row offsets, a step of 0 or 1 within a row
};

struct InputPlan {
  InputLayout layout = InputLayout::kFull;
  int64_t elements = 0;                // the input's own element count
  int64_t innerStride = 0;             // kBroadcast: 0 or 1 along a row
  std::vector<int64_t> outerStrides;   // kBroadcast: per collapsed outer axis (outermost first)
};

struct BroadcastPlan {
  std::vector<int64_t> outputDims;
  int64_t total = 0;
  int64_t inner = 1;                   // elements per row (the innermost collapsed axis)
  std::vector<int64_t> outer;          // collapsed outer extents, outermost first; rows = their product
  std::vector<InputPlan> inputs;

  int64_t rows() const { return inner == 0 ? 0 : total / inner; }
};

// Element count of `dims`; throws CodedError('INVALID_ARGUMENT') for a negative dim, a rank above
// kMaxRank or more than kMaxElements elements.
int64_t CountElements(const std::vector<int64_t>& dims, const std::string& what);

// Plans `inputs` (each one's dims) broadcast together. Throws CodedError('INVALID_ARGUMENT') when
// two extents of an axis differ and neither is 1, or a shape is absurd (CountElements).
BroadcastPlan PlanBroadcast(const std::vector<std::vector<int64_t>>& inputs, const std::string& context);

// Where row `row` of the output starts in a kBroadcast input.
int64_t RowOffset(const BroadcastPlan& plan, const InputPlan& input, int64_t row);

}  // namespace switchyard::eltwise
