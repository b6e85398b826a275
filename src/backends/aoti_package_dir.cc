// AOTInductor package folders.
#include "src/backends/aoti_package_dir.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

namespace mmdiff {

namespace fs = std::filesystem;

namespace {
constexpr const char* kPrefix = "mmdiff-aoti-";

// Removes <base>/mmdiff-aoti-<pid> folders whose process no longer exists.
void RemoveOrphans(const fs::path& base) {
  std::error_code ec;
  for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    char* rest = nullptr;
    long pid = std::strtol(name.c_str() + std::string(kPrefix).size(), &rest, 10);
    if (pid <= 0 || *rest != '\0' || pid == getpid()) continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue;  // alive, or not ours to judge
    std::error_code rm;
    fs::remove_all(it->path(), rm);
  }
}
}  // namespace

std::string AotiPackageDir::Base() {
  for (const char* var : {"MMDIFF_AOTI_DIR", "TMPDIR"})
    if (const char* v = std::getenv(var); v && *v) return v;
  return "/tmp";
}

Result<std::string> AotiPackageDir::NextPackagePath() {
  if (dir_.empty()) {
    fs::path base = Base();
    std::error_code ec;
    fs::create_directories(base, ec);
    RemoveOrphans(base);
    fs::path dir = base / (kPrefix + std::to_string(getpid()));
    fs::create_directories(dir, ec);
    if (ec)
      return Status::Error("cannot make the AOTInductor package folder " + dir.string() + ": " +
                           ec.message());
    dir_ = dir.string();
  }
  return (fs::path(dir_) / ("program-" + std::to_string(next_++) + ".pt2")).string();
}

AotiPackageDir::~AotiPackageDir() {
  if (dir_.empty()) return;
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

}  // namespace mmdiff
