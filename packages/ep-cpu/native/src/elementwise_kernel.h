// The elementwise engine's executor (V8-free): a program of instructions over float registers, run
// block by block over the broadcast output. Each block is at most kBlock contiguous output elements;
// every instruction is one tight loop over the block (elementwise_loops.inc), so per-op loops vectorise
// and the interpretation cost is paid once per block, not per element. Inputs are read in place where
// contiguous, as one value where constant across the block, and gathered into a register otherwise.
// Blocks are split among the OpenMP team when the output is large enough.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "elementwise_isa.h"
#include "elementwise_ops.h"
#include "elementwise_plan.h"

namespace switchyard::eltwise {

// Output elements per block: 4 KiB per register, a handful of registers stay in L1.
constexpr int64_t kBlock = 1024;
constexpr size_t kMaxInputs = 64;
constexpr size_t kMaxInstructions = 256;

// One instruction: values 0..inputs-1 are the inputs, value inputs+i is instruction i's result.
struct Instruction {
  Op op = Op::kIdentity;
  int32_t args[3] = {0, 0, 0};
  float alpha = 0.0f;  // kConst: the value
  float beta = 0.0f;
};

struct ProgramSpec {
  std::vector<std::vector<int64_t>> inputDims;
  std::vector<bool> inputIsBool;  // bool inputs are Uint8Arrays, read as 0 / 1
  std::vector<Instruction> instructions;  // the last one's result is the output
  bool outputIsBool = false;              // stores result != 0 as 0 / 1 bytes
  int threads = 0;                        // OpenMP team size; 0 = the default
  Isa isa = Isa::kGeneric;
};

// What a thread's gathered registers hold, per input: rows gathered from `offset` (repeated rows only).
struct GatherCache {
  struct Entry {
    int64_t offset = -1;
    int64_t rows = 0;
  };
  Entry entries[kMaxInputs];
};

// A thread's registers (kBlock floats each) and its gather cache, valid for one Execute.
struct ThreadRegisters {
  float* floats = nullptr;
  GatherCache* cache = nullptr;
};

class ElementwiseKernel {
 public:
  // Validates the program (arities, references to earlier values only, every input read) and plans the
  // broadcast; throws CodedError('INVALID_ARGUMENT') with `context` on any fault.
  ElementwiseKernel(ProgramSpec spec, const std::string& context);

  // inputs[i]: float* or uint8_t* (bool) of inputElements(i); output: float* or uint8_t* of
  // outputElements(). The output may be the memory of an input of the output's shape. Thread-safe.
  void Execute(const void* const* inputs, void* output) const;

  const std::vector<int64_t>& outputDims() const { return plan_.outputDims; }
  int64_t outputElements() const { return plan_.total; }
  size_t inputCount() const { return spec_.inputDims.size(); }
  int64_t inputElements(size_t i) const { return plan_.inputs[i].elements; }
  bool inputIsBool(size_t i) const { return spec_.inputIsBool[i]; }
  bool outputIsBool() const { return spec_.outputIsBool; }
  int threads() const { return spec_.threads; }
  std::string implementation() const;

 private:
  // How one instruction runs, settled once: which operands are single values is fixed by the plan.
  enum class Form : uint8_t { kConst, kAllScalar, kUnary, kVV, kVS, kSV, kClipRange, kTernary };
  struct Step {
    Op op;
    Form form;
    int32_t args[3];
    int32_t value;  // the value it defines
    float alpha, beta;
  };

  void Compile();
  void RunBlock(int64_t block, const void* const* inputs, void* output, ThreadRegisters* registers) const;
  void LoadInput(size_t i, const void* data, int64_t start, int64_t row, int64_t col, int64_t rows, int64_t length,
                 const float** vec, float* scalar, float* slot, GatherCache* cache) const;

  ProgramSpec spec_;
  const LoopTable* loops_;
  BroadcastPlan plan_;
  int64_t rowsPerBlock_ = 1;   // > 1: a block is whole rows (rows shorter than kBlock / 2)
  int64_t blocksPerRow_ = 1;   // rowsPerBlock_ == 1: a row is split into blocks of kBlock
  int64_t blocks_ = 0;
  std::vector<Step> steps_;
  std::vector<bool> scalar_;   // per value: one number per block
  std::vector<int32_t> slot_;  // per value: its register (-1: none, a scalar, or the output itself)
  std::vector<bool> repeatsRows_;  // per input: gathered rows that repeat along the next axis (cacheable)
  int32_t fillSlots_[3] = {-1, -1, -1};  // registers that spread a ternary's single-value operands
  int32_t slotCount_ = 0;
};

}  // namespace switchyard::eltwise
