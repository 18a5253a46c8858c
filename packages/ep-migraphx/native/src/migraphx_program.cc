#include "migraphx_program.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include <switchyard/promise_worker.h>

#include "hip_device.h"
#include "migraphx_api.h"
#include "migraphx_library.h"

namespace switchyard {
namespace {

namespace api = migraphx_api;

std::mutex g_compile_mutex;

std::string StatusName(api::Status s) {
  switch (s) {
    case 1: return "bad_param";
    case 3: return "unknown_target";
    case 4: return "unknown_error";
    default: return "status " + std::to_string(s);
  }
}

// Throws a coded error naming the call when `status` is not success (the promise worker rejects with it).
void Check(api::Status status, const char* call) {
  if (status != api::kSuccess) throw CodedError("RUNTIME", std::string(call) + " failed: " + StatusName(status) + " (" + std::to_string(status) + ")");
}

const api::Api& Api() {
  const api::Api* a = LoadedApi();
  if (a == nullptr) throw CodedError("RUNTIME", "no MIGraphX library is loaded (call loadLibrary first)");
  return *a;
}

// A program handle shared by its JS object and any worker using it.
struct ProgramHandle {
  api::Program program = nullptr;
  // The GPU the program was compiled or loaded on (hip_device::kNoDevice on host targets): its
  // memory lives there, so every later call on it selects that device on its own thread first.
  int device = hip_device::kNoDevice;
  std::mutex run_mutex;
  bool disposed = false;
  ~ProgramHandle() {
    if (program != nullptr && LoadedApi() != nullptr) LoadedApi()->program_destroy(program);
  }
};
using SharedProgram = std::shared_ptr<ProgramHandle>;

// Plain-data tensors crossing threads.
struct HostTensor {
  std::string name;
  int type = 0;  // MIGraphX enum value
  std::vector<size_t> dims;
  std::vector<uint8_t> data;
};

// RAII for the C API's create/destroy pairs.
template <typename T>
struct Owned {
  T value = nullptr;
  api::Status (*destroy)(T) = nullptr;
  Owned(api::Status (*d)(T)) : destroy(d) {}
  ~Owned() {
    if (value != nullptr && destroy != nullptr) destroy(value);
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
};

size_t ElementCount(const std::vector<size_t>& dims) {
  size_t n = 1;
  for (size_t d : dims) n *= d;
  return n;
}

// ---- JS → baton parsing (main thread) ----

std::vector<size_t> ReadSizes(Napi::Env env, Napi::Value v, const std::string& what) {
  const Dims dims = ExpectDims(env, v, what + ": dims", 64);
  return std::vector<size_t>(dims.begin(), dims.end());
}

HostTensor ReadTensor(Napi::Env env, Napi::Value v, const std::string& what) {
  if (!v.IsObject()) ThrowJs(env, "INVALID_ARGUMENT", what + " must be {name, type, dims, data}", true);
  Napi::Object o = v.As<Napi::Object>();
  HostTensor t;
  t.name = ExpectString(env, o.Get("name"), what + ": name");
  Napi::Value type = o.Get("type");
  const std::string type_name = type.IsString() ? type.As<Napi::String>().Utf8Value() : "";
  t.type = api::DataTypeFromName(type_name);
  if (t.type < 0) ThrowJs(env, "INVALID_ARGUMENT", what + " '" + t.name + "': MIGraphX has no type for '" + type_name + "'", true);
  t.dims = ReadSizes(env, o.Get("dims"), what + " '" + t.name + "'");
  Napi::Value data = o.Get("data");
  if (!data.IsTypedArray()) ThrowJs(env, "INVALID_ARGUMENT", what + " '" + t.name + "': data must be a typed array", true);
  Napi::TypedArray array = data.As<Napi::TypedArray>();
  const size_t expected = ElementCount(t.dims) * api::DataTypeFromValue(t.type)->bytes;
  if (array.ByteLength() != expected) {
    ThrowJs(env, "INVALID_ARGUMENT", what + " '" + t.name + "': data has " + std::to_string(array.ByteLength()) + " bytes, dims need " + std::to_string(expected), true);
  }
  const uint8_t* bytes = static_cast<const uint8_t*>(array.ArrayBuffer().Data()) + array.ByteOffset();
  t.data.assign(bytes, bytes + expected);
  return t;
}

std::vector<HostTensor> ReadTensors(Napi::Env env, Napi::Value v, const std::string& what) {
  if (!v.IsArray()) ThrowJs(env, "INVALID_ARGUMENT", what + " must be an array", true);
  Napi::Array a = v.As<Napi::Array>();
  std::vector<HostTensor> out;
  for (uint32_t i = 0; i < a.Length(); i++) out.push_back(ReadTensor(env, a.Get(i), what));
  return out;
}

// A HIP device ordinal, or kNoDevice when absent (undefined/null: a host target).
int ReadDevice(Napi::Env env, Napi::Value v, const std::string& what) {
  if (IsNullish(v)) return hip_device::kNoDevice;
  const int64_t device = ExpectInt(env, v, what);
  if (device < 0 || device > 1024) ThrowJs(env, "INVALID_ARGUMENT", what + " must be a GPU ordinal from 0 to 1024, got " + std::to_string(device), true);
  return static_cast<int>(device);
}

// ---- baton → MIGraphX (worker threads) ----

// Adds `tensors` to `params`. Shapes and arguments stay alive in `keep` until the call is done.
struct ParameterSet {
  Owned<api::Parameters> params{nullptr};
  std::vector<std::unique_ptr<Owned<api::Shape>>> shapes;
  std::vector<std::unique_ptr<Owned<api::Argument>>> arguments;
};
std::unique_ptr<ParameterSet> MakeParameters(const api::Api& a, std::vector<HostTensor>& tensors) {
  auto set = std::make_unique<ParameterSet>();
  set->params.destroy = a.parameters_destroy;
  Check(a.parameters_create(&set->params.value), "migraphx_program_parameters_create");
  for (HostTensor& t : tensors) {
    auto shape = std::make_unique<Owned<api::Shape>>(a.shape_destroy);
    Check(a.shape_create(&shape->value, t.type, t.dims.data(), t.dims.size()), "migraphx_shape_create");
    auto arg = std::make_unique<Owned<api::Argument>>(a.argument_destroy);
    Check(a.argument_create(&arg->value, shape->value, t.data.data()), "migraphx_argument_create");
    Check(a.parameters_add(set->params.value, t.name.c_str(), arg->value), "migraphx_program_parameters_add");
    set->shapes.push_back(std::move(shape));
    set->arguments.push_back(std::move(arg));
  }
  return set;
}

struct ShapeInfo {
  std::string name;
  int type = 0;
  std::vector<size_t> dims;
};

ShapeInfo ReadShape(const api::Api& a, const void* shape) {
  ShapeInfo info;
  Check(a.shape_type(&info.type, shape), "migraphx_shape_type");
  const size_t* lengths = nullptr;
  size_t n = 0;
  Check(a.shape_lengths(&lengths, &n, shape), "migraphx_shape_lengths");
  info.dims.assign(lengths, lengths + n);
  return info;
}

Napi::Value ShapeToJs(Napi::Env env, const ShapeInfo& s, bool with_name) {
  Napi::Object o = Napi::Object::New(env);
  if (with_name) o.Set("name", s.name);
  const api::DataTypeEntry* e = api::DataTypeFromValue(s.type);
  o.Set("type", e != nullptr ? Napi::Value(Napi::String::New(env, e->switchyard_name)) : Napi::Value(Napi::String::New(env, "migraphx:" + std::to_string(s.type))));
  Napi::Array dims = Napi::Array::New(env, s.dims.size());
  for (size_t i = 0; i < s.dims.size(); i++) dims.Set(static_cast<uint32_t>(i), static_cast<double>(s.dims[i]));
  o.Set("dims", dims);
  return o;
}

// ---- Program ----

class Program : public Napi::ObjectWrap<Program> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Program",
                       {InstanceMethod<&Program::Run>("run"), InstanceMethod<&Program::Save>("save"),
                        InstanceMethod<&Program::ParameterShapes>("parameterShapes"),
                        InstanceMethod<&Program::OutputShapes>("outputShapes"), InstanceMethod<&Program::Dispose>("dispose")});
  }

  static Napi::Object New(Napi::Env env, SharedProgram handle) {
    Napi::FunctionReference* ctor = env.GetInstanceData<Napi::FunctionReference>();
    return ctor->New({Napi::External<SharedProgram>::New(env, new SharedProgram(std::move(handle)), [](Napi::Env, SharedProgram* p) { delete p; })});
  }

  explicit Program(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Program>(info) {
    if (info.Length() != 1 || !info[0].IsExternal()) ThrowJs(info.Env(), "INVALID_ARGUMENT", "Program is made by compileOnnx() or loadProgram()", true);
    handle_ = *info[0].As<Napi::External<SharedProgram>>().Data();
  }

 private:
  SharedProgram Live(Napi::Env env) {
    if (!handle_ || handle_->disposed) ThrowJs(env, "RELEASED", "this MIGraphX program was disposed");
    return handle_;
  }

  Napi::Value Run(const Napi::CallbackInfo& info);
  Napi::Value Save(const Napi::CallbackInfo& info);

  Napi::Value ParameterShapes(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    SharedProgram p = Live(env);
    std::lock_guard<std::mutex> lock(p->run_mutex);
    return GuardSync(env, "parameterShapes", [&]() -> Napi::Value {
      const api::Api& a = Api();
      Owned<api::ParameterShapes> shapes(a.parameter_shapes_destroy);
      Check(a.program_get_parameter_shapes(&shapes.value, p->program), "migraphx_program_get_parameter_shapes");
      size_t n = 0;
      Check(a.parameter_shapes_size(&n, shapes.value), "migraphx_program_parameter_shapes_size");
      std::vector<const char*> names(n, nullptr);
      if (n > 0) Check(a.parameter_shapes_names(names.data(), shapes.value), "migraphx_program_parameter_shapes_names");
      Napi::Array out = Napi::Array::New(env, n);
      for (size_t i = 0; i < n; i++) {
        const void* shape = nullptr;
        Check(a.parameter_shapes_get(&shape, shapes.value, names[i]), "migraphx_program_parameter_shapes_get");
        ShapeInfo info = ReadShape(a, shape);
        info.name = names[i] != nullptr ? names[i] : "";
        out.Set(static_cast<uint32_t>(i), ShapeToJs(env, info, true));
      }
      return out;
    });
  }

  Napi::Value OutputShapes(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    SharedProgram p = Live(env);
    std::lock_guard<std::mutex> lock(p->run_mutex);
    return GuardSync(env, "outputShapes", [&]() -> Napi::Value {
      const api::Api& a = Api();
      Owned<api::Shapes> shapes(a.shapes_destroy);
      Check(a.program_get_output_shapes(&shapes.value, p->program), "migraphx_program_get_output_shapes");
      size_t n = 0;
      Check(a.shapes_size(&n, shapes.value), "migraphx_shapes_size");
      Napi::Array out = Napi::Array::New(env, n);
      for (size_t i = 0; i < n; i++) {
        const void* shape = nullptr;
        Check(a.shapes_get(&shape, shapes.value, i), "migraphx_shapes_get");
        out.Set(static_cast<uint32_t>(i), ShapeToJs(env, ReadShape(a, shape), false));
      }
      return out;
    });
  }

  Napi::Value Dispose(const Napi::CallbackInfo& info) {
    if (handle_) {
      // Waits for a run in progress; the program itself is destroyed when the last worker lets go.
      std::lock_guard<std::mutex> lock(handle_->run_mutex);
      handle_->disposed = true;
    }
    handle_.reset();
    return info.Env().Undefined();
  }

  SharedProgram handle_;
};

// ---- promises: plain-data batons run on libuv's pool by the toolkit's PromiseWorker ----

struct RunBaton {
  SharedProgram program;
  std::vector<HostTensor> inputs;
  std::vector<HostTensor> outputs;

  const char* Context() const { return ""; }  // the TS caller names the partition

  void Run() {
    const api::Api& a = Api();
    std::lock_guard<std::mutex> lock(program->run_mutex);
    if (program->disposed) throw CodedError("RELEASED", "this MIGraphX program was disposed");
    hip_device::Select(program->device);
    std::unique_ptr<ParameterSet> params = MakeParameters(a, inputs);
    Owned<api::Arguments> results(a.arguments_destroy);
    Check(a.program_run(&results.value, program->program, params->params.value), "migraphx_program_run");
    size_t n = 0;
    Check(a.arguments_size(&n, results.value), "migraphx_arguments_size");
    for (size_t i = 0; i < n; i++) {
      const void* arg = nullptr;
      Check(a.arguments_get(&arg, results.value, i), "migraphx_arguments_get");
      const void* shape = nullptr;
      Check(a.argument_shape(&shape, arg), "migraphx_argument_shape");
      ShapeInfo info = ReadShape(a, shape);
      size_t bytes = 0;
      Check(a.shape_bytes(&bytes, shape), "migraphx_shape_bytes");
      const api::DataTypeEntry* e = api::DataTypeFromValue(info.type);
      if (e == nullptr) throw CodedError("UNSUPPORTED", "output " + std::to_string(i) + " has MIGraphX datatype " + std::to_string(info.type) + ", which Switchyard has no tensor type for");
      if (bytes != ElementCount(info.dims) * e->bytes) throw CodedError("UNSUPPORTED", "output " + std::to_string(i) + " is not a packed (standard) tensor");
      char* buffer = nullptr;
      Check(a.argument_buffer(&buffer, arg), "migraphx_argument_buffer");
      HostTensor out;
      out.type = info.type;
      out.dims = info.dims;
      // offload_copy (or a host target) leaves results in host memory, so a plain copy reads them.
      out.data.assign(reinterpret_cast<uint8_t*>(buffer), reinterpret_cast<uint8_t*>(buffer) + bytes);
      outputs.push_back(std::move(out));
    }
  }

  Napi::Value Result(Napi::Env env) {
    Napi::Array out = Napi::Array::New(env, outputs.size());
    for (size_t i = 0; i < outputs.size(); i++) {
      HostTensor& t = outputs[i];
      ShapeInfo info{"", t.type, t.dims};
      Napi::Object o = ShapeToJs(env, info, false).As<Napi::Object>();
      Napi::ArrayBuffer data = Napi::ArrayBuffer::New(env, t.data.size());
      if (!t.data.empty()) std::memcpy(data.Data(), t.data.data(), t.data.size());
      o.Set("data", data);
      out.Set(static_cast<uint32_t>(i), o);
    }
    return out;
  }
};

Napi::Value Program::Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  SharedProgram p = Live(env);
  return PromiseWorker<RunBaton>::QueueOnPool(env, RunBaton{p, ReadTensors(env, info[0], "run(inputs): input"), {}});
}

struct SaveBaton {
  SharedProgram program;
  std::string path;
  std::string format;

  const char* Context() const { return ""; }  // the TS caller names the partition

  void Run() {
    const api::Api& a = Api();
    std::lock_guard<std::mutex> lock(program->run_mutex);
    hip_device::Select(program->device);
    Owned<api::FileOptions> options(a.file_options_destroy);
    Check(a.file_options_create(&options.value), "migraphx_file_options_create");
    Check(a.file_options_set_file_format(options.value, format.c_str()), "migraphx_file_options_set_file_format");
    Check(a.save(program->program, path.c_str(), options.value), "migraphx_save");
  }
};

Napi::Value Program::Save(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  SharedProgram p = Live(env);
  SaveBaton baton{p, ExpectString(env, info[0], "save(path): path"), ExpectString(env, info[1], "save(path, format): format")};
  return PromiseWorker<SaveBaton>::QueueOnPool(env, std::move(baton));
}

// ---- compile and load ----

struct CompileBaton {
  std::vector<uint8_t> onnx;
  std::vector<std::pair<std::string, std::vector<size_t>>> input_shapes;
  size_t default_dim_value = 1;
  std::string quantization;  // none | fp16 | bf16 | int8
  std::vector<std::vector<HostTensor>> calibration;
  std::string target;
  bool offload_copy = true;
  bool exhaustive_tune = false;
  bool fast_math = false;
  int device = hip_device::kNoDevice;
  SharedProgram result;

  const char* Context() const { return ""; }  // the TS caller names the partition

  void Run() {
    const api::Api& a = Api();
    std::lock_guard<std::mutex> lock(g_compile_mutex);
    // Before anything that may touch the GPU: the target, quantization and compile allocate on the current device.
    hip_device::Select(device);
    auto handle = std::make_shared<ProgramHandle>();
    handle->device = device;
    {
      Owned<api::OnnxOptions> options(a.onnx_options_destroy);
      Check(a.onnx_options_create(&options.value), "migraphx_onnx_options_create");
      for (auto& [name, dims] : input_shapes) {
        Check(a.onnx_options_set_input_parameter_shape(options.value, name.c_str(), dims.data(), dims.size()), "migraphx_onnx_options_set_input_parameter_shape");
      }
      Check(a.onnx_options_set_default_dim_value(options.value, default_dim_value), "migraphx_onnx_options_set_default_dim_value");
      Check(a.parse_onnx_buffer(&handle->program, onnx.data(), onnx.size(), options.value), "migraphx_parse_onnx_buffer");
    }
    Owned<api::Target> created(a.target_destroy);
    Check(a.target_create(&created.value, target.c_str()), "migraphx_target_create");
    // Quantization rewrites the parsed program before it is compiled for the target.
    if (quantization == "fp16") {
      Check(a.quantize_fp16(handle->program), "migraphx_quantize_fp16");
    } else if (quantization == "bf16") {
      if (a.quantize_bf16 == nullptr) throw CodedError("UNSUPPORTED", "this MIGraphX has no migraphx_quantize_bf16 (added in 2.13)");
      Check(a.quantize_bf16(handle->program), "migraphx_quantize_bf16");
    } else if (quantization == "int8") {
      Owned<api::Int8Options> options(a.quantize_int8_options_destroy);
      Check(a.quantize_int8_options_create(&options.value), "migraphx_quantize_int8_options_create");
      std::vector<std::unique_ptr<ParameterSet>> sets;  // alive until quantize_int8 has run
      for (auto& set : calibration) {
        sets.push_back(MakeParameters(a, set));
        Check(a.quantize_int8_options_add_calibration_data(options.value, sets.back()->params.value), "migraphx_quantize_int8_options_add_calibration_data");
      }
      Check(a.quantize_int8(handle->program, created.value, options.value), "migraphx_quantize_int8");
    }
    Owned<api::CompileOptions> options(a.compile_options_destroy);
    Check(a.compile_options_create(&options.value), "migraphx_compile_options_create");
    Check(a.compile_options_set_offload_copy(options.value, offload_copy), "migraphx_compile_options_set_offload_copy");
    Check(a.compile_options_set_fast_math(options.value, fast_math), "migraphx_compile_options_set_fast_math");
    if (exhaustive_tune && a.compile_options_set_exhaustive_tune_flag != nullptr) {
      Check(a.compile_options_set_exhaustive_tune_flag(options.value, true), "migraphx_compile_options_set_exhaustive_tune_flag");
    }
    Check(a.program_compile(handle->program, created.value, options.value), "migraphx_program_compile");
    result = handle;
  }

  Napi::Value Result(Napi::Env env) { return Program::New(env, result); }
};

Napi::Value CompileOnnx(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsTypedArray() || !info[1].IsObject()) ThrowJs(env, "INVALID_ARGUMENT", "compileOnnx(onnx: Uint8Array, options: object)", true);
  Napi::TypedArray onnx = info[0].As<Napi::TypedArray>();
  Napi::Object o = info[1].As<Napi::Object>();
  CompileBaton baton;
  const uint8_t* bytes = static_cast<const uint8_t*>(onnx.ArrayBuffer().Data()) + onnx.ByteOffset();
  baton.onnx.assign(bytes, bytes + onnx.ByteLength());
  const std::string shapesError = "compileOnnx: options.inputShapes must be an array of [name, dims]";
  Napi::Value shapes = o.Get("inputShapes");
  if (!shapes.IsArray()) ThrowJs(env, "INVALID_ARGUMENT", shapesError, true);
  Napi::Array list = shapes.As<Napi::Array>();
  for (uint32_t i = 0; i < list.Length(); i++) {
    Napi::Value entry = list.Get(i);
    if (!entry.IsArray() || entry.As<Napi::Array>().Length() != 2) ThrowJs(env, "INVALID_ARGUMENT", shapesError, true);
    Napi::Array pair = entry.As<Napi::Array>();
    baton.input_shapes.emplace_back(ExpectString(env, pair.Get(0u), "compileOnnx: input name"), ReadSizes(env, pair.Get(1u), "compileOnnx: input shape"));
  }
  const int64_t dim = ReadInt(env, o, "defaultDimValue", "compileOnnx", 1);
  if (dim < 1) ThrowJs(env, "INVALID_ARGUMENT", "compileOnnx: options.defaultDimValue must be >= 1", true);
  baton.default_dim_value = static_cast<size_t>(dim);
  baton.quantization = ReadString(env, o, "quantization", "compileOnnx", "none");
  if (baton.quantization != "none" && baton.quantization != "fp16" && baton.quantization != "bf16" && baton.quantization != "int8") {
    ThrowJs(env, "INVALID_ARGUMENT", "compileOnnx: quantization must be none, fp16, bf16 or int8", true);
  }
  Napi::Value calibration = o.Get("calibration");
  if (calibration.IsArray()) {
    Napi::Array sets = calibration.As<Napi::Array>();
    for (uint32_t i = 0; i < sets.Length(); i++) baton.calibration.push_back(ReadTensors(env, sets.Get(i), "compileOnnx: calibration tensor"));
  }
  baton.target = ExpectString(env, o.Get("target"), "compileOnnx: options.target");
  baton.offload_copy = ReadBool(env, o, "offloadCopy", "compileOnnx", false);
  baton.exhaustive_tune = ReadBool(env, o, "exhaustiveTune", "compileOnnx", false);
  baton.fast_math = ReadBool(env, o, "fastMath", "compileOnnx", false);
  baton.device = ReadDevice(env, o.Get("deviceId"), "compileOnnx: options.deviceId");
  return PromiseWorker<CompileBaton>::QueueOnPool(env, std::move(baton));
}

struct LoadBaton {
  std::string path;
  std::string format;
  int device = hip_device::kNoDevice;
  SharedProgram result;

  const char* Context() const { return ""; }  // the TS caller names the partition

  void Run() {
    const api::Api& a = Api();
    std::lock_guard<std::mutex> lock(g_compile_mutex);
    hip_device::Select(device);  // migraphx_load puts the program's literals on the current device
    Owned<api::FileOptions> options(a.file_options_destroy);
    Check(a.file_options_create(&options.value), "migraphx_file_options_create");
    Check(a.file_options_set_file_format(options.value, format.c_str()), "migraphx_file_options_set_file_format");
    auto handle = std::make_shared<ProgramHandle>();
    handle->device = device;
    Check(a.load(&handle->program, path.c_str(), options.value), "migraphx_load");
    result = handle;
  }

  Napi::Value Result(Napi::Env env) { return Program::New(env, result); }
};

Napi::Value LoadProgram(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  LoadBaton baton{ExpectString(env, info[0], "loadProgram(path): path"), ExpectString(env, info[1], "loadProgram(path, format): format"),
                  ReadDevice(env, info[2], "loadProgram(path, format, deviceId): deviceId"), nullptr};
  return PromiseWorker<LoadBaton>::QueueOnPool(env, std::move(baton));
}

}  // namespace

void RegisterProgram(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = Program::Define(env);
  env.SetInstanceData<Napi::FunctionReference>(new Napi::FunctionReference(Napi::Persistent(ctor)));
  exports.Set("Program", ctor);
  exports.Set("compileOnnx", Napi::Function::New<CompileOnnx>(env, "compileOnnx"));
  exports.Set("loadProgram", Napi::Function::New<LoadProgram>(env, "loadProgram"));
}

}  // namespace switchyard
