// The per-worker folder AOTInductor packages are written to before they are loaded.
#pragma once

#include <cstdint>
#include <string>

#include "src/support/status.h"

namespace mmdiff {

// <base>/mmdiff-aoti-<pid>/, where <base> is $MMDIFF_AOTI_DIR, else $TMPDIR, else /tmp. Made on
// first use; folders of the same name left by workers that died (their pid is gone) are removed
// then. The destructor removes this worker's folder. Packages are deleted by their users once
// loaded (the loader extracts what it needs).
class AotiPackageDir {
 public:
  AotiPackageDir() = default;
  ~AotiPackageDir();
  AotiPackageDir(const AotiPackageDir&) = delete;
  AotiPackageDir& operator=(const AotiPackageDir&) = delete;

  // A fresh file path for the next package, or why the folder cannot be made.
  Result<std::string> NextPackagePath();
  const std::string& dir() const { return dir_; }

  static std::string Base();

 private:
  std::string dir_;
  int64_t next_ = 0;
};

}  // namespace mmdiff
