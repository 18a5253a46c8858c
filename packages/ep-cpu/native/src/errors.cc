#include "errors.h"

#include <oneapi/dnnl/dnnl.hpp>
#include <oneapi/dnnl/dnnl_debug.h>

#include <new>

namespace switchyard {

CodedError::CodedError(std::string code, const std::string& message)
    : std::runtime_error(message), code_(std::move(code)) {}

namespace {

// oneDNN statuses mapped onto Switchyard's codes: "unimplemented" means this configuration
// has no oneDNN kernel (the caller may fall back), the rest are bad arguments or real failures.
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

NativeError DescribeCurrentException(const std::string& context) {
  try {
    throw;
  } catch (const CodedError& e) {
    return {e.code(), context + ": " + e.what()};
  } catch (const dnnl::error& e) {
    return {CodeForStatus(e.status),
            context + ": oneDNN: " + e.what() + " (" + dnnl_status2str(e.status) + ")"};
  } catch (const std::bad_alloc&) {
    return {"OUT_OF_MEMORY", context + ": out of memory"};
  } catch (const std::exception& e) {
    return {"RUNTIME", context + ": " + e.what()};
  } catch (...) {
    return {"RUNTIME", context + ": unknown native exception"};
  }
}

Napi::Error ToJsError(Napi::Env env, const NativeError& error, bool typeError) {
  Napi::Error js = typeError ? Napi::TypeError::New(env, error.message) : Napi::Error::New(env, error.message);
  js.Set("code", Napi::String::New(env, error.code));
  return js;
}

void ThrowJs(Napi::Env env, const std::string& code, const std::string& message, bool typeError) {
  throw ToJsError(env, NativeError{code, message}, typeError);
}

}  // namespace switchyard
