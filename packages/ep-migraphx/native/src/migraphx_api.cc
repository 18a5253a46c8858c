#include "migraphx_api.h"

#include <dlfcn.h>

namespace switchyard::migraphx_api {

const DataTypeEntry kDataTypes[] = {
    {"bool", "bool", 2, 1},       {"half", "float16", 3, 2},    {"float", "float32", 4, 4},
    {"double", "float64", 5, 8},  {"uint8", "uint8", 6, 1},     {"int8", "int8", 7, 1},
    {"uint16", "uint16", 8, 2},   {"int16", "int16", 9, 2},     {"int32", "int32", 10, 4},
    {"int64", "int64", 11, 8},    {"uint32", "uint32", 12, 4},  {"uint64", "uint64", 13, 8},
    {"bf16", "bfloat16", 17, 2},
};
const size_t kDataTypeCount = sizeof(kDataTypes) / sizeof(kDataTypes[0]);

int DataTypeFromName(const std::string& name) {
  for (const DataTypeEntry& e : kDataTypes) {
    if (name == e.switchyard_name) return e.value;
  }
  return -1;
}

const DataTypeEntry* DataTypeFromValue(int value) {
  for (const DataTypeEntry& e : kDataTypes) {
    if (e.value == value) return &e;
  }
  return nullptr;
}

namespace {

template <typename Fn>
void Bind(void* handle, const char* symbol, Fn* slot, bool required, std::string* missing) {
  *slot = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (*slot == nullptr && required) {
    if (!missing->empty()) *missing += ", ";
    *missing += symbol;
  }
}

}  // namespace

std::string Resolve(void* handle, Api* api) {
  std::string missing;
  auto req = [&](const char* symbol, auto* slot) { Bind(handle, symbol, slot, true, &missing); };
  auto opt = [&](const char* symbol, auto* slot) { Bind(handle, symbol, slot, false, &missing); };
  req("migraphx_get_onnx_operators_size", &api->get_onnx_operators_size);
  req("migraphx_get_onnx_operator_name_at_index", &api->get_onnx_operator_name_at_index);
  req("migraphx_parse_onnx_buffer", &api->parse_onnx_buffer);
  req("migraphx_target_create", &api->target_create);
  req("migraphx_program_compile", &api->program_compile);
  req("migraphx_program_run", &api->program_run);
  req("migraphx_program_get_parameter_shapes", &api->program_get_parameter_shapes);
  req("migraphx_program_get_output_shapes", &api->program_get_output_shapes);
  req("migraphx_quantize_fp16", &api->quantize_fp16);
  req("migraphx_save", &api->save);
  req("migraphx_load", &api->load);
  req("migraphx_shape_create", &api->shape_create);
  req("migraphx_shape_destroy", &api->shape_destroy);
  req("migraphx_shape_lengths", &api->shape_lengths);
  req("migraphx_shape_type", &api->shape_type);
  req("migraphx_shape_bytes", &api->shape_bytes);
  req("migraphx_argument_create", &api->argument_create);
  req("migraphx_argument_destroy", &api->argument_destroy);
  req("migraphx_argument_shape", &api->argument_shape);
  req("migraphx_argument_buffer", &api->argument_buffer);
  req("migraphx_target_destroy", &api->target_destroy);
  req("migraphx_program_parameter_shapes_destroy", &api->parameter_shapes_destroy);
  req("migraphx_program_parameter_shapes_size", &api->parameter_shapes_size);
  req("migraphx_program_parameter_shapes_get", &api->parameter_shapes_get);
  req("migraphx_program_parameter_shapes_names", &api->parameter_shapes_names);
  req("migraphx_program_parameters_create", &api->parameters_create);
  req("migraphx_program_parameters_destroy", &api->parameters_destroy);
  req("migraphx_program_parameters_add", &api->parameters_add);
  req("migraphx_arguments_destroy", &api->arguments_destroy);
  req("migraphx_arguments_size", &api->arguments_size);
  req("migraphx_arguments_get", &api->arguments_get);
  req("migraphx_shapes_destroy", &api->shapes_destroy);
  req("migraphx_shapes_size", &api->shapes_size);
  req("migraphx_shapes_get", &api->shapes_get);
  req("migraphx_program_destroy", &api->program_destroy);
  req("migraphx_onnx_options_create", &api->onnx_options_create);
  req("migraphx_onnx_options_destroy", &api->onnx_options_destroy);
  req("migraphx_onnx_options_set_input_parameter_shape", &api->onnx_options_set_input_parameter_shape);
  req("migraphx_onnx_options_set_default_dim_value", &api->onnx_options_set_default_dim_value);
  req("migraphx_file_options_create", &api->file_options_create);
  req("migraphx_file_options_destroy", &api->file_options_destroy);
  req("migraphx_file_options_set_file_format", &api->file_options_set_file_format);
  req("migraphx_compile_options_create", &api->compile_options_create);
  req("migraphx_compile_options_destroy", &api->compile_options_destroy);
  req("migraphx_compile_options_set_offload_copy", &api->compile_options_set_offload_copy);
  req("migraphx_compile_options_set_fast_math", &api->compile_options_set_fast_math);
  req("migraphx_quantize_int8_options_create", &api->quantize_int8_options_create);
  req("migraphx_quantize_int8_options_destroy", &api->quantize_int8_options_destroy);
  req("migraphx_quantize_int8_options_add_calibration_data", &api->quantize_int8_options_add_calibration_data);
  req("migraphx_quantize_int8", &api->quantize_int8);
  opt("migraphx_compile_options_set_exhaustive_tune_flag", &api->compile_options_set_exhaustive_tune_flag);
  opt("migraphx_quantize_bf16", &api->quantize_bf16);
  return missing;
}

}  // namespace switchyard::migraphx_api
