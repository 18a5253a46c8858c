#include "algo_cache.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <system_error>

#include "dnn.h"

namespace switchyard::dnn {
namespace {

std::mutex& CacheMutex() {
  static std::mutex mutex;
  return mutex;
}

struct CacheState {
  std::map<std::string, CachedAlgo> memory;  // "<file>\n<key>" -> answer
  std::set<std::string> loaded_files;
  std::set<std::string> from_disk;  // memory entries that came from a file and were not used yet
  AlgoCacheStats stats;
};

CacheState& State() {
  static auto* state = new CacheState();
  return *state;
}

std::string FilePath(const std::string& dir, const std::string& stem) { return dir + "/" + stem + ".txt"; }

void LoadFile(CacheState& state, const std::string& path) {
  if (!state.loaded_files.insert(path).second) return;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t tab1 = line.find('\t');
    const size_t tab2 = tab1 == std::string::npos ? std::string::npos : line.find('\t', tab1 + 1);
    if (tab2 == std::string::npos) continue;
    CachedAlgo value;
    char* end = nullptr;
    value.algo = static_cast<int>(std::strtol(line.c_str() + tab1 + 1, &end, 10));
    if (end != line.c_str() + tab2) continue;
    value.workspace = static_cast<size_t>(std::strtoull(line.c_str() + tab2 + 1, &end, 10));
    const std::string key = path + "\n" + line.substr(0, tab1);
    state.memory[key] = value;
    state.from_disk.insert(key);
  }
  state.stats.last_file = path;
}

}  // namespace

std::string ResolveCacheDir(const std::string& requested) {
  if (requested == "-") return "";
  if (!requested.empty()) return requested;
  if (const char* env = std::getenv("SWITCHYARD_CONV_ALGO_CACHE"); env != nullptr && *env != '\0') {
    return std::string(env) == "-" ? "" : env;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/switchyard/conv-algos";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.cache/switchyard/conv-algos";
  }
  return "";
}

bool LookupAlgo(const std::string& dir, const std::string& stem, const std::string& key, CachedAlgo* out) {
  std::lock_guard<std::mutex> lock(CacheMutex());
  CacheState& state = State();
  const std::string path = dir.empty() ? "(memory)/" + stem : FilePath(dir, stem);
  if (!dir.empty()) LoadFile(state, path);
  auto it = state.memory.find(path + "\n" + key);
  if (it == state.memory.end()) return false;
  if (state.from_disk.erase(it->first) > 0) {
    ++state.stats.disk_hits;
  } else {
    ++state.stats.memory_hits;
  }
  *out = it->second;
  return true;
}

void StoreAlgo(const std::string& dir, const std::string& stem, const std::string& key, const CachedAlgo& value) {
  std::lock_guard<std::mutex> lock(CacheMutex());
  CacheState& state = State();
  ++state.stats.searches;
  const std::string path = dir.empty() ? "(memory)/" + stem : FilePath(dir, stem);
  state.memory[path + "\n" + key] = value;
  if (dir.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(dir, error);  // a failure just means no disk cache
  std::ostringstream line;
  line << key << '\t' << value.algo << '\t' << value.workspace << '\n';
  std::ofstream out(path, std::ios::app);
  out << line.str();
  out.flush();
  state.stats.last_file = path;
}

AlgoCacheStats GetAlgoCacheStats() {
  std::lock_guard<std::mutex> lock(CacheMutex());
  return State().stats;
}

}  // namespace switchyard::dnn
