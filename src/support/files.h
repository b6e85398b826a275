// File helpers: whole-file reads and atomic writes (temp file + rename), so a crash never leaves half a file.
#pragma once

#include <string>

#include "src/support/status.h"

namespace mmdiff {

Result<std::string> ReadFile(const std::string& path);
// Writes to PATH.tmp.<pid>, fsyncs, renames over PATH. Creates parent folders.
Status WriteFileAtomic(const std::string& path, const std::string& contents);
// Creates PATH and its parents; error if it exists as a non-folder or cannot be written into.
Status MakeWritableDir(const std::string& path);

}  // namespace mmdiff
