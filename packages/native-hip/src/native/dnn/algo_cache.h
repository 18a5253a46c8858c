// The on-disk algorithm cache: one line file per (device arch, library, version) under a cache
// folder, each line "<problem key>\t<value>". Loaded once per file; new answers are appended (a line
// is one write, so concurrent processes interleave whole lines, and a later duplicate wins).
// Unreadable or malformed lines are ignored: it is only a cache.
//
// Two users share the store and the folder, each with its own files and counters:
//   conv  cuDNN / MIOpen convolution algorithms, value "<algorithm>\t<workspace bytes>"
//         (LookupAlgo / StoreAlgo below);
//   gemm  cublasLt GEMM choices (blas/gemm_lt.cc), value "<algorithm>\t<workspace bytes>\t<choice text>";
//   conv form  whether a Conv step runs as the library call or im2col + GEMM (plan/conv_gemm.cc), value
//         "library|gemm\t<note>".
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "dnn.h"

namespace switchyard::dnn {

struct CachedAlgo {
  int algo = 0;
  size_t workspace = 0;
};

enum class CacheKind : int { kConv = 0, kGemm = 1, kConvForm = 2 };

// The device's part of a cache file's name, e.g. "sm_90-NVIDIA_H200" (NVIDIA) or
// "gfx90a_sramecc__xnack--AMD_Instinct_MI210" (AMD): a new GPU starts a new file. Cached per device.
std::string DeviceCacheName(int device);

// The folder: `requested` unless empty, else SWITCHYARD_CONV_ALGO_CACHE, $XDG_CACHE_HOME/switchyard/
// conv-algos, ~/.cache/switchyard/conv-algos. "-" means memory only (returns "").
std::string ResolveCacheDir(const std::string& requested);

// A value check for one kind's lines: a line whose value fails it is dropped when the file loads
// (so an earlier valid line for the key stays).
using ValueCheck = std::function<bool(const std::string& value)>;

// Looks `key` up in memory, then in `dir`/`file_stem`.txt (loaded once, keeping the lines whose value,
// the text after the key's tab, passes `valid`). Counts hits in `kind`'s stats; *from_disk (optional) says whether
// the answer came from the file (its first use in this process).
bool LookupValue(CacheKind kind, const std::string& dir, const std::string& file_stem, const std::string& key,
                 const ValueCheck& valid, std::string* out, bool* from_disk = nullptr);
// Remembers a value (no newlines) in memory and appends it to the file (creating the folder); counts
// a search in `kind`'s stats.
void StoreValue(CacheKind kind, const std::string& dir, const std::string& file_stem, const std::string& key,
                const std::string& value);

// The convolution cache (kind kConv).
bool LookupAlgo(const std::string& dir, const std::string& file_stem, const std::string& key, CachedAlgo* out);
void StoreAlgo(const std::string& dir, const std::string& file_stem, const std::string& key, const CachedAlgo& value);

// One kind's counters (GetAlgoCacheStats() in dnn.h is the conv kind's).
AlgoCacheStats GetAlgoCacheStats(CacheKind kind);

}  // namespace switchyard::dnn
