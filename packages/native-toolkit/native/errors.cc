#include <switchyard/errors.h>

#include <new>

namespace switchyard {

CodedError::CodedError(std::string code, const std::string& message)
    : std::runtime_error(message), code_(std::move(code)) {}

namespace {

ExceptionTranslator g_translator = nullptr;

// "context: text", or the text alone when the caller adds its own context (an empty one).
std::string Prefixed(const std::string& context, const std::string& text) { return context.empty() ? text : context + ": " + text; }

}  // namespace

void SetExceptionTranslator(ExceptionTranslator translator) { g_translator = translator; }

NativeError DescribeCurrentException(const std::string& context) {
  try {
    throw;
  } catch (const CodedError& e) {
    return {e.code(), Prefixed(context, e.what())};
  } catch (const std::bad_alloc&) {
    return {"OUT_OF_MEMORY", Prefixed(context, "out of memory")};
  } catch (...) {
    NativeError translated;
    if (g_translator != nullptr && g_translator(context, &translated)) return translated;
  }
  try {
    throw;
  } catch (const std::exception& e) {
    return {"RUNTIME", Prefixed(context, e.what())};
  } catch (...) {
    return {"RUNTIME", Prefixed(context, "unknown native exception")};
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

void ThrowJsRange(Napi::Env env, const std::string& code, const std::string& message) {
  Napi::Error js = Napi::RangeError::New(env, message);
  js.Set("code", Napi::String::New(env, code));
  throw js;
}

}  // namespace switchyard
