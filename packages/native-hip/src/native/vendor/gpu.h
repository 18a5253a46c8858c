// The one place that knows which GPU vendor we build for. Everything else in the addon is written
// in HIP; when building with nvcc (SWITCHYARD_GPU_NVIDIA) the HIP names we use map onto CUDA with
// flat #defines -- no source rewriting. Add a name here when code starts using it, never elsewhere.
//
// Capability macros set here:
//   SWITCHYARD_GPU_PLATFORM_NAME  "amd" | "nvidia"  (reported by runtimeInfo())
//   SWITCHYARD_GPU_RUNTIME_NAME   "HIP" | "CUDA"    (used in error messages)
//   SWITCHYARD_GPU_ARCH_FROM_GCN  1 when hipDeviceProp_t has gcnArchName (AMD), else the arch is
//                                 formatted from the compute capability (sm_XY).
#pragma once

// SWITCHYARD_GPU_NAME(hipMalloc) is "hipMalloc" on AMD and "cudaMalloc" on NVIDIA: the name of the
// function actually called, for error messages (the extra level lets the #define above expand first).
#define SWITCHYARD_GPU_NAME(fn) SWITCHYARD_GPU_NAME_EXPANDED(fn)
#define SWITCHYARD_GPU_NAME_EXPANDED(fn) #fn

#if defined(SWITCHYARD_GPU_NVIDIA)

#include <cuda_runtime.h>

#define SWITCHYARD_GPU_PLATFORM_NAME "nvidia"
#define SWITCHYARD_GPU_RUNTIME_NAME "CUDA"
#define SWITCHYARD_GPU_ARCH_FROM_GCN 0

// Types
#define hipError_t cudaError_t
#define hipDeviceProp_t cudaDeviceProp
#define hipStream_t cudaStream_t
#define hipMemcpyKind cudaMemcpyKind

// Status codes
#define hipSuccess cudaSuccess
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorInvalidDevice cudaErrorInvalidDevice
#define hipErrorInsufficientDriver cudaErrorInsufficientDriver
#define hipErrorOutOfMemory cudaErrorMemoryAllocation

// Runtime and devices
#define hipGetErrorName cudaGetErrorName
#define hipGetErrorString cudaGetErrorString
#define hipGetLastError cudaGetLastError
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipDriverGetVersion cudaDriverGetVersion
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipSetDevice cudaSetDevice
#define hipGetDevice cudaGetDevice
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipMemGetInfo cudaMemGetInfo

// Memory
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice

// Streams
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamCreate cudaStreamCreate
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDefault cudaStreamDefault
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamQuery cudaStreamQuery
#define hipStreamWaitEvent cudaStreamWaitEvent
#define hipErrorNotReady cudaErrorNotReady
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemsetAsync cudaMemsetAsync
#define hipMemcpyDefault cudaMemcpyDefault

// Events
#define hipEvent_t cudaEvent_t
#define hipEventCreate cudaEventCreate
#define hipEventCreateWithFlags cudaEventCreateWithFlags
#define hipEventDefault cudaEventDefault
#define hipEventDisableTiming cudaEventDisableTiming
#define hipEventBlockingSync cudaEventBlockingSync
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventQuery cudaEventQuery
#define hipEventElapsedTime cudaEventElapsedTime
#define hipEventDestroy cudaEventDestroy

// Graph capture (plans: a prepared run is captured once and replayed)
#define hipGraph_t cudaGraph_t
#define hipGraphExec_t cudaGraphExec_t
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamEndCapture cudaStreamEndCapture
#define hipStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define hipGraphInstantiateWithFlags cudaGraphInstantiateWithFlags
#define hipGraphLaunch cudaGraphLaunch
#define hipGraphExecDestroy cudaGraphExecDestroy
#define hipGraphDestroy cudaGraphDestroy

// Pinned host memory (hipHostMalloc and cudaHostAlloc take the same arguments)
#define hipHostMalloc cudaHostAlloc
#define hipHostMallocDefault cudaHostAllocDefault
#define hipHostFree cudaFreeHost

// Kernel library (src/native/kernels): device attributes, async copies, fp16
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceAttributeWarpSize cudaDevAttrWarpSize
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemsetAsync cudaMemsetAsync
#define hipErrorInvalidConfiguration cudaErrorInvalidConfiguration
// __half, __half2float and __float2half have the same names in cuda_fp16.h and hip_fp16.h.
#include <cuda_fp16.h>

// Warp shuffle: HIP's __shfl_xor has no lane mask (a wavefront runs in lockstep); CUDA needs the
// _sync form. Kernels call SwitchyardShflXor and pass no width, so the full warp (warpSize) takes part.
#if defined(__CUDACC__)
template <typename T>
__device__ __forceinline__ T SwitchyardShflXor(T value, int lane_mask) {
  return __shfl_xor_sync(0xffffffffu, value, lane_mask);
}
// Orders a warp's shared-memory writes before its lanes read each other's (lanes may diverge).
__device__ __forceinline__ void SwitchyardSyncWarp() { __syncwarp(); }
#endif

#else  // AMD: real HIP

// Host-only translation units are compiled by the host C++ compiler (g++), which does not define the
// platform macro hipcc would; the build passes __HIP_PLATFORM_AMD__ for those.
#include <hip/hip_runtime.h>

#define SWITCHYARD_GPU_PLATFORM_NAME "amd"
#define SWITCHYARD_GPU_RUNTIME_NAME "HIP"
#define SWITCHYARD_GPU_ARCH_FROM_GCN 1

#if defined(__HIP__)  // device compilation by hipcc: the kernel library's fp16 type and shuffles
#include <hip/hip_fp16.h>
template <typename T>
__device__ __forceinline__ T SwitchyardShflXor(T value, int lane_mask) {
  return __shfl_xor(value, lane_mask);
}
// A wavefront runs in lockstep; the barrier keeps the compiler from moving LDS accesses across it.
__device__ __forceinline__ void SwitchyardSyncWarp() { __builtin_amdgcn_wave_barrier(); }
#endif

#endif
