// Running another program to its end, with a time limit: `mmdiff releases` runs its generated
// runners in other torch releases' venvs this way, `mmdiff cluster` runs sbatch.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mmdiff {

struct ProcessOptions {
  std::vector<std::string> argv;  // argv[0] is searched on PATH
  std::vector<std::string> env;   // "NAME=value" set in the child on top of ours
  // The child's stdout and stderr go to this file (created 0600); "": both to our stderr.
  std::string output;
  // Its stdout apart, into ProcessResult::stdout_text (at most kMaxCapturedStdout bytes kept);
  // `output` then takes its stderr alone.
  bool capture_stdout = false;
  double timeout_s = 0;  // > 0: the child's process group is killed after this long
  // "": the child runs in our current folder; else in this one (it must exist: one the child
  // cannot enter makes it exit 127 unstarted). Torch writes debug files into its current folder
  // (AOTAutograd's min_cut_failed_graph*.txt), so a Python child runs in a folder of ours.
  std::string cwd;
};

struct ProcessResult {
  bool started = false;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it (SIGKILL after a time-out)
  bool timed_out = false;
  std::string error;        // why it did not start
  std::string stdout_text;  // with capture_stdout
};

inline constexpr size_t kMaxCapturedStdout = 1 << 20;

// Runs o.argv in a process group of its own, stdin from /dev/null, and waits for it; anything left
// in its group when it ends (or times out) is killed, and the child is killed if the thread that
// started it dies (PR_SET_PDEATHSIG: ^C or a kill of mmdiff leaves no runner behind).
ProcessResult RunProcess(const ProcessOptions& o);

}  // namespace mmdiff
