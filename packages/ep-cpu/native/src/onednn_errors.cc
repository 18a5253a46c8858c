#include "onednn_errors.h"

#include <oneapi/dnnl/dnnl.hpp>
#include <oneapi/dnnl/dnnl_debug.h>

namespace switchyard {

namespace {

// "unimplemented" means this configuration has no oneDNN kernel (the caller may fall back); the rest
// are bad arguments or real failures.
std::string CodeForStatus(dnnl_status_t status) {
  switch (status) {
    case dnnl_invalid_arguments:
      return "INVALID_ARGUMENT";
    case dnnl_unimplemented:
      return "UNSUPPORTED";
    case dnnl_out_of_memory:
      return "OUT_OF_MEMORY";
    default:
      return "RUNTIME";
  }
}

}  // namespace

bool TranslateOneDnnError(const std::string& context, NativeError* out) {
  try {
    throw;
  } catch (const dnnl::error& e) {
    *out = {CodeForStatus(e.status), context + ": oneDNN: " + e.what() + " (" + dnnl_status2str(e.status) + ")"};
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace switchyard
