// oneDNN's exceptions (dnnl::error) mapped onto Switchyard's error codes, for the toolkit's
// DescribeCurrentException (registered by main.cc with SetExceptionTranslator).
#pragma once

#include <switchyard/errors.h>

#include <string>

namespace switchyard {

// Call only from inside a catch block: true (and `out` filled) when the exception is a dnnl::error.
bool TranslateOneDnnError(const std::string& context, NativeError* out);

}  // namespace switchyard
