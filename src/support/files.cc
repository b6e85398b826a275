// File helpers.
#include "src/support/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace mmdiff {

namespace fs = std::filesystem;

Result<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Status::Error("no such file: " + path);
  if (fs::is_directory(path, ec)) return Status::Error("is a folder, not a file: " + path);
  // A FIFO or a device would block or never end.
  if (!fs::is_regular_file(path, ec)) return Status::Error("not a regular file: " + path);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error("cannot open " + path + ": " + std::strerror(errno));
  std::string out;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    out.append(buf, static_cast<size_t>(in.gcount()));
    if (out.size() > max_bytes)
      return Status::Error(path + " is larger than the " + std::to_string(max_bytes >> 20) +
                           " MiB mmdiff reads");
  }
  return out;
}

Status MakeWritableDir(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return Status::Error("cannot create folder " + path + ": " + ec.message());
  if (!fs::is_directory(path, ec)) return Status::Error("not a folder: " + path);
  if (access(path.c_str(), W_OK) != 0) return Status::Error("folder is not writable: " + path);
  return Status::Ok();
}

PrivateTempDir::PrivateTempDir(const std::string& prefix) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  // Absolute, also for a relative $TMPDIR: a child that runs in the folder (ProcessOptions::cwd)
  // finds the files in it by the same names.
  base = fs::absolute(base, ec);
  if (ec) base = "/tmp";
  std::string templ = (base / (prefix + "-XXXXXX")).string();
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr)
    error_ = "cannot create a temporary folder " + templ + ": " + std::strerror(errno);
  else
    path_ = buf.data();
}

PrivateTempDir::~PrivateTempDir() {
  std::error_code ec;
  if (!path_.empty()) fs::remove_all(path_, ec);
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
