// The slice of MIGraphX's C API (migraphx/migraphx.h, libmigraphx_c.so) this addon calls, declared
// here so the addon builds without MIGraphX installed. Signatures follow the header; only types
// whose layout is fixed by the C ABI appear (status enum as int, char**, size_t*).
#pragma once

#include <cstddef>

namespace switchyard::migraphx_api {

// migraphx_status: 0 is migraphx_status_success in every released version.
using Status = int;
constexpr Status kSuccess = 0;

// migraphx_status migraphx_get_onnx_operators_size(size_t* out);
using GetOnnxOperatorsSize = Status (*)(size_t* out);
// migraphx_status migraphx_get_onnx_operator_name_at_index(char** out, size_t index);
using GetOnnxOperatorNameAtIndex = Status (*)(char** out, size_t index);

// Entry points the EP will need to compile and run partitions; their presence is checked at load
// time so an incomplete or too-old library is a reason up front rather than a failure mid-session.
inline constexpr const char* kRequiredSymbols[] = {
    "migraphx_get_onnx_operators_size",
    "migraphx_get_onnx_operator_name_at_index",
    "migraphx_parse_onnx_buffer",
    "migraphx_target_create",
    "migraphx_program_compile",
    "migraphx_program_run",
    "migraphx_program_get_parameter_shapes",
    "migraphx_program_get_output_shapes",
    "migraphx_quantize_fp16",
    "migraphx_save",
    "migraphx_load",
};

}  // namespace switchyard::migraphx_api
