#include "algo_cache.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <system_error>

namespace switchyard::dnn {
namespace {

std::mutex& CacheMutex() {
  static std::mutex mutex;
  return mutex;
}

struct CacheState {
  std::map<std::string, std::string> memory;  // "<file>\n<key>" -> value
  std::set<std::string> loaded_files;
  std::set<std::string> from_disk;  // memory entries that came from a file and were not used yet
  AlgoCacheStats stats[3];          // per CacheKind
};

CacheState& State() {
  static auto* state = new CacheState();
  return *state;
}

AlgoCacheStats& StatsOf(CacheState& state, CacheKind kind) {
  const int i = static_cast<int>(kind);
  return state.stats[i >= 0 && i < 3 ? i : 0];
}

std::string FilePath(const std::string& dir, const std::string& stem) { return dir + "/" + stem + ".txt"; }

void LoadFile(CacheState& state, AlgoCacheStats& stats, const std::string& path, const ValueCheck& valid) {
  if (!state.loaded_files.insert(path).second) return;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    std::string value = line.substr(tab + 1);
    if (!valid(value)) continue;
    const std::string key = path + "\n" + line.substr(0, tab);
    state.memory[key] = std::move(value);
    state.from_disk.insert(key);
  }
  stats.last_file = path;
}

// "<algorithm>\t<workspace bytes>": the algorithm a decimal int ending at the tab.
bool ParseConv(const std::string& value, CachedAlgo* out) {
  const size_t tab = value.find('\t');
  if (tab == std::string::npos) return false;
  char* end = nullptr;
  const int algo = static_cast<int>(std::strtol(value.c_str(), &end, 10));
  if (end != value.c_str() + tab) return false;
  if (out != nullptr) {
    out->algo = algo;
    out->workspace = static_cast<size_t>(std::strtoull(value.c_str() + tab + 1, &end, 10));
  }
  return true;
}

}  // namespace

std::string DeviceCacheName(int device) {
  std::lock_guard<std::mutex> lock(CacheMutex());
  static auto* names = new std::map<int, std::string>();
  if (auto it = names->find(device); it != names->end()) return it->second;
  std::string name = "unknown";
  hipDeviceProp_t props;
  if (hipGetDeviceProperties(&props, device) == hipSuccess) {
#if defined(SWITCHYARD_GPU_NVIDIA)
    name = "sm_" + std::to_string(props.major) + std::to_string(props.minor) + "-" + props.name;
#else
    name = std::string(props.gcnArchName) + "-" + props.name;
#endif
    for (char& ch : name) {
      if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-')) ch = '_';
    }
  }
  names->emplace(device, name);
  return name;
}

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

bool LookupValue(CacheKind kind, const std::string& dir, const std::string& stem, const std::string& key, const ValueCheck& valid,
                 std::string* out, bool* from_disk) {
  std::lock_guard<std::mutex> lock(CacheMutex());
  CacheState& state = State();
  AlgoCacheStats& stats = StatsOf(state, kind);
  const std::string path = dir.empty() ? "(memory)/" + stem : FilePath(dir, stem);
  if (!dir.empty()) LoadFile(state, stats, path, valid);
  auto it = state.memory.find(path + "\n" + key);
  if (it == state.memory.end()) return false;
  const bool disk = state.from_disk.erase(it->first) > 0;
  if (disk) {
    ++stats.disk_hits;
  } else {
    ++stats.memory_hits;
  }
  if (from_disk != nullptr) *from_disk = disk;
  *out = it->second;
  return true;
}

void StoreValue(CacheKind kind, const std::string& dir, const std::string& stem, const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(CacheMutex());
  CacheState& state = State();
  AlgoCacheStats& stats = StatsOf(state, kind);
  ++stats.searches;
  const std::string path = dir.empty() ? "(memory)/" + stem : FilePath(dir, stem);
  state.memory[path + "\n" + key] = value;
  state.from_disk.erase(path + "\n" + key);
  if (dir.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(dir, error);  // a failure just means no disk cache
  std::ostringstream line;
  line << key << '\t' << value << '\n';
  std::ofstream out(path, std::ios::app);
  out << line.str();
  out.flush();
  stats.last_file = path;
}

bool LookupAlgo(const std::string& dir, const std::string& stem, const std::string& key, CachedAlgo* out) {
  std::string value;
  const auto valid = [](const std::string& v) { return ParseConv(v, nullptr); };
  return LookupValue(CacheKind::kConv, dir, stem, key, valid, &value) && ParseConv(value, out);
}

void StoreAlgo(const std::string& dir, const std::string& stem, const std::string& key, const CachedAlgo& value) {
  StoreValue(CacheKind::kConv, dir, stem, key, std::to_string(value.algo) + "\t" + std::to_string(value.workspace));
}

AlgoCacheStats GetAlgoCacheStats(CacheKind kind) {
  std::lock_guard<std::mutex> lock(CacheMutex());
  return StatsOf(State(), kind);
}

AlgoCacheStats GetAlgoCacheStats() { return GetAlgoCacheStats(CacheKind::kConv); }

}  // namespace switchyard::dnn
