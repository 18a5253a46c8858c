#include "scratchpad.h"

#include "engine.h"

namespace switchyard {

dnnl::primitive_attr UserScratchpadAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void ExecuteWithScratchpad(const dnnl::primitive& primitive, dnnl::stream& stream,
                           std::unordered_map<int, dnnl::memory> args, const dnnl::memory::desc& scratchpad) {
  if (scratchpad.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(scratchpad, CpuEngine()));
  primitive.execute(stream, args);
}

Reorder::Reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  dnnl::reorder::primitive_desc pd(CpuEngine(), from, CpuEngine(), to, UserScratchpadAttr());
  primitive_ = dnnl::reorder(pd);
  scratchpad_ = pd.scratchpad_desc();
}

void Reorder::Execute(dnnl::stream& stream, const dnnl::memory& from, const dnnl::memory& to) const {
  ExecuteWithScratchpad(primitive_, stream, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, scratchpad_);
}

}  // namespace switchyard
