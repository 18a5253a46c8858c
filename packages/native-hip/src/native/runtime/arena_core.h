// The bookkeeping of a caching device arena, independent of where memory comes from.
//
// Memory is reserved from a Backing in chunks; each chunk is cut into blocks. An allocation takes
// the smallest free block that fits (best fit), splitting off the remainder; a freed block merges
// with its free neighbours in the same chunk and stays cached for the next allocation. shrink()
// hands chunks that are entirely free back to the backing.
//
// Header-only and templated on the backing so the same code runs over hipMalloc (DeviceBacking in
// device_arena.h) and over a fake address space in tests (FakeBacking in test_hooks.cc), where a
// machine without a GPU can still exercise every branch.
//
// Backing concept:
//   BackingStatus Reserve(size_t bytes, uintptr_t* base, std::string* error);
//   void Release(uintptr_t base, size_t bytes);
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace switchyard::runtime {

enum class ExtendStrategy { kNextPowerOfTwo, kSameAsRequested };

enum class BackingStatus { kOk, kOutOfMemory, kError };

struct ArenaOptions {
  size_t limit = 0;  // bytes the arena may reserve in all; 0 = no limit
  ExtendStrategy strategy = ExtendStrategy::kNextPowerOfTwo;
  // kNextPowerOfTwo: the first chunk is this big and each later one doubles (like ORT's BFC arena),
  // so a model's many small tensors cost few driver calls.
  size_t initial_chunk_bytes = size_t{1} << 20;
  size_t alignment = 256;  // every block starts and ends on this; a power of two
};

struct ArenaStats {
  size_t in_use = 0;       // bytes in live allocations (rounded to the alignment)
  size_t reserved = 0;     // bytes held from the backing
  size_t peak = 0;         // the highest in_use seen
  size_t allocations = 0;  // successful allocate() calls
  size_t frees = 0;
  size_t chunks = 0;
  size_t largest_free = 0;  // the biggest cached block, what one allocation can get without growing
};

enum class ArenaFailure { kNone, kOverLimit, kOutOfMemory, kBackingError };

struct ArenaResult {
  uintptr_t address = 0;
  size_t rounded = 0;
  ArenaFailure failure = ArenaFailure::kNone;
  std::string message;  // set when failure != kNone
};

template <class Backing>
class ArenaCore {
 public:
  ArenaCore(Backing backing, ArenaOptions options)
      : backing_(std::move(backing)), options_(options), next_chunk_bytes_(std::max<size_t>(options.initial_chunk_bytes, 1)) {}

  ~ArenaCore() {
    for (const auto& [base, bytes] : chunks_) backing_.Release(base, bytes);
  }

  ArenaCore(const ArenaCore&) = delete;
  ArenaCore& operator=(const ArenaCore&) = delete;

  // A block of at least `bytes` (0 counts as 1, so every allocation has its own address).
  ArenaResult Allocate(size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    ArenaResult result;
    const size_t align = options_.alignment;
    if (bytes > SIZE_MAX / 2) return Fail(ArenaFailure::kOverLimit, bytes, 0, "the request is larger than any device");
    const size_t rounded = std::max<size_t>((bytes + align - 1) / align * align, align);
    auto fit = free_.lower_bound({rounded, 0});
    if (fit == free_.end()) {
      std::string error;
      const ArenaFailure failure = Extend(rounded, &error);
      if (failure != ArenaFailure::kNone) return Fail(failure, bytes, rounded, error);
      fit = free_.lower_bound({rounded, 0});
    }
    const uintptr_t address = fit->second;
    free_.erase(fit);
    Block& block = blocks_.at(address);
    if (block.size - rounded >= align) {
      // Split: the tail stays free in the same chunk.
      const uintptr_t tail = address + rounded;
      blocks_.emplace(tail, Block{block.size - rounded, block.chunk, false});
      free_.insert({block.size - rounded, tail});
      block.size = rounded;
    }
    block.in_use = true;
    stats_.in_use += block.size;
    stats_.peak = std::max(stats_.peak, stats_.in_use);
    ++stats_.allocations;
    result.address = address;
    result.rounded = block.size;
    return result;
  }

  // Returns the block to the cache. False when `address` is not a live allocation of this arena.
  bool Free(uintptr_t address) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = blocks_.find(address);
    if (it == blocks_.end() || !it->second.in_use) return false;
    it->second.in_use = false;
    stats_.in_use -= it->second.size;
    ++stats_.frees;
    // Merge with the following block, then with the preceding one (same chunk only).
    auto next = std::next(it);
    if (next != blocks_.end() && !next->second.in_use && next->second.chunk == it->second.chunk) {
      free_.erase({next->second.size, next->first});
      it->second.size += next->second.size;
      blocks_.erase(next);
    }
    if (it != blocks_.begin()) {
      auto prev = std::prev(it);
      if (!prev->second.in_use && prev->second.chunk == it->second.chunk) {
        free_.erase({prev->second.size, prev->first});
        prev->second.size += it->second.size;
        blocks_.erase(it);
        it = prev;
      }
    }
    free_.insert({it->second.size, it->first});
    return true;
  }

  // Releases every chunk with no live allocation to the backing; returns the bytes released.
  size_t Shrink() {
    std::lock_guard<std::mutex> lock(mutex_);
    return ReleaseFreeChunks();
  }

  ArenaStats Stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    ArenaStats stats = stats_;
    stats.chunks = chunks_.size();
    stats.largest_free = free_.empty() ? 0 : free_.rbegin()->first;
    return stats;
  }

  const ArenaOptions& options() const { return options_; }
  Backing& backing() { return backing_; }

 private:
  struct Block {
    size_t size;
    uintptr_t chunk;  // base of the chunk holding it: blocks merge only within one chunk
    bool in_use;
  };

  ArenaResult Fail(ArenaFailure failure, size_t bytes, size_t rounded, const std::string& why) {
    ArenaResult result;
    result.failure = failure;
    result.message = "cannot allocate " + std::to_string(bytes) + " bytes";
    if (rounded != 0 && rounded != bytes) result.message += " (" + std::to_string(rounded) + " after rounding)";
    result.message += ": " + why + "; gpuMemLimit " +
                      (options_.limit ? std::to_string(options_.limit) + " bytes" : std::string("none")) + ", in use " +
                      std::to_string(stats_.in_use) + ", reserved " + std::to_string(stats_.reserved);
    return result;
  }

  size_t ReleaseFreeChunks() {
    size_t released = 0;
    for (auto chunk = chunks_.begin(); chunk != chunks_.end();) {
      auto block = blocks_.find(chunk->first);
      if (block != blocks_.end() && !block->second.in_use && block->second.size == chunk->second) {
        free_.erase({block->second.size, block->first});
        blocks_.erase(block);
        backing_.Release(chunk->first, chunk->second);
        stats_.reserved -= chunk->second;
        released += chunk->second;
        chunk = chunks_.erase(chunk);
      } else {
        ++chunk;
      }
    }
    return released;
  }

  // Reserves a chunk that can hold `rounded` bytes, trying smaller and then after releasing cached
  // chunks before giving up. The arena is unchanged when this fails.
  ArenaFailure Extend(size_t rounded, std::string* error) {
    const size_t limit = options_.limit;
    if (limit != 0 && stats_.reserved + rounded > limit) {
      ReleaseFreeChunks();
      if (stats_.reserved + rounded > limit) {
        *error = "over the arena's gpuMemLimit";
        return ArenaFailure::kOverLimit;
      }
    }
    size_t want = rounded;
    if (options_.strategy == ExtendStrategy::kNextPowerOfTwo) want = std::max(rounded, next_chunk_bytes_);
    if (limit != 0) want = std::min(want, limit - stats_.reserved);
    want = std::max(want, rounded);

    uintptr_t base = 0;
    BackingStatus status = backing_.Reserve(want, &base, error);
    if (status == BackingStatus::kOutOfMemory && want > rounded) {
      want = rounded;
      status = backing_.Reserve(want, &base, error);
    }
    if (status == BackingStatus::kOutOfMemory && ReleaseFreeChunks() > 0) {
      status = backing_.Reserve(want, &base, error);
    }
    if (status != BackingStatus::kOk) {
      if (status == BackingStatus::kOutOfMemory) *error = "the device is out of memory (" + *error + ")";
      return status == BackingStatus::kOutOfMemory ? ArenaFailure::kOutOfMemory : ArenaFailure::kBackingError;
    }
    if (options_.strategy == ExtendStrategy::kNextPowerOfTwo && want >= next_chunk_bytes_ && next_chunk_bytes_ < (size_t{1} << 40)) {
      next_chunk_bytes_ *= 2;
    }
    chunks_.emplace(base, want);
    blocks_.emplace(base, Block{want, base, false});
    free_.insert({want, base});
    stats_.reserved += want;
    return ArenaFailure::kNone;
  }

  Backing backing_;
  ArenaOptions options_;
  size_t next_chunk_bytes_;
  mutable std::mutex mutex_;
  std::map<uintptr_t, size_t> chunks_;             // base -> bytes
  std::map<uintptr_t, Block> blocks_;              // every block of every chunk, by address
  std::set<std::pair<size_t, uintptr_t>> free_;    // free blocks by (size, address): best fit
  ArenaStats stats_;
};

}  // namespace switchyard::runtime
