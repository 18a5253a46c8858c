// The slice of MIGraphX's C API (migraphx/migraphx.h, libmigraphx_c.so) this addon calls, declared
// here so the addon builds without MIGraphX installed, and resolved with dlsym at run time.
// Declared against the header of MIGraphX 2.14-2.16 (ROCm 7.1 and later; C library soname 3):
// handles are opaque pointers, the status and datatype enums are passed as int, bool is C's bool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace switchyard::migraphx_api {

// migraphx_status: 0 is migraphx_status_success in every released version.
using Status = int;
constexpr Status kSuccess = 0;

// Opaque handles (`struct migraphx_x*` in the header).
using Shape = struct MgxShape*;
using Argument = struct MgxArgument*;
using Target = struct MgxTarget*;
using ParameterShapes = struct MgxParameterShapes*;
using Parameters = struct MgxParameters*;
using Arguments = struct MgxArguments*;
using Shapes = struct MgxShapes*;
using Program = struct MgxProgram*;
using OnnxOptions = struct MgxOnnxOptions*;
using FileOptions = struct MgxFileOptions*;
using CompileOptions = struct MgxCompileOptions*;
using Int8Options = struct MgxInt8Options*;

// One function-pointer type per entry point; the comment is the header's name for it.
struct Api {
  // registry
  Status (*get_onnx_operators_size)(size_t* out);                              // migraphx_get_onnx_operators_size
  Status (*get_onnx_operator_name_at_index)(char** out, size_t index);         // migraphx_get_onnx_operator_name_at_index
  // shape
  Status (*shape_create)(Shape* out, int type, size_t* lengths, size_t n);     // migraphx_shape_create
  Status (*shape_destroy)(Shape shape);                                        // migraphx_shape_destroy
  Status (*shape_lengths)(const size_t** out, size_t* n, const void* shape);   // migraphx_shape_lengths
  Status (*shape_type)(int* out, const void* shape);                           // migraphx_shape_type
  Status (*shape_bytes)(size_t* out, const void* shape);                       // migraphx_shape_bytes
  // argument
  Status (*argument_create)(Argument* out, const void* shape, void* buffer);   // migraphx_argument_create
  Status (*argument_destroy)(Argument argument);                               // migraphx_argument_destroy
  Status (*argument_shape)(const void** out, const void* argument);            // migraphx_argument_shape
  Status (*argument_buffer)(char** out, const void* argument);                 // migraphx_argument_buffer
  // target
  Status (*target_create)(Target* out, const char* name);                      // migraphx_target_create
  Status (*target_destroy)(Target target);                                     // migraphx_target_destroy
  // parameter shapes / parameters / arguments / shapes
  Status (*parameter_shapes_destroy)(ParameterShapes p);                       // migraphx_program_parameter_shapes_destroy
  Status (*parameter_shapes_size)(size_t* out, ParameterShapes p);             // migraphx_program_parameter_shapes_size
  Status (*parameter_shapes_get)(const void** out, ParameterShapes p, const char* name);  // migraphx_program_parameter_shapes_get
  Status (*parameter_shapes_names)(const char** out, ParameterShapes p);       // migraphx_program_parameter_shapes_names
  Status (*parameters_create)(Parameters* out);                                // migraphx_program_parameters_create
  Status (*parameters_destroy)(Parameters p);                                  // migraphx_program_parameters_destroy
  Status (*parameters_add)(Parameters p, const char* name, const void* argument);  // migraphx_program_parameters_add
  Status (*arguments_destroy)(Arguments a);                                    // migraphx_arguments_destroy
  Status (*arguments_size)(size_t* out, Arguments a);                          // migraphx_arguments_size
  Status (*arguments_get)(const void** out, Arguments a, size_t index);        // migraphx_arguments_get
  Status (*shapes_destroy)(Shapes s);                                          // migraphx_shapes_destroy
  Status (*shapes_size)(size_t* out, Shapes s);                                // migraphx_shapes_size
  Status (*shapes_get)(const void** out, Shapes s, size_t index);              // migraphx_shapes_get
  // program
  Status (*program_destroy)(Program p);                                        // migraphx_program_destroy
  Status (*program_compile)(Program p, Target t, CompileOptions o);            // migraphx_program_compile
  Status (*program_get_parameter_shapes)(ParameterShapes* out, Program p);     // migraphx_program_get_parameter_shapes
  Status (*program_get_output_shapes)(Shapes* out, Program p);                 // migraphx_program_get_output_shapes
  Status (*program_run)(Arguments* out, Program p, Parameters params);         // migraphx_program_run
  Status (*load)(Program* out, const char* name, FileOptions o);               // migraphx_load
  Status (*save)(Program p, const char* name, FileOptions o);                  // migraphx_save
  // options
  Status (*onnx_options_create)(OnnxOptions* out);                             // migraphx_onnx_options_create
  Status (*onnx_options_destroy)(OnnxOptions o);                               // migraphx_onnx_options_destroy
  Status (*onnx_options_set_input_parameter_shape)(OnnxOptions o, const char* name, size_t* dims, size_t n);  // ..._set_input_parameter_shape
  Status (*onnx_options_set_default_dim_value)(OnnxOptions o, size_t value);  // migraphx_onnx_options_set_default_dim_value
  Status (*file_options_create)(FileOptions* out);                             // migraphx_file_options_create
  Status (*file_options_destroy)(FileOptions o);                               // migraphx_file_options_destroy
  Status (*file_options_set_file_format)(FileOptions o, const char* format);  // migraphx_file_options_set_file_format
  Status (*compile_options_create)(CompileOptions* out);                       // migraphx_compile_options_create
  Status (*compile_options_destroy)(CompileOptions o);                         // migraphx_compile_options_destroy
  Status (*compile_options_set_offload_copy)(CompileOptions o, bool value);    // migraphx_compile_options_set_offload_copy
  Status (*compile_options_set_fast_math)(CompileOptions o, bool value);       // migraphx_compile_options_set_fast_math
  Status (*parse_onnx_buffer)(Program* out, const void* data, size_t size, OnnxOptions o);  // migraphx_parse_onnx_buffer
  Status (*quantize_fp16)(Program p);                                          // migraphx_quantize_fp16
  Status (*quantize_int8_options_create)(Int8Options* out);                    // migraphx_quantize_int8_options_create
  Status (*quantize_int8_options_destroy)(Int8Options o);                      // migraphx_quantize_int8_options_destroy
  Status (*quantize_int8_options_add_calibration_data)(Int8Options o, Parameters data);  // ..._add_calibration_data
  Status (*quantize_int8)(Program p, Target t, Int8Options o);                 // migraphx_quantize_int8
  // Optional: absent from some versions; null when missing.
  Status (*compile_options_set_exhaustive_tune_flag)(CompileOptions o, bool value);  // 2.9+
  Status (*quantize_bf16)(Program p);                                          // 2.13+
};

// Fills `api` from `handle`; returns the required entry points that are missing, comma-separated.
std::string Resolve(void* handle, Api* api);

// migraphx_shape_datatype_t of MIGraphX 2.14-2.16, by name, in the header's order:
// tuple, fp4x2, then MIGRAPHX_SHAPE_VISIT_TYPES (bool, half, float, double, uint8, int8, uint16,
// int16, int32, int64, uint32, uint64, fp8e4m3fnuz, fp8e4m3fn, fp8e5m2, bf16, fp8e5m2fnuz).
// Numbers are never written anywhere else: everything maps through this table by name.
struct DataTypeEntry {
  const char* mgx_name;        // the header's name, without the migraphx_shape_ prefix / _type suffix
  const char* switchyard_name; // @switchyard/core's DataType, or nullptr when Switchyard has none
  int value;                   // its position in the enum
  size_t bytes;                // element size, checked against migraphx_shape_bytes at load
};
extern const DataTypeEntry kDataTypes[];
extern const size_t kDataTypeCount;

// The enum value for a Switchyard type name, or -1.
int DataTypeFromName(const std::string& switchyard_name);
// The Switchyard type name for an enum value, or nullptr.
const DataTypeEntry* DataTypeFromValue(int value);

}  // namespace switchyard::migraphx_api
