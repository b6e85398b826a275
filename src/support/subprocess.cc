// RunProcess: fork, exec, and a polled wait with a deadline.
#include "src/support/subprocess.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace mmdiff {

namespace {

// Captured stdout goes to a private, already unlinked file: read back once the child has ended,
// it needs no reader while RunProcess's wait polls. -1 and `error` set when it cannot be made.
int CaptureFile(std::string& error) {
  const char* tmp = std::getenv("TMPDIR");
  std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/mmdiff-stdout-XXXXXX";
  int fd = mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) {
    error = "cannot create a file for its output in " + name + ": " + std::strerror(errno);
    return -1;
  }
  unlink(name.c_str());
  return fd;
}

// At most kMaxCapturedStdout bytes of the file from its start.
std::string ReadCaptured(int fd) {
  std::string text;
  if (lseek(fd, 0, SEEK_SET) != 0) return text;
  char buf[65536];
  while (text.size() < kMaxCapturedStdout) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, std::min(static_cast<size_t>(n), kMaxCapturedStdout - text.size()));
  }
  return text;
}

}  // namespace

ProcessResult RunProcess(const ProcessOptions& o) {
  ProcessResult res;
  if (o.argv.empty()) {
    res.error = "no program to run";
    return res;
  }
  int out = o.output.empty()
                ? fcntl(2, F_DUPFD_CLOEXEC, 3)
                : open(o.output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0) {
    res.error = "cannot open " + o.output + ": " + std::strerror(errno);
    return res;
  }
  int captured = -1;
  if (o.capture_stdout && (captured = CaptureFile(res.error)) < 0) {
    close(out);
    return res;
  }
  std::vector<char*> args;
  for (const auto& a : o.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    res.error = std::string("fork: ") + std::strerror(errno);
    close(out);
    if (captured >= 0) close(captured);
    return res;
  }
  if (pid == 0) {
    setpgid(0, 0);
    // Its own group keeps a terminal's ^C from it; it must not outlive us either (^C, a kill).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // we died before the line above
    if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) _exit(127);
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    dup2(captured >= 0 ? captured : out, 1);
    dup2(out, 2);
    for (const auto& e : o.env) putenv(const_cast<char*>(e.c_str()));
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out);
  setpgid(pid, pid);  // also here: no race with the child's own call
  res.started = true;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(o.timeout_s > 0 ? o.timeout_s : 1e9);
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      res.error = std::string("waitpid: ") + std::strerror(errno);
      kill(-pid, SIGKILL);
      return res;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      res.timed_out = true;
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid, SIGKILL);  // whatever it left behind in its group
  if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) res.signal = WTERMSIG(status);
  if (captured >= 0) {
    res.stdout_text = ReadCaptured(captured);
    close(captured);
  }
  return res;
}

}  // namespace mmdiff
