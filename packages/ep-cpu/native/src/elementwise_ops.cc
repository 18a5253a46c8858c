#include "elementwise_ops.h"

namespace switchyard::eltwise {

namespace {

struct OpInfo {
  const char* name;
  int arity;
};

constexpr OpInfo kOps[] = {
#define SWITCHYARD_ELTWISE_INFO(id, name, arity) {name, arity},
    SWITCHYARD_ELTWISE_OPS(SWITCHYARD_ELTWISE_INFO)
#undef SWITCHYARD_ELTWISE_INFO
};

static_assert(sizeof(kOps) / sizeof(kOps[0]) == kOpCount, "one entry per opcode");

}  // namespace

const char* OpName(Op op) { return kOps[static_cast<int>(op)].name; }

int OpArity(Op op) { return kOps[static_cast<int>(op)].arity; }

bool ParseOp(const std::string& name, Op* op) {
  for (int i = 0; i < kOpCount; ++i) {
    if (name == kOps[i].name) {
      *op = static_cast<Op>(i);
      return true;
    }
  }
  return false;
}

}  // namespace switchyard::eltwise
