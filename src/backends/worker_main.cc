// mmdiff-worker: the process the supervisor starts; speaks the wire protocol on stdin/stdout.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "mmdiff/build_info.h"
#include "src/backends/embedded_python.h"
#include "src/backends/registry.h"
#include "src/exec/worker_loop.h"

int main(int argc, char** argv) {
  bool test_paths = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--test-paths") == 0) {
      test_paths = true;
    } else {
      dprintf(2,
              "usage: mmdiff-worker [--test-paths]\n(started by mmdiff; not meant to be run by "
              "hand)\n");
      return 2;
    }
  }
  // Ctrl-C in the terminal reaches the whole process group, and a scheduler that stops a job (Slurm
  // with proctrack/linuxproc or cgroup, on preemption, requeue or scancel) sends SIGTERM to every
  // process of it: the supervisor decides when a worker stops, so an interrupted campaign does not
  // record the interruption as a crash. (SIGKILL still ends a worker: the supervisor's, and the
  // death signal when the supervisor dies.)
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  // The protocol gets private close-on-exec descriptors; fd 1 becomes stderr so that anything
  // torch or Python prints cannot corrupt frames, and compiler subprocesses cannot hold the pipes.
  int in_fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
  int out_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
  int devnull = open("/dev/null", O_RDONLY);
  dup2(devnull, 0);
  close(devnull);
  dup2(2, 1);
  auto backends = mmdiff::MakeBackends(test_paths);
  // Eager needs torch's Python registrations (see eager_backend.cc): start the interpreter and
  // import torch now, before the first request, so that its import time never counts against a
  // stage's timeout. Dynamo and Inductor wait for the first compiled path (EnsureCompiler).
  if (std::string why = mmdiff::EnsurePython(); !why.empty())
    std::fprintf(stderr, "mmdiff-worker: embedded Python unavailable: %s\n", why.c_str());
  nlohmann::json versions = {{"mmdiff", mmdiff::build_info::kMmdiffVersion},
                             {"torch", mmdiff::build_info::kTorchVersion},
                             {"python", mmdiff::build_info::kPythonVersion}};
  return mmdiff::RunWorkerLoop(in_fd, out_fd, backends, versions);
}
