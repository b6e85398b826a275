#include "src/exec/worker_folder.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

extern char** environ;  // NOLINT: POSIX declares it nowhere else

namespace mmdiff {

namespace fs = std::filesystem;

const char* const kPathVariables[] = {
    "MMDIFF_PYTHON",    // the interpreter the embedded Python takes its prefix from
    "MMDIFF_AOTI_DIR",  // AOTInductor packages
    "TMPDIR",           // Python's and the packages' temporary files
    "TORCHINDUCTOR_CACHE_DIR",
    "TRITON_CACHE_DIR",
    "PYTHONPATH",  // a list: only a single relative entry is made absolute
    nullptr};

WorkerFolder::~WorkerFolder() {
  if (!owned_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);  // does not follow links the worker left there
}

Result<std::string> WorkerFolder::Get(const std::string& wanted) {
  if (!path_.empty()) return path_;
  std::error_code ec;
  if (!wanted.empty()) {
    fs::path p = fs::absolute(wanted, ec);
    if (!ec) fs::create_directories(p, ec);
    if (ec || !fs::is_directory(p))
      return Status::Error("cannot make the worker's folder " + wanted + ": " +
                           (ec ? ec.message() : "not a folder"));
    path_ = p.string();
    return path_;
  }
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string templ = (base / "mmdiff-worker-XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr)
    return Status::Error("cannot make a folder for the worker under " + base.string() + ": " +
                         std::strerror(errno));
  path_ = templ;
  owned_ = true;
  return path_;
}

std::vector<std::string> WorkerEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry = *e;
    size_t eq = entry.find('=');
    if (eq != std::string::npos && eq + 1 < entry.size() && entry[eq + 1] != '/') {
      std::string name = entry.substr(0, eq), value = entry.substr(eq + 1);
      for (const char* const* v = kPathVariables; *v != nullptr; ++v) {
        if (name != *v || value.find(':') != std::string::npos) continue;
        std::error_code ec;
        fs::path abs = fs::absolute(value, ec);
        if (!ec) entry = name + "=" + abs.string();
      }
    }
    env.push_back(entry);
  }
  return env;
}

}  // namespace mmdiff
