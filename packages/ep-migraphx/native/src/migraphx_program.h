// Compiled MIGraphX programs as JS objects. One ObjectWrap (Program) per program; the slow calls
// (parse + quantize + compile, run, save, load) run on libuv's pool as plain-data batons through the
// native toolkit's PromiseWorker (coded errors), so nothing touches V8 off the main thread.
//
// Threading: runs of one program are serialized by a mutex the program owns (MIGraphX does not
// promise that migraphx_program_run is reentrant for one program); different programs run in
// parallel on libuv's pool. Compiles and loads are serialized process-wide, because compiling
// touches MIGraphX's global state (target registry, kernel caches) and parallelizes internally anyway.
#pragma once

#include <napi.h>

namespace switchyard {

// Registers Program and the module functions below on `exports`.
//   [async] compileOnnx(onnx: Uint8Array, options) -> Promise<Program>   (options.deviceId: the GPU, absent on host targets)
//   [async] loadProgram(path: string, format: string, deviceId?: number) -> Promise<Program>
// A program remembers its device: its run and save select that device on their worker thread first.
//   Program:
//     [async] run(inputs: {name, type, dims, data}[]) -> Promise<{type, dims, data: ArrayBuffer}[]>
//     [async] save(path: string, format: string) -> Promise<void>
//     [sync]  parameterShapes() -> {name, type, dims}[]
//     [sync]  outputShapes() -> {type, dims}[]
//     [sync]  dispose()   (waits for a run in progress; later calls are refused)
void RegisterProgram(Napi::Env env, Napi::Object exports);

}  // namespace switchyard
