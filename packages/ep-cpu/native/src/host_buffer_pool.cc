#include "host_buffer_pool.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>

#include "tensor_args.h"

namespace switchyard {
namespace {

constexpr size_t kPage = 4096;
// Idle memory a pool keeps for reuse; blocks coming back beyond it are freed.
constexpr size_t kMaxPooledBytes = size_t{512} << 20;
// Larger requests are not pooled: one of them would take most of the pool.
constexpr size_t kMaxBlockBytes = size_t{256} << 20;

// Blocks from kMappedBytes up are mappings of their own, made with MAP_POPULATE. Why: a fresh block costs a
// page fault per 4 KiB on first touch, and on the virtual machines this was measured on a fault took
// 9-13 µs (an 816 KiB output: 1.8-2.5 ms of faults, most of a small model's run; a 16 MiB one 43-54 ms).
// Populated at mapping time they cost 4-5 µs a page at 816 KiB and ~2 at 16 MiB. (Transparent huge pages
// measured 0.2 µs a page for the first few, then 17 µs once the kernel had to compact memory for each.)
constexpr size_t kMappedBytes = size_t{256} << 10;

size_t SizeClass(size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

// A new block of `cls` bytes (a size class), or null.
void* NewBlock(size_t cls) {
  if (cls < kMappedBytes) {
    void* block = nullptr;
    return posix_memalign(&block, 64, cls) == 0 ? block : nullptr;
  }
  void* block = mmap(nullptr, cls, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  return block == MAP_FAILED ? nullptr : block;
}

void FreeBlock(void* block, size_t cls) {
  if (cls < kMappedBytes) std::free(block);
  else munmap(block, cls);
}

void AdjustExternal(napi_env env, int64_t delta) {
  int64_t total = 0;
  napi_adjust_external_memory(env, delta, &total);
}

// One pool per environment (the main thread, each worker): its buffers are collected, and their
// finalizers run, on that environment's thread, so the pool needs no lock.
//
// What V8 is told. V8 counts a new ArrayBuffer's bytes as external memory and uncounts them when it
// collects the buffer, and it starts marking when that count has grown by about the old generation's
// headroom since the last mark-compact. A pooled buffer's memory is not freed when it is collected,
// so the count is cancelled at both ends (after making the buffer; in the finalizer, which runs after
// V8's uncounting). Between those two moments the count sits below the truth by the collected
// buffers' bytes; so that it can never go below zero, every block the pool owns, live or idle, is
// counted once for as long as the pool owns it: memory the pool holds is external memory, and that
// count changes only when the pool grows or shrinks, not with every run. releaseHostBuffer detaches a
// buffer, which V8 uncounts like a collection; its finalizer then counts it back and nothing more.
struct Ticket;

struct EnvPool {
  napi_env env = nullptr;
  // Idle blocks by size (ordered: a request takes the smallest that fits, see Take).
  std::map<size_t, std::vector<void*>> idle;
  // The ticket of each live buffer by its block, for releaseHostBuffer.
  std::unordered_map<void*, Ticket*> live;
  size_t pooledBytes = 0;
  size_t liveBytes = 0;
  double reused = 0;
  double allocated = 0;
  // The environment's reference plus one per live buffer: the last one to go deletes the pool.
  size_t refs = 1;
  // Set when the environment is torn down: buffers collected after that free their memory.
  bool closed = false;
};

thread_local EnvPool* currentPool = nullptr;

void Unref(EnvPool* pool) {
  if (--pool->refs == 0) delete pool;
}

// Frees every idle block; returns their bytes (what V8 was told the pool holds for them).
size_t FreeIdle(EnvPool* pool) {
  size_t freed = 0;
  for (auto& [cls, blocks] : pool->idle) {
    for (void* block : blocks) FreeBlock(block, cls);
    freed += cls * blocks.size();
  }
  pool->idle.clear();
  pool->pooledBytes = 0;
  return freed;
}

void ClosePool(void* arg) {
  auto* pool = static_cast<EnvPool*>(arg);
  FreeIdle(pool);  // the environment is going: no count to correct
  pool->closed = true;
  if (currentPool == pool) currentPool = nullptr;
  Unref(pool);
}

EnvPool* PoolFor(napi_env env) {
  if (currentPool == nullptr) {
    currentPool = new EnvPool();
    currentPool->env = env;
    napi_add_env_cleanup_hook(env, ClosePool, currentPool);
  }
  return currentPool;
}

// A block of at least `cls` bytes (*blockBytes says how many): the smallest idle one up to twice the
// request, so that a run's values of differing sizes share blocks as their lifetimes allow (exact sizes
// alone left most blocks of a segmentation model's first run idle), else a new one.
void* Take(EnvPool* pool, size_t cls, size_t* blockBytes) {
  for (auto it = pool->idle.lower_bound(cls); it != pool->idle.end() && it->first <= 2 * cls; ++it) {
    if (it->second.empty()) continue;
    void* block = it->second.back();
    it->second.pop_back();
    pool->pooledBytes -= it->first;
    pool->reused++;
    *blockBytes = it->first;
    return block;
  }
  void* block = NewBlock(cls);
  if (block == nullptr) return nullptr;
  AdjustExternal(pool->env, static_cast<int64_t>(cls));
  pool->allocated++;
  *blockBytes = cls;
  return block;
}

// Returns a block that has no buffer (any more) to the idle lists, or frees it beyond the cap.
void Return(EnvPool* pool, void* block, size_t cls) {
  if (pool->pooledBytes + cls <= kMaxPooledBytes) {
    pool->idle[cls].push_back(block);
    pool->pooledBytes += cls;
    return;
  }
  FreeBlock(block, cls);
  AdjustExternal(pool->env, -static_cast<int64_t>(cls));
}

// What a buffer's finalizer needs: its pool and its exact byte length; `released` once
// releaseHostBuffer gave the block back (the finalizer then leaves the block alone: it may serve
// another buffer by now).
struct Ticket {
  EnvPool* pool;
  size_t bytes;
  size_t blockBytes;  // the block's own size (a request may take a larger idle block)
  bool released = false;
};

void Finalize(napi_env env, void* data, void* hint) {
  auto* ticket = static_cast<Ticket*>(hint);
  EnvPool* pool = ticket->pool;
  const size_t bytes = ticket->bytes;
  const size_t cls = ticket->blockBytes;
  const bool released = ticket->released;
  delete ticket;
  if (!pool->closed) AdjustExternal(env, static_cast<int64_t>(bytes));  // V8 uncounted the buffer's bytes: count them back
  if (!released) {
    pool->liveBytes -= cls;
    pool->live.erase(data);
    if (pool->closed) FreeBlock(data, cls);
    else Return(pool, data, cls);
  }
  Unref(pool);
}

}  // namespace

Napi::Value HostBufferJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsNumber()) ThrowArgument(env, "hostBuffer", "bytes must be a number");
  if (!info[1].IsBoolean()) ThrowArgument(env, "hostBuffer", "zeroed must be a boolean");
  const double requested = info[0].As<Napi::Number>().DoubleValue();
  if (!(requested >= 1 && requested <= static_cast<double>(kMaxBlockBytes)) || requested != static_cast<double>(static_cast<size_t>(requested))) {
    return env.Undefined();
  }
  const size_t bytes = static_cast<size_t>(requested);
  EnvPool* pool = PoolFor(env);
  size_t cls = 0;
  void* block = Take(pool, SizeClass(bytes), &cls);
  if (block == nullptr) return env.Undefined();
  // Kernels expect fresh outputs to read as zeros, as a new ArrayBuffer does.
  if (info[1].As<Napi::Boolean>().Value()) std::memset(block, 0, bytes);
  auto* ticket = new Ticket{pool, bytes, cls};
  napi_value buffer;
  if (napi_create_external_arraybuffer(env, block, bytes, Finalize, ticket, &buffer) != napi_ok) {
    // A runtime with a V8 sandbox refuses external buffers: clear the pending error, keep the block.
    delete ticket;
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
    Return(pool, block, cls);
    return env.Undefined();
  }
  pool->liveBytes += cls;
  pool->live[block] = ticket;
  pool->refs++;
  AdjustExternal(env, -static_cast<int64_t>(bytes));  // counted already, as a block the pool owns
  return Napi::Value(env, buffer);
}

Napi::Value ReleaseHostBufferJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsArrayBuffer()) ThrowArgument(env, "releaseHostBuffer", "buffer must be an ArrayBuffer");
  EnvPool* pool = currentPool;
  void* data = nullptr;
  size_t length = 0;
  napi_value buffer = info[0];
  if (pool == nullptr || napi_get_arraybuffer_info(env, buffer, &data, &length) != napi_ok) return Napi::Boolean::New(env, false);
  auto it = pool->live.find(data);
  if (it == pool->live.end() || it->second->bytes != length) return Napi::Boolean::New(env, false);
  // Detached first: a view someone still holds then reads nothing rather than the block's next user.
  if (napi_detach_arraybuffer(env, buffer) != napi_ok) {
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
    return Napi::Boolean::New(env, false);
  }
  Ticket* ticket = it->second;
  pool->live.erase(it);
  ticket->released = true;
  pool->liveBytes -= ticket->blockBytes;
  Return(pool, data, ticket->blockBytes);
  return Napi::Boolean::New(env, true);
}

Napi::Value TrimHostBuffersJs(const Napi::CallbackInfo& info) {
  EnvPool* pool = currentPool;
  if (pool != nullptr) AdjustExternal(pool->env, -static_cast<int64_t>(FreeIdle(pool)));
  return info.Env().Undefined();
}

Napi::Value HostBufferStatsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const EnvPool* pool = currentPool;
  Napi::Object stats = Napi::Object::New(env);
  stats.Set("pooledBytes", pool ? static_cast<double>(pool->pooledBytes) : 0.0);
  stats.Set("liveBytes", pool ? static_cast<double>(pool->liveBytes) : 0.0);
  stats.Set("reused", pool ? pool->reused : 0.0);
  stats.Set("allocated", pool ? pool->allocated : 0.0);
  return stats;
}

}  // namespace switchyard
