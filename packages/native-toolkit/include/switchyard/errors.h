// Error translation: C++ failures → JS errors carrying a `code`, shared by every Switchyard addon.
// Codes match @switchyard/core's ErrorCode ('INVALID_ARGUMENT', 'UNSUPPORTED', 'OUT_OF_MEMORY',
// 'RUNTIME', 'RELEASED', ...), so the TS side rethrows a SwitchyardError with the same code
// (core's `fromNativeError`). A library's own exception type (oneDNN's dnnl::error, say) is mapped
// by the translator the addon registers at load (SetExceptionTranslator).
#pragma once

#include <napi.h>

#include <stdexcept>
#include <string>

namespace switchyard {

// A failure described in plain data: safe to create and carry off the main thread.
struct NativeError {
  std::string code;
  std::string message;
};

// An exception with a code, thrown by V8-free code (kernels, validation) on any thread.
class CodedError : public std::runtime_error {
 public:
  CodedError(std::string code, const std::string& message);
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

// Describes the exception being handled as "context: message" (the message alone for an empty context).
// Call only from inside a catch block; no V8 is touched.
NativeError DescribeCurrentException(const std::string& context);

// An addon's mapping of its libraries' exception types: called from inside a catch block (rethrow with
// `throw;` to inspect it); fills `out` and returns true for an exception it knows, false otherwise.
// CodedError and std::bad_alloc are decided before it is asked; plain std::exception after.
using ExceptionTranslator = bool (*)(const std::string& context, NativeError* out);

// Registers the addon's translator (once, from its module init; each addon has its own copy of this
// library, so addons do not see each other's).
void SetExceptionTranslator(ExceptionTranslator translator);

// Builds a JS Error (TypeError for 'INVALID_ARGUMENT' when asked) with `code` set. Main thread only.
Napi::Error ToJsError(Napi::Env env, const NativeError& error, bool typeError = false);

// Throws a coded JS error (as a C++ exception that node-addon-api turns into a JS throw).
[[noreturn]] void ThrowJs(Napi::Env env, const std::string& code, const std::string& message, bool typeError = false);

// The same as a RangeError: a number out of its range (an index, an offset, a size).
[[noreturn]] void ThrowJsRange(Napi::Env env, const std::string& code, const std::string& message);

// Runs `fn` on the main thread, turning any non-JS exception into a coded JS error.
// Used by every [sync] method so a library failure never reaches node-addon-api as an unknown exception.
// `context` is a std::string or a string literal: the literal is turned into a string only on failure,
// so the per-run [sync] paths allocate nothing here.
template <typename Context, typename Fn>
auto GuardSync(Napi::Env env, const Context& context, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Napi::Error&) {
    throw;
  } catch (...) {
    throw ToJsError(env, DescribeCurrentException(std::string(context)));
  }
}

}  // namespace switchyard
