// The elementwise engine's instruction set: one table of opcodes with their JS names and arities, and
// the per-instruction-set loop tables (elementwise_isa_*.cc) that implement them.
//
// Every value is float32 (a bool input reads as 0/1; comparisons yield 0/1, stored as bool when the
// program's output is bool). Semantics follow the CPU EP's TypeScript kernels (JavaScript's Math.*):
// NaN propagates through Max/Min/Clip/Relu, Max(+0, -0) is +0, Pow(x, NaN) and Pow(±1, ±inf) are NaN.
#pragma once

#include <cstdint>
#include <string>

namespace switchyard::eltwise {

// X(enumerator, JS name, arity). alpha / beta are an instruction's parameters where the op has any.
#define SWITCHYARD_ELTWISE_OPS(X)                                                                   \
  /* unary */                                                                                       \
  X(kRelu, "relu", 1)                                                                               \
  X(kLeakyRelu, "leaky_relu", 1)          /* alpha: slope */                                        \
  X(kClipRange, "clip_range", 1)          /* alpha: min, beta: max */                               \
  X(kSigmoid, "sigmoid", 1)                                                                         \
  X(kHardSigmoid, "hard_sigmoid", 1)      /* alpha, beta: max(0, min(1, alpha x + beta)) */         \
  X(kHardSwish, "hard_swish", 1)                                                                    \
  X(kTanh, "tanh", 1)                                                                               \
  X(kErf, "erf", 1)                                                                                 \
  X(kExp, "exp", 1)                                                                                 \
  X(kLog, "log", 1)                                                                                 \
  X(kSqrt, "sqrt", 1)                                                                               \
  X(kAbs, "abs", 1)                                                                                 \
  X(kNeg, "neg", 1)                                                                                 \
  X(kReciprocal, "reciprocal", 1)                                                                   \
  X(kFloor, "floor", 1)                                                                             \
  X(kCeil, "ceil", 1)                                                                               \
  X(kRound, "round", 1)                   /* halves to even */                                      \
  X(kSign, "sign", 1)                                                                               \
  X(kElu, "elu", 1)                       /* alpha */                                               \
  X(kSelu, "selu", 1)                     /* alpha, beta: gamma */                                  \
  X(kCelu, "celu", 1)                     /* alpha */                                               \
  X(kSoftplus, "softplus", 1)                                                                       \
  X(kSoftsign, "softsign", 1)                                                                       \
  X(kMish, "mish", 1)                                                                               \
  X(kThresholdedRelu, "thresholded_relu", 1) /* alpha */                                            \
  X(kSin, "sin", 1)                                                                                 \
  X(kCos, "cos", 1)                                                                                 \
  X(kGelu, "gelu", 1)                     /* x Φ(x), erf form */                                    \
  X(kGeluTanh, "gelu_tanh", 1)            /* tanh approximation (com.microsoft FastGelu) */         \
  X(kSwish, "swish", 1)                   /* x σ(x), SiLU */                                        \
  X(kSquare, "square", 1)                                                                           \
  X(kCube, "cube", 1)                                                                               \
  X(kIdentity, "identity", 1)                                                                       \
  /* binary */                                                                                      \
  X(kAdd, "add", 2)                                                                                 \
  X(kSub, "sub", 2)                                                                                 \
  X(kMul, "mul", 2)                                                                                 \
  X(kDiv, "div", 2)                                                                                 \
  X(kPow, "pow", 2)                                                                                 \
  X(kMax, "max", 2)                                                                                 \
  X(kMin, "min", 2)                                                                                 \
  X(kPRelu, "prelu", 2)                   /* x < 0 ? x slope : x */                                 \
  X(kEqual, "equal", 2)                                                                             \
  X(kLess, "less", 2)                                                                               \
  X(kGreater, "greater", 2)                                                                         \
  X(kLessEqual, "less_equal", 2)                                                                    \
  X(kGreaterEqual, "greater_equal", 2)                                                              \
  /* ternary */                                                                                     \
  X(kClip, "clip", 3)                     /* x, min, max */                                         \
  X(kWhere, "where", 3)                   /* condition, x, y */                                     \
  /* no operands */                                                                                 \
  X(kConst, "const", 0)                   /* alpha: the value */

enum class Op : uint8_t {
#define SWITCHYARD_ELTWISE_ENUM(id, name, arity) id,
  SWITCHYARD_ELTWISE_OPS(SWITCHYARD_ELTWISE_ENUM)
#undef SWITCHYARD_ELTWISE_ENUM
      kCount
};

constexpr int kOpCount = static_cast<int>(Op::kCount);

const char* OpName(Op op);
int OpArity(Op op);
// The opcode named `name` (as OpName gives it); false when there is none.
bool ParseOp(const std::string& name, Op* op);

// Loops over n contiguous elements; dst may be the same memory as an operand (element i is read before
// it is written), never a shifted overlap. V = vector operand, S = one value for every element.
using UnaryLoop = void (*)(float* dst, const float* a, int64_t n, float alpha, float beta);
using BinaryVVLoop = void (*)(float* dst, const float* a, const float* b, int64_t n);
using BinaryVSLoop = void (*)(float* dst, const float* a, float b, int64_t n);
using BinarySVLoop = void (*)(float* dst, float a, const float* b, int64_t n);
using TernaryLoop = void (*)(float* dst, const float* a, const float* b, const float* c, int64_t n);

// One instruction set's loops, indexed by Op (null where the op has another arity).
struct LoopTable {
  const char* isa;
  UnaryLoop unary[kOpCount];
  BinaryVVLoop binaryVV[kOpCount];
  BinaryVSLoop binaryVS[kOpCount];
  BinarySVLoop binarySV[kOpCount];
  TernaryLoop ternary[kOpCount];
  void (*fill)(float* dst, float value, int64_t n);
  // `row` (`inner` floats) copied into `rows` consecutive rows of dst (a gathered per-channel operand).
  void (*tileRow)(float* dst, const float* row, int64_t inner, int64_t rows);
  void (*boolToFloat)(float* dst, const uint8_t* src, int64_t n);
  void (*floatToBool)(uint8_t* dst, const float* src, int64_t n);
};

}  // namespace switchyard::eltwise
