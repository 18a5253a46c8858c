// The on-disk convolution algorithm cache: one line file per (device arch, library, version) under
// a cache folder, each line "<problem key>\t<algorithm>\t<workspace bytes>". Loaded once per file;
// new answers are appended (a line is one write, so concurrent processes interleave whole lines,
// and a later duplicate wins). Unreadable or malformed lines are ignored: it is only a cache.
#pragma once

#include <cstddef>
#include <string>

namespace switchyard::dnn {

struct CachedAlgo {
  int algo = 0;
  size_t workspace = 0;
};

// The folder: `requested` unless empty, else SWITCHYARD_CONV_ALGO_CACHE, $XDG_CACHE_HOME/switchyard/
// conv-algos, ~/.cache/switchyard/conv-algos. "-" means memory only (returns "").
std::string ResolveCacheDir(const std::string& requested);

// Looks `key` up in memory, then in `dir`/`file_stem`.txt (loaded once). Counts hits in the stats.
bool LookupAlgo(const std::string& dir, const std::string& file_stem, const std::string& key, CachedAlgo* out);
// Remembers an answer in memory and appends it to the file (creating the folder); counts a search.
void StoreAlgo(const std::string& dir, const std::string& file_stem, const std::string& key, const CachedAlgo& value);

}  // namespace switchyard::dnn
