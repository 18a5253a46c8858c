// hostBuffer(bytes, zeroed): ArrayBuffers over recycled native memory, for large run outputs.
//
// A fresh ArrayBuffer costs a page fault per 4 KiB on first touch, and each one a run hands out adds
// to V8's count of external memory allocated since the last mark-compact. V8 starts marking when
// that count nears the old generation's headroom, so a model whose outputs are a few MiB per run
// (a decoder's present key/values) set off a full collection every run or two. Blocks of this pool
// go back to it when their ArrayBuffer is collected and serve the next run already touched, as
// onnxruntime's arena does; V8 is told about the pool's memory once, not about each buffer, since
// collecting such a buffer frees nothing (host_buffer_pool.cc says how the count is kept).
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] hostBuffer(bytes: number, zeroed: boolean): ArrayBuffer | undefined. Undefined for sizes
// the pool does not serve (under 1 byte, over 256 MiB) and where the runtime forbids external
// buffers (a V8 sandbox): the caller then allocates as usual. A non-number or non-boolean argument
// throws INVALID_ARGUMENT.
Napi::Value HostBufferJs(const Napi::CallbackInfo& info);

// [sync] releaseHostBuffer(buffer: ArrayBuffer): boolean. Gives a live buffer's block back to the
// pool now, for the next hostBuffer call, and detaches `buffer` (its views then read as empty). For a
// run's intermediate values, which the executor knows no one else holds once their last reader ran:
// otherwise a block waits for the collector. False (nothing done) for a buffer this pool did not hand
// out, one already released, or one that cannot be detached; a non-ArrayBuffer throws INVALID_ARGUMENT.
Napi::Value ReleaseHostBufferJs(const Napi::CallbackInfo& info);

// [sync] trimHostBuffers(): frees this thread's idle blocks (live buffers are untouched).
Napi::Value TrimHostBuffersJs(const Napi::CallbackInfo& info);

// [sync] hostBufferStats(): {pooledBytes, liveBytes, reused, allocated} of this thread's pool, for
// tests and diagnostics.
Napi::Value HostBufferStatsJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
