#include "elementwise_kernel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

#include "engine.h"
#include <switchyard/errors.h>

namespace switchyard::eltwise {

namespace {

constexpr int32_t kOutputSlot = -2;

// Below this many output elements one thread does it all: waking the team costs more than it saves.
constexpr int64_t kParallelMinElements = int64_t{1} << 15;

// The calling thread's registers, grown to the largest program it has run (never shrunk: page faults
// on every run cost more than the memory), and what its gathered registers hold (GatherCache).
ThreadRegisters* ThreadScratch(size_t floats) {
  struct Buffer {
    std::unique_ptr<float[]> data;
    size_t size = 0;
    GatherCache cache;
  };
  thread_local Buffer buffer;
  if (buffer.size < floats) {
    buffer.data.reset(new float[floats]);
    buffer.size = floats;
  }
  thread_local ThreadRegisters registers;
  registers.floats = buffer.data.get();
  registers.cache = &buffer.cache;
  // A new run (maybe of another program) owns the registers now: nothing cached is valid.
  for (auto& entry : buffer.cache.entries) entry = GatherCache::Entry{};
  return &registers;
}

[[noreturn]] void Invalid(const std::string& context, const std::string& message) {
  throw CodedError("INVALID_ARGUMENT", context + ": " + message);
}

// Copies one row of `inner` floats: a channel block's 8 or 16 as fixed-size (inlined) copies, no memcpy call.
inline void CopyRow(float* to, const float* row, int64_t inner) {
  if (inner == 16) std::memcpy(to, row, 16 * sizeof(float));
  else if (inner == 8) std::memcpy(to, row, 8 * sizeof(float));
  else std::memcpy(to, row, static_cast<size_t>(inner) * sizeof(float));
}

// Walks the row offsets of a kBroadcast input from a starting row, one increment per row.
class RowCursor {
 public:
  RowCursor(const BroadcastPlan& plan, const InputPlan& input, int64_t row) : plan_(plan), input_(input) {
    const size_t axes = plan.outer.size();
    for (size_t a = axes; a-- > 0;) {
      index_[a] = row % plan.outer[a];
      row /= plan.outer[a];
      offset_ += index_[a] * input.outerStrides[a];
    }
  }
  int64_t offset() const { return offset_; }
  void Next() {
    for (size_t a = plan_.outer.size(); a-- > 0;) {
      offset_ += input_.outerStrides[a];
      if (++index_[a] < plan_.outer[a]) return;
      offset_ -= index_[a] * input_.outerStrides[a];
      index_[a] = 0;
    }
  }

 private:
  const BroadcastPlan& plan_;
  const InputPlan& input_;
  int64_t index_[kMaxRank] = {};
  int64_t offset_ = 0;
};

}  // namespace

ElementwiseKernel::ElementwiseKernel(ProgramSpec spec, const std::string& context) : spec_(std::move(spec)) {
  const size_t inputs = spec_.inputDims.size();
  const auto& program = spec_.instructions;
  if (inputs > kMaxInputs) Invalid(context, "at most " + std::to_string(kMaxInputs) + " inputs are served, got " + std::to_string(inputs));
  if (spec_.inputIsBool.size() != inputs) Invalid(context, "one element type per input is needed");
  if (program.empty()) Invalid(context, "the program has no instructions");
  if (program.size() > kMaxInstructions) {
    Invalid(context, "at most " + std::to_string(kMaxInstructions) + " instructions are served, got " + std::to_string(program.size()));
  }
  std::vector<bool> read(inputs, false);
  for (size_t i = 0; i < program.size(); ++i) {
    const Instruction& ins = program[i];
    if (static_cast<int>(ins.op) >= kOpCount) Invalid(context, "instruction " + std::to_string(i) + " has an unknown op");
    const int64_t defined = static_cast<int64_t>(inputs + i);
    for (int j = 0; j < OpArity(ins.op); ++j) {
      const int64_t arg = ins.args[j];
      if (arg < 0 || arg >= defined) {
        Invalid(context, "instruction " + std::to_string(i) + " (" + OpName(ins.op) + ") argument " + std::to_string(j) + " is " +
                             std::to_string(arg) + "; it must name an input or an earlier instruction (0.." + std::to_string(defined - 1) + ")");
      }
      if (arg < static_cast<int64_t>(inputs)) read[arg] = true;
    }
  }
  for (size_t i = 0; i < inputs; ++i) {
    if (!read[i]) Invalid(context, "input " + std::to_string(i) + " is read by no instruction");
  }
  loops_ = &LoopsFor(spec_.isa);
  plan_ = PlanBroadcast(spec_.inputDims, context);
  if (plan_.total > 0) {
    const int64_t rows = plan_.rows();
    rowsPerBlock_ = std::max<int64_t>(1, kBlock / plan_.inner);
    if (rowsPerBlock_ == 1) {
      blocksPerRow_ = (plan_.inner + kBlock - 1) / kBlock;
      blocks_ = rows * blocksPerRow_;
    } else {
      blocks_ = (rows + rowsPerBlock_ - 1) / rowsPerBlock_;
    }
  }
  Compile();
}

void ElementwiseKernel::Compile() {
  const size_t inputs = spec_.inputDims.size();
  const auto& program = spec_.instructions;
  const size_t values = inputs + program.size();
  scalar_.assign(values, false);
  slot_.assign(values, -1);

  for (size_t i = 0; i < inputs; ++i) {
    const InputPlan& p = plan_.inputs[i];
    scalar_[i] = p.layout == InputLayout::kScalar || (p.layout == InputLayout::kBroadcast && p.innerStride == 0 && rowsPerBlock_ == 1);
  }
  std::vector<int64_t> lastUse(values, -1);
  bool ternaryFills = false;
  for (size_t i = 0; i < program.size(); ++i) {
    const Instruction& ins = program[i];
    const int arity = OpArity(ins.op);
    const int32_t value = static_cast<int32_t>(inputs + i);
    Step step{ins.op, Form::kConst, {ins.args[0], ins.args[1], ins.args[2]}, value, ins.alpha, ins.beta};
    bool allScalar = true;
    for (int j = 0; j < arity; ++j) {
      allScalar = allScalar && scalar_[ins.args[j]];
      lastUse[ins.args[j]] = static_cast<int64_t>(i);
    }
    scalar_[value] = allScalar;
    if (arity == 0) {
      step.form = Form::kConst;
    } else if (allScalar) {
      step.form = Form::kAllScalar;
    } else if (arity == 1) {
      step.form = Form::kUnary;
    } else if (arity == 2) {
      step.form = scalar_[ins.args[1]] ? Form::kVS : scalar_[ins.args[0]] ? Form::kSV : Form::kVV;
    } else if (ins.op == Op::kClip && !scalar_[ins.args[0]] && scalar_[ins.args[1]] && scalar_[ins.args[2]]) {
      step.form = Form::kClipRange;  // the usual Clip: bounds that are one number each
    } else {
      step.form = Form::kTernary;
      for (int j = 0; j < 3; ++j) ternaryFills = ternaryFills || scalar_[ins.args[j]];
    }
    steps_.push_back(step);
  }

  // Registers by liveness: an operand's register is free once its last reader has run, and that reader
  // may write its result into it (element i is read before it is written).
  std::vector<int32_t> free;
  auto take = [&]() {
    if (free.empty()) return slotCount_++;
    const int32_t s = free.back();
    free.pop_back();
    return s;
  };
  for (size_t i = 0; i < inputs; ++i) {
    const InputPlan& p = plan_.inputs[i];
    const bool gathered = p.layout == InputLayout::kBroadcast && rowsPerBlock_ > 1;
    if (!scalar_[i] && (spec_.inputIsBool[i] || gathered)) slot_[i] = take();
    // Rows repeating along the axis just outside them (a per-channel operand of a channel-blocked
    // tensor, a bias over channels-last rows): one gather serves every block inside that repeat, so
    // the register keeps it (it is never handed to another value).
    repeatsRows_.push_back(gathered && !spec_.inputIsBool[i] && p.innerStride == 1 && !p.outerStrides.empty() && p.outerStrides.back() == 0);
  }
  const int32_t last = static_cast<int32_t>(values - 1);
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& step = steps_[i];
    const int arity = OpArity(step.op);
    for (int j = 0; j < arity; ++j) {
      const int32_t arg = step.args[j];
      const bool seen = std::find(step.args, step.args + j, arg) != step.args + j;
      const bool kept = arg < static_cast<int32_t>(inputs) && repeatsRows_[arg];
      if (!seen && !kept && lastUse[arg] == static_cast<int64_t>(i) && slot_[arg] >= 0) free.push_back(slot_[arg]);
    }
    if (scalar_[step.value]) continue;
    if (step.value == last && !spec_.outputIsBool) {
      slot_[step.value] = kOutputSlot;
    } else {
      slot_[step.value] = take();
      if (lastUse[step.value] < 0 && step.value != last) free.push_back(slot_[step.value]);  // dead: reuse at once
    }
  }
  if (ternaryFills) {
    for (int32_t& s : fillSlots_) s = slotCount_++;
  }
}

std::string ElementwiseKernel::implementation() const { return std::string("elementwise:") + loops_->isa; }

void ElementwiseKernel::LoadInput(size_t i, const void* data, int64_t start, int64_t row, int64_t col, int64_t rows, int64_t length,
                                  const float** vec, float* scalar, float* slot, GatherCache* cache) const {
  const InputPlan& p = plan_.inputs[i];
  const bool isBool = spec_.inputIsBool[i];
  const auto* f = static_cast<const float*>(data);
  const auto* b = static_cast<const uint8_t*>(data);
  if (scalar_[i]) {
    const int64_t at = p.layout == InputLayout::kBroadcast ? RowOffset(plan_, p, row) : 0;
    *scalar = isBool ? (b[at] != 0 ? 1.0f : 0.0f) : f[at];
    return;
  }
  if (p.layout == InputLayout::kFull || rowsPerBlock_ == 1) {
    // Contiguous in the input: the block's own elements, or (one row, step 1) a stretch of the row.
    const int64_t at = p.layout == InputLayout::kFull ? start : RowOffset(plan_, p, row) + col;
    if (!isBool) {
      *vec = f + at;
    } else {
      loops_->boolToFloat(slot, b + at, length);
      *vec = slot;
    }
    return;
  }
  // Whole rows of a broadcast input: gather them into the register, row by row, unless the register
  // already holds them (rows that repeat, gathered for an earlier block of this run on this thread).
  const int64_t inner = plan_.inner;
  GatherCache::Entry* cached = nullptr;
  if (repeatsRows_[i]) {
    const int64_t repeat = plan_.outer.back();
    if (row / repeat == (row + rows - 1) / repeat) {
      cached = &cache->entries[i];
      const int64_t at = RowOffset(plan_, p, row);
      if (cached->rows >= rows && cached->offset == at) {
        *vec = slot;
        return;
      }
      loops_->tileRow(slot, f + at, inner, rows);
      *cached = GatherCache::Entry{at, rows};
      *vec = slot;
      return;
    }
    // The block crosses into the next repeat (the next channel block): one run of equal rows per repeat.
    cache->entries[i] = GatherCache::Entry{};
    for (int64_t r = 0; r < rows;) {
      const int64_t run = std::min(rows - r, repeat - (row + r) % repeat);
      loops_->tileRow(slot + r * inner, f + RowOffset(plan_, p, row + r), inner, run);
      r += run;
    }
    *vec = slot;
    return;
  }
  RowCursor cursor(plan_, p, row);
  for (int64_t r = 0; r < rows; ++r, cursor.Next()) {
    float* to = slot + r * inner;
    const int64_t at = cursor.offset();
    if (p.innerStride == 0) {
      loops_->fill(to, isBool ? (b[at] != 0 ? 1.0f : 0.0f) : f[at], inner);
    } else if (isBool) {
      loops_->boolToFloat(to, b + at, inner);
    } else {
      CopyRow(to, f + at, inner);
    }
  }
  *vec = slot;
}

void ElementwiseKernel::RunBlock(int64_t block, const void* const* inputs, void* output, ThreadRegisters* registers) const {
  float* scratch = registers->floats;
  const int64_t inner = plan_.inner;
  int64_t row, col, rows, length;
  if (rowsPerBlock_ == 1) {
    row = block / blocksPerRow_;
    col = (block % blocksPerRow_) * kBlock;
    rows = 1;
    length = std::min(kBlock, inner - col);
  } else {
    row = block * rowsPerBlock_;
    col = 0;
    rows = std::min(rowsPerBlock_, plan_.rows() - row);
    length = rows * inner;
  }
  const int64_t start = row * inner + col;
  const size_t values = scalar_.size();
  const float* vec[kMaxInputs + kMaxInstructions];
  float scal[kMaxInputs + kMaxInstructions];
  auto reg = [&](int32_t s) { return scratch + static_cast<int64_t>(s) * kBlock; };

  for (size_t i = 0; i < spec_.inputDims.size(); ++i) {
    LoadInput(i, inputs[i], start, row, col, rows, length, &vec[i], &scal[i], slot_[i] >= 0 ? reg(slot_[i]) : nullptr, registers->cache);
  }
  float* out = static_cast<float*>(output) + start;
  const LoopTable& t = *loops_;
  for (const Step& s : steps_) {
    const int32_t v = s.value;
    const int op = static_cast<int>(s.op);
    float* dst = slot_[v] == kOutputSlot ? out : slot_[v] >= 0 ? reg(slot_[v]) : nullptr;
    const int32_t a = s.args[0], b = s.args[1], c = s.args[2];
    switch (s.form) {
      case Form::kConst:
        scal[v] = s.alpha;
        continue;
      case Form::kAllScalar:
        switch (OpArity(s.op)) {
          case 1: t.unary[op](&scal[v], &scal[a], 1, s.alpha, s.beta); break;
          case 2: t.binaryVV[op](&scal[v], &scal[a], &scal[b], 1); break;
          default: t.ternary[op](&scal[v], &scal[a], &scal[b], &scal[c], 1); break;
        }
        continue;
      case Form::kUnary: t.unary[op](dst, vec[a], length, s.alpha, s.beta); break;
      case Form::kVV: t.binaryVV[op](dst, vec[a], vec[b], length); break;
      case Form::kVS: t.binaryVS[op](dst, vec[a], scal[b], length); break;
      case Form::kSV: t.binarySV[op](dst, scal[a], vec[b], length); break;
      case Form::kClipRange: t.unary[static_cast<int>(Op::kClipRange)](dst, vec[a], length, scal[b], scal[c]); break;
      case Form::kTernary: {
        const float* operands[3];
        for (int j = 0; j < 3; ++j) {
          const int32_t arg = s.args[j];
          if (scalar_[arg]) {
            t.fill(reg(fillSlots_[j]), scal[arg], length);
            operands[j] = reg(fillSlots_[j]);
          } else {
            operands[j] = vec[arg];
          }
        }
        t.ternary[op](dst, operands[0], operands[1], operands[2], length);
        break;
      }
    }
    vec[v] = dst;
  }

  const size_t last = values - 1;
  if (spec_.outputIsBool) {
    uint8_t* bytes = static_cast<uint8_t*>(output) + start;
    if (scalar_[last]) {
      std::memset(bytes, scal[last] != 0.0f ? 1 : 0, static_cast<size_t>(length));
    } else {
      t.floatToBool(bytes, vec[last], length);
    }
  } else if (scalar_[last]) {
    t.fill(out, scal[last], length);
  }
}

void ElementwiseKernel::Execute(const void* const* inputs, void* output) const {
  if (blocks_ == 0) return;
  const size_t scratchFloats = static_cast<size_t>(std::max(slotCount_, 1)) * kBlock;
  const int requested = spec_.threads > 0 ? spec_.threads : DefaultThreads();
  if (requested == 1 || plan_.total < kParallelMinElements || blocks_ == 1) {
    // Entering even a one-thread OpenMP region costs microseconds: small outputs run right here.
    ThreadRegisters* registers = ThreadScratch(scratchFloats);
    for (int64_t block = 0; block < blocks_; ++block) RunBlock(block, inputs, output, registers);
    return;
  }
  ThreadScope scope(spec_.threads);
  const int team = static_cast<int>(std::min<int64_t>(omp_get_max_threads(), blocks_));
  // No exception may leave the parallel region (it would terminate the process): a thread that cannot
  // get its registers skips its blocks and the failure is thrown after the region.
  std::atomic<bool> outOfMemory{false};
#pragma omp parallel num_threads(team)
  {
    ThreadRegisters* registers = nullptr;
    try {
      registers = ThreadScratch(scratchFloats);
    } catch (...) {
      outOfMemory = true;
    }
#pragma omp for schedule(static)
    for (int64_t block = 0; block < blocks_; ++block) {
      if (registers) RunBlock(block, inputs, output, registers);
    }
  }
  if (outOfMemory) throw CodedError("OUT_OF_MEMORY", "elementwise: no memory for a thread's registers");
}

}  // namespace switchyard::eltwise
