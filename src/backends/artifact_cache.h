// ArtifactCache: the last few compiled programs of a path (a TorchScript CompilationUnit, a loaded
// AOTInductor package, or the error compiling gave), keyed by what the compilation depends on, so
// that a program run again with new input values is not compiled again. Counts runs per entry.
// Header-only, LibTorch-free.
#pragma once

#include <cstdint>
#include <list>
#include <string>
#include <utility>

#include "src/ir/outcome.h"

namespace mmdiff {

template <typename Artifact>
class ArtifactCache {
 public:
  struct Entry {
    std::string key;
    Artifact artifact;
    int64_t runs = 0;  // runs of this entry so far, the one under way included
  };

  explicit ArtifactCache(size_t capacity) : capacity_(capacity) {}

  // The entry for `key` (now the most recent, its run counted), or nullptr.
  Entry* Use(const std::string& key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->key == key) {
        entries_.splice(entries_.begin(), entries_, it);
        ++entries_.front().runs;
        return &entries_.front();
      }
    return nullptr;
  }

  // Adds a freshly compiled artifact as the most recent entry (its first run counted); the least
  // recently used beyond capacity are dropped, destroying their artifacts.
  Entry& Add(std::string key, Artifact artifact) {
    entries_.push_front(Entry{std::move(key), std::move(artifact), 1});
    while (entries_.size() > capacity_) entries_.pop_back();
    return entries_.front();
  }

  size_t size() const { return entries_.size(); }
  // Drops every entry (a fresh request: Backend::Forget).
  void Clear() { entries_.clear(); }

 private:
  size_t capacity_;
  std::list<Entry> entries_;
};

// The compile record of a run served by `entry` (PathResult::compile): compiled on its first run,
// reused after.
inline CompileInfo CompileInfoFor(int64_t runs) {
  CompileInfo c;
  c.present = true;
  c.compiled = runs <= 1;
  c.reused = runs > 1;
  return c;
}

}  // namespace mmdiff
