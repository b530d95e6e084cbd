//===- Profile.cpp - per-op times of amp-cpu-pipeline{profile=true} code --===//
//
// amp-cpu-profile-ops brackets every computing op of the JIT code's
// functions with ampProfileNow / ampProfileRecord; the sums per op name are
// kept here, for amp-runner --amp-profile and amp_mlir.cpu_profile().
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/CPU/CpuRuntime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {
struct Entry {
  std::string name;
  uint64_t ns = 0;
  uint64_t calls = 0;
};
std::mutex mutex;
std::vector<Entry> entries;
// The JIT's string constants by address (one per op), then by text (the
// same op in two compilations is one entry).
std::unordered_map<const char *, size_t> byAddress;
std::unordered_map<std::string, size_t> byName;
} // namespace

extern "C" int64_t ampProfileNow(void) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

extern "C" void ampProfileRecord(const char *name, int64_t start) {
  int64_t elapsed = ampProfileNow() - start;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = byAddress.find(name);
  size_t index;
  if (it != byAddress.end()) {
    index = it->second;
  } else {
    auto [named, inserted] = byName.try_emplace(name, entries.size());
    if (inserted)
      entries.push_back({name, 0, 0});
    index = named->second;
    byAddress[name] = index;
  }
  entries[index].ns += elapsed > 0 ? elapsed : 0;
  entries[index].calls += 1;
}

extern "C" int64_t ampCpuProfileCount(void) {
  std::lock_guard<std::mutex> lock(mutex);
  return static_cast<int64_t>(entries.size());
}

extern "C" int ampCpuProfileEntry(int64_t index, const char **name,
                                  uint64_t *ns, uint64_t *calls) {
  std::lock_guard<std::mutex> lock(mutex);
  if (index < 0 || static_cast<size_t>(index) >= entries.size())
    return 0;
  const Entry &entry = entries[index];
  if (name)
    *name = entry.name.c_str();
  if (ns)
    *ns = entry.ns;
  if (calls)
    *calls = entry.calls;
  return 1;
}

extern "C" void ampCpuProfileReset(void) {
  std::lock_guard<std::mutex> lock(mutex);
  // The names stay valid (Python may hold them): only the counts restart.
  for (Entry &entry : entries) {
    entry.ns = 0;
    entry.calls = 0;
  }
}

extern "C" void ampCpuProfilePrint(void) {
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<const Entry *> sorted;
  uint64_t total = 0;
  for (const Entry &entry : entries) {
    if (entry.calls) {
      sorted.push_back(&entry);
      total += entry.ns;
    }
  }
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const Entry *a, const Entry *b) { return a->ns > b->ns; });
  std::fprintf(stderr, "amp profile: %10s %6s %8s  %s\n", "total ms", "%",
               "calls", "op");
  for (const Entry *entry : sorted)
    std::fprintf(stderr, "amp profile: %10.3f %6.1f %8llu  %s\n",
                 entry->ns * 1e-6, total ? 100.0 * entry->ns / total : 0.0,
                 static_cast<unsigned long long>(entry->calls),
                 entry->name.c_str());
}
