// Supervisor: runs programs in a worker process and survives it — a worker that segfaults, aborts,
// is killed or hangs past the timeout is replaced, and the path it was running gets a crash or
// timeout result naming the stage it died in.
//
// A worker fault is the worker's failure, not a path's: a frame that is no frame (its checksum,
// its length, cut short: src/exec/wire.h), a reply that is not what the request asked for (a
// result for another path, a second answer, `done` before every result, a type a run never
// sends), or a worker that ends or goes silent before it acknowledged the request (a path always
// reports its "start" stage first). The worker is restarted and the request sent again once; a
// second fault gives the paths without a result an unsupported result of reason kWorkerFault,
// which no oracle judges (the whole request is asked again, and given up whole). A supervisor whose
// workers keep failing (max_failed_starts starts in a row without a valid frame, or as many
// requests in a row given up) is Broken(): it starts no more workers, and what runs it stops with
// exit 3 (src/support/exit_codes.h).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/exec/path_info.h"
#include "src/exec/worker_folder.h"
#include "src/ir/input_recipe.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"
#include "src/support/status.h"

namespace mmdiff {

struct SupervisorOptions {
  std::string worker_binary;             // the mmdiff-worker executable
  std::vector<std::string> worker_args;  // e.g. {"--test-paths"}
  double stage_timeout_s = 300;          // a path is timed out after this long without progress
  double startup_timeout_s =
      180;               // for the worker's hello (includes starting Python and importing torch)
  std::string log_path;  // worker stderr is appended here; "" -> /dev/null
  // The folder the worker runs in (torch writes debug files into its current folder): "" -> a
  // private temporary one, removed with the supervisor (src/exec/worker_folder.h).
  std::string work_dir;
  // Start a fresh worker, to contain leaks, after this many programs that ran a compiled path (0:
  // never; what the compilers cache stays in the worker; input variants of a program, see Run,
  // count once), or once its resident memory has grown by recycle_growth_mb (at most a quarter of
  // memory_limit_mb) since its first reply (0: never). Programs on the other paths alone leave
  // little behind (about 40 KB each on reference and eager, 2.15.0), and a start costs seconds.
  int64_t recycle_after = 0;
  int64_t recycle_growth_mb = 0;
  int64_t memory_limit_mb =
      0;  // the worker's RLIMIT_DATA (0: none): running out becomes a crash result
  // Broken() after this many worker starts in a row that sent no valid frame, or this many
  // requests in a row given up as worker faults.
  int max_failed_starts = 5;
};

class Supervisor {
 public:
  explicit Supervisor(SupervisorOptions options);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Starts the worker if needed and asks for its paths and versions. A greeting whose paths are
  // malformed (PathInfoFromJson) is an error naming what is wrong.
  Status Hello();
  const std::vector<PathInfo>& paths() const { return paths_; }
  // Whether the worker has `path` and it can run here (after Hello).
  bool Offers(const std::string& path) const;
  // The traits the worker published for `path`; nullptr for a path it does not have.
  const PathTraits* Traits(const std::string& path) const;
  const nlohmann::json& versions() const { return versions_; }
  // The running worker's process id; -1 when none runs.
  pid_t worker_pid() const { return pid_; }

  // One result per requested path, in order, each with its path's traits. Never throws; worker
  // deaths become results. `fresh`: the paths that keep state (PathTraits::keeps_state) forget
  // what they compiled for earlier calls first, so that the run starts as in a fresh process;
  // otherwise a program whose function they compiled before reuses it (the calls of a case:
  // src/ir/call_sequence.h).
  std::vector<PathResult> Run(const Program& p, const InputRecipe& r,
                              const std::vector<std::string>& paths, bool fresh = false);

  // Stops the worker, if one is running: the next Run starts a fresh process (a finding's
  // standalone check). Counted as neither a restart nor a recycle; its start counts in starts().
  void Renew() {
    Stop();
    recycling_ = true;  // (not a restart)
  }

  // Workers started again after one died or hung (not counting recycling).
  int restarts() const { return restarts_; }
  // Workers replaced after recycle_after programs or recycle_growth_mb of growth.
  int recycles() const { return recycles_; }
  // Workers that started and answered, and the seconds that took: from starting one to its first
  // reply (exec, loading LibTorch, starting Python and importing torch), and stopping the one a
  // recycle replaces.
  int starts() const { return starts_; }
  double start_seconds() const { return start_seconds_; }

  // Requests given up as worker faults (after their one retry), and faults retried.
  int faults() const { return faults_; }
  int retried_faults() const { return retried_faults_; }
  // The workers keep failing: Run starts no more and answers every path with kWorkerFault.
  bool Broken() const;
  // What the failing workers did (how the last one ended, its stderr's tail), for the message
  // that stops a campaign; "" while not Broken().
  std::string Failure() const;
  // The latest worker fault or failed start, with the worker's stderr tail ("" before any).
  const std::string& LastFault() const { return last_failure_; }

 private:
  Status Start();
  // Kills the worker (if alive) and returns a description of how it ended, and the signal.
  std::string Reap(bool kill_first, int* signal);
  // Asks the worker to exit, waits a little, then kills it.
  void Stop();
  std::string StderrTail();
  // `text`, then the worker's stderr tail under a heading when there is one.
  std::string WithStderrTail(const std::string& text);
  // The paths from `next` on, answered as worker faults with `detail`.
  void AnswerWorkerFault(const std::vector<std::string>& paths, size_t next,
                         const std::string& detail, std::vector<PathResult>& results);
  // The first frame of a started worker arrived (or its wait ended): counts its start.
  void FirstReply();
  // The worker's resident memory in bytes (/proc), 0 when unknown.
  int64_t WorkerResidentBytes() const;
  // Recycling is due before the next program (recycle_after, recycle_growth_mb).
  bool RecycleDue() const;

  SupervisorOptions options_;
  WorkerFolder folder_;
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  int restarts_ = 0;
  int recycles_ = 0;
  int starts_ = 0;
  double start_seconds_ = 0;
  int faults_ = 0, retried_faults_ = 0;
  int failed_starts_ = 0;     // starts in a row that sent no valid frame yet
  int faults_in_a_row_ = 0;   // requests in a row given up as worker faults
  std::string last_failure_;  // the latest fault or failed start, with its stderr tail
  std::chrono::steady_clock::time_point started_at_;
  int64_t runs_since_start_ = 0;   // programs that ran a compiled path (input variants count once)
  int64_t resident_at_start_ = 0;  // the worker's resident bytes at its first reply
  std::vector<Node> last_nodes_;
  std::vector<std::string> last_outputs_;
  bool started_once_ = false;
  bool recycling_ = false;
  bool awaiting_first_reply_ = false;  // started, no frame read yet
  long log_offset_ = 0;
  std::vector<PathInfo> paths_;
  nlohmann::json versions_;
};

}  // namespace mmdiff
