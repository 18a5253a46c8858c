// HIP names the plan module uses beyond vendor/gpu.h: asynchronous copies, streams and graph
// capture. Same rule as vendor/gpu.h (flat #defines onto CUDA under nvcc); each is guarded so that
// vendor/gpu.h may later take the same name without a redefinition.
#pragma once

#include "vendor/gpu.h"

#if defined(SWITCHYARD_GPU_NVIDIA)
#ifndef hipStreamCreateWithFlags
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#endif
#ifndef hipStreamNonBlocking
#define hipStreamNonBlocking cudaStreamNonBlocking
#endif
#ifndef hipStreamDestroy
#define hipStreamDestroy cudaStreamDestroy
#endif
#ifndef hipMemcpyAsync
#define hipMemcpyAsync cudaMemcpyAsync
#endif
#ifndef hipMemsetAsync
#define hipMemsetAsync cudaMemsetAsync
#endif
#ifndef hipGraph_t
#define hipGraph_t cudaGraph_t
#endif
#ifndef hipGraphExec_t
#define hipGraphExec_t cudaGraphExec_t
#endif
#ifndef hipStreamBeginCapture
#define hipStreamBeginCapture cudaStreamBeginCapture
#endif
#ifndef hipStreamEndCapture
#define hipStreamEndCapture cudaStreamEndCapture
#endif
#ifndef hipStreamCaptureModeThreadLocal
#define hipStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#endif
#ifndef hipGraphInstantiateWithFlags
#define hipGraphInstantiateWithFlags cudaGraphInstantiateWithFlags
#endif
#ifndef hipGraphLaunch
#define hipGraphLaunch cudaGraphLaunch
#endif
#ifndef hipGraphExecDestroy
#define hipGraphExecDestroy cudaGraphExecDestroy
#endif
#ifndef hipGraphDestroy
#define hipGraphDestroy cudaGraphDestroy
#endif
#ifndef hipMemcpyDefault
#define hipMemcpyDefault cudaMemcpyDefault
#endif
#endif
