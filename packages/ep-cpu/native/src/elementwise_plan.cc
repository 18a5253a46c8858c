#include "elementwise_plan.h"

#include <algorithm>

#include <switchyard/errors.h>

namespace switchyard::eltwise {

namespace {

std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace

int64_t CountElements(const std::vector<int64_t>& dims, const std::string& what) {
  if (dims.size() > kMaxRank) {
    throw CodedError("INVALID_ARGUMENT", what + " has rank " + std::to_string(dims.size()) + "; at most " + std::to_string(kMaxRank) + " is served");
  }
  int64_t n = 1;
  bool empty = false;
  for (int64_t d : dims) {
    if (d < 0) throw CodedError("INVALID_ARGUMENT", what + " " + ShapeString(dims) + " has a negative dimension");
    if (d == 0) empty = true;
    // Checked even past a zero dim: a shape like [0, 2^62] is still nonsense.
    if (d > kMaxElements || (n *= std::max<int64_t>(d, 1)) > kMaxElements) {
      throw CodedError("INVALID_ARGUMENT", what + " " + ShapeString(dims) + " has more than 2^40 elements");
    }
  }
  return empty ? 0 : n;
}

BroadcastPlan PlanBroadcast(const std::vector<std::vector<int64_t>>& inputs, const std::string& context) {
  BroadcastPlan plan;
  size_t rank = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    CountElements(inputs[i], context + ": input " + std::to_string(i));
    rank = std::max(rank, inputs[i].size());
  }
  // Output extents: per axis (aligned at the last), the extent other than 1, if any.
  std::vector<int64_t> out(rank, 1);
  for (const auto& dims : inputs) {
    const size_t pad = rank - dims.size();
    for (size_t k = 0; k < dims.size(); ++k) {
      const int64_t d = dims[k];
      int64_t& o = out[pad + k];
      if (d == 1 || d == o) continue;
      if (o != 1) {
        std::string shapes;
        for (size_t j = 0; j < inputs.size(); ++j) shapes += (j ? " and " : "") + ShapeString(inputs[j]);
        throw CodedError("INVALID_ARGUMENT", context + ": shapes " + shapes + " do not broadcast (axis " + std::to_string(pad + k) + ")");
      }
      o = d;
    }
  }
  plan.outputDims = out;
  plan.total = CountElements(out, context + ": output");
  plan.inputs.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) plan.inputs[i].elements = CountElements(inputs[i], "input");
  if (plan.total == 0) {
    plan.inner = 0;
    return plan;
  }

  // Axes of the output with extent > 1, innermost first, each with every input's stride along it.
  struct Axis {
    int64_t extent;
    std::vector<int64_t> strides;
  };
  std::vector<Axis> axes;
  std::vector<int64_t> running(inputs.size(), 1);  // each input's natural stride at the current axis
  for (size_t k = rank; k-- > 0;) {
    Axis axis{out[k], std::vector<int64_t>(inputs.size(), 0)};
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto& dims = inputs[i];
      const size_t pad = rank - dims.size();
      const int64_t d = k >= pad ? dims[k - pad] : 1;
      axis.strides[i] = d == 1 ? 0 : running[i];
      running[i] *= d;
    }
    if (axis.extent == 1) continue;
    // Merge into the axis inside it when every input steps through both as through one.
    if (!axes.empty()) {
      Axis& inside = axes.back();
      bool mergeable = true;
      for (size_t i = 0; i < inputs.size() && mergeable; ++i) mergeable = axis.strides[i] == inside.strides[i] * inside.extent;
      if (mergeable) {
        inside.extent *= axis.extent;
        continue;
      }
    }
    axes.push_back(std::move(axis));
  }

  plan.inner = axes.empty() ? 1 : axes.front().extent;
  for (size_t a = axes.size(); a-- > 1;) plan.outer.push_back(axes[a].extent);
  for (size_t i = 0; i < inputs.size(); ++i) {
    InputPlan& p = plan.inputs[i];
    if (p.elements == plan.total) {
      p.layout = InputLayout::kFull;
    } else if (p.elements == 1) {
      p.layout = InputLayout::kScalar;
    } else {
      p.layout = InputLayout::kBroadcast;
      p.innerStride = axes.front().strides[i];  // 0 or 1: every axis inside it has extent 1
      for (size_t a = axes.size(); a-- > 1;) p.outerStrides.push_back(axes[a].strides[i]);
    }
  }
  return plan;
}

int64_t RowOffset(const BroadcastPlan& plan, const InputPlan& input, int64_t row) {
  int64_t offset = 0;
  for (size_t a = plan.outer.size(); a-- > 0;) {
    const int64_t extent = plan.outer[a];
    offset += (row % extent) * input.outerStrides[a];
    row /= extent;
  }
  return offset;
}

}  // namespace switchyard::eltwise
