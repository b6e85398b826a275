// File helpers: whole-file reads and atomic writes (temp file + rename), so a crash never leaves
// half a file.
#pragma once

#include <cstddef>
#include <string>

#include "src/support/status.h"

namespace mmdiff {

// Files mmdiff reads (programs, cases, reports, summaries, policies) are far smaller.
inline constexpr size_t kMaxInputFileBytes = size_t{16} << 20;
// A regular file's bytes; an error for a folder, a FIFO or device, or a file over max_bytes (found
// while reading, so a growing file cannot pass).
Result<std::string> ReadFile(const std::string& path, size_t max_bytes = kMaxInputFileBytes);
// Writes to PATH.tmp.<pid>, fsyncs, renames over PATH. Creates parent folders.
Status WriteFileAtomic(const std::string& path, const std::string& contents);
// Creates PATH and its parents; error if it exists as a non-folder or cannot be written into.
Status MakeWritableDir(const std::string& path);

// A folder of its own under the temporary folder ($TMPDIR, else /tmp), made by mkdtemp (mode 0700,
// an unpredictable name, never an existing folder or a planted link), removed with what it holds
// when this object goes (every return path; an abort or kill -9 leaves it, as any process would).
class PrivateTempDir {
 public:
  explicit PrivateTempDir(const std::string& prefix);  // e.g. "mmdiff-run"
  ~PrivateTempDir();
  PrivateTempDir(const PrivateTempDir&) = delete;
  PrivateTempDir& operator=(const PrivateTempDir&) = delete;
  bool ok() const { return !path_.empty(); }
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_, error_;
};

}  // namespace mmdiff
