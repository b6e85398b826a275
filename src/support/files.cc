// File helpers.
#include "src/support/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mmdiff {

namespace fs = std::filesystem;

Result<std::string> ReadFile(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Status::Error("no such file: " + path);
  if (fs::is_directory(path, ec)) return Status::Error("is a folder, not a file: " + path);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error("cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Status MakeWritableDir(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return Status::Error("cannot create folder " + path + ": " + ec.message());
  if (!fs::is_directory(path, ec)) return Status::Error("not a folder: " + path);
  if (access(path.c_str(), W_OK) != 0) return Status::Error("folder is not writable: " + path);
  return Status::Ok();
}

Status WriteFileAtomic(const std::string& path, const std::string& contents) {
  fs::path target(path);
  if (target.has_parent_path()) {
    Status s = MakeWritableDir(target.parent_path().string());
    if (!s.ok()) return s;
  }
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Error("cannot write " + tmp + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string err = std::strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return Status::Error("cannot write " + tmp + ": " + err);
    }
    done += static_cast<size_t>(n);
  }
  fsync(fd);
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    std::string err = std::strerror(errno);
    unlink(tmp.c_str());
    return Status::Error("cannot rename " + tmp + " to " + path + ": " + err);
  }
  return Status::Ok();
}

}  // namespace mmdiff
