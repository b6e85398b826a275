// Worker process management: fork/exec, pipes, deadlines, reaping, restart.
#include "src/exec/supervisor.h"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>

#include "src/exec/wire.h"
#include "src/ir/program_json.h"
#include "src/support/json_guard.h"
#include "src/support/utf8.h"

namespace mmdiff {

namespace {

// Runs `spawn` on a thread that lives until the process exits: a worker's PR_SET_PDEATHSIG fires
// when the thread that forked it ends, and campaign jobs or start-up threads end early.
pid_t SpawnFromLongLivedThread(const std::function<pid_t()>& spawn) {
  // Never destroyed: the thread still waits on them while static destructors run at exit.
  struct Spawner {
    std::mutex mu, one_at_a_time;
    std::condition_variable cv;
    const std::function<pid_t()>* request = nullptr;
    pid_t answer = 0;
    bool answered = false;
  };
  static Spawner* const sp = [] {
    auto* state = new Spawner;
    std::thread([state] {
      std::unique_lock<std::mutex> lock(state->mu);
      for (;;) {
        state->cv.wait(lock, [state] { return state->request != nullptr; });
        state->answer = (*state->request)();
        if (state->answer < 0) state->answer = -errno;
        state->request = nullptr;
        state->answered = true;
        state->cv.notify_all();
      }
    }).detach();
    return state;
  }();
  std::lock_guard<std::mutex> serial(sp->one_at_a_time);
  std::unique_lock<std::mutex> lock(sp->mu);
  sp->request = &spawn;
  sp->answered = false;
  sp->cv.notify_all();
  sp->cv.wait(lock, [] { return sp->answered; });
  if (sp->answer < 0) {
    errno = -sp->answer;
    return -1;
  }
  return sp->answer;
}

}  // namespace

Supervisor::Supervisor(SupervisorOptions options) : options_(std::move(options)) {
  signal(SIGPIPE, SIG_IGN);  // a dead worker must not take the supervisor with it
}

Supervisor::~Supervisor() { Stop(); }

int64_t Supervisor::WorkerResidentBytes() const {
  if (pid_ <= 0) return 0;
  std::ifstream statm("/proc/" + std::to_string(pid_) + "/statm");
  int64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

bool Supervisor::RecycleDue() const {
  if (pid_ <= 0) return false;
  if (options_.recycle_after > 0 && runs_since_start_ >= options_.recycle_after) return true;
  if (options_.recycle_growth_mb <= 0 || resident_at_start_ <= 0) return false;
  // Never more than a quarter of the memory limit: the growth must not run into it.
  int64_t growth_mb = options_.memory_limit_mb > 0
                          ? std::min(options_.recycle_growth_mb, options_.memory_limit_mb / 4)
                          : options_.recycle_growth_mb;
  return WorkerResidentBytes() - resident_at_start_ > (growth_mb << 20);
}

void Supervisor::FirstReply() {
  if (!awaiting_first_reply_) return;
  awaiting_first_reply_ = false;
  resident_at_start_ = WorkerResidentBytes();
  ++starts_;
  start_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_at_).count();
}

void Supervisor::Stop() {
  if (pid_ > 0) {
    WriteFrame(to_worker_, {{"type", "exit"}});
    close(to_worker_);
    to_worker_ = -1;
    // Give it a moment to exit cleanly, then make sure.
    for (int i = 0; i < 50; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      usleep(20000);
    }
    int sig = 0;
    if (pid_ > 0) Reap(true, &sig);
  }
  if (from_worker_ >= 0) close(from_worker_);
  from_worker_ = -1;
}

Status Supervisor::Start() {
  started_at_ = std::chrono::steady_clock::now();
  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0)
    return Status::Error(std::string("pipe: ") + std::strerror(errno));
  int log_fd = open(options_.log_path.empty() ? "/dev/null" : options_.log_path.c_str(),
                    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (log_fd < 0)
    return Status::Error("cannot open worker log " + options_.log_path + ": " +
                         std::strerror(errno));
  struct stat st;
  log_offset_ = fstat(log_fd, &st) == 0 ? static_cast<long>(st.st_size) : 0;
  Result<std::string> folder = folder_.Get(options_.work_dir);
  if (!folder.ok()) {
    close(log_fd);
    return folder.status();
  }
  // Everything the child needs is prepared before fork: between fork and exec a child of a
  // multi-threaded process may only make async-signal-safe calls (no allocation). The worker
  // starts in its folder, so names relative to this one are made absolute first.
  std::error_code ec;
  std::string binary = std::filesystem::absolute(options_.worker_binary, ec).string();
  if (ec) binary = options_.worker_binary;
  std::vector<char*> argv;
  argv.push_back(binary.data());
  for (auto& a : options_.worker_args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = WorkerEnvironment();
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  const char* dir = folder.value().c_str();
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = static_cast<rlim_t>(options_.memory_limit_mb) << 20;
  bool limit = options_.memory_limit_mb > 0;
  std::string cannot = "mmdiff: cannot start worker " + options_.worker_binary + ": ";
  pid_t parent = getpid();
  pid_t pid = SpawnFromLongLivedThread([&]() -> pid_t {
    pid_t child = fork();
    if (child != 0) return child;
    // Child: the worker dies with the supervisor, whatever kills the supervisor. (The death signal
    // follows the thread that forked, hence a thread that lives as long as the process.)
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    // A process group of its own: Ctrl-C, `timeout`, `kill -- -PGID`, Slurm and systemd signal the
    // supervisor's group, and only the supervisor decides when a worker stops (a worker killed by
    // such a signal would be recorded as a crash finding).
    setpgid(0, 0);
    // A scheduler that signals every process of a job (SIGTERM to each pid) leaves stopping to
    // the supervisor: the worker ignores SIGTERM and SIGINT from its first instruction on (ignored
    // dispositions survive exec), not only once its main() has said so.
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    dup2(to[0], 0);
    dup2(from[1], 1);
    dup2(log_fd, 2);
    // RLIMIT_DATA counts the heap and private writable mappings, not address space a GPU runtime
    // only reserves, so it bounds what the worker really uses.
    if (limit) setrlimit(RLIMIT_DATA, &rl);
    if (chdir(dir) != 0) {
      const char* no_dir = "mmdiff: cannot enter the worker's folder\n";
      (void)!write(2, no_dir, std::strlen(no_dir));
      _exit(127);
    }
    execve(argv[0], argv.data(), envp.data());
    const char* why = errno == ENOENT   ? "No such file or directory\n"
                      : errno == EACCES ? "Permission denied\n"
                                        : "exec failed\n";
    (void)!write(2, cannot.data(), cannot.size());
    (void)!write(2, why, std::strlen(why));
    _exit(127);
  });
  if (pid < 0) return Status::Error(std::string("fork: ") + std::strerror(errno));
  close(to[0]);
  close(from[1]);
  close(log_fd);
  pid_ = pid;
  to_worker_ = to[1];
  from_worker_ = from[0];
  if (started_once_ && !recycling_) ++restarts_;
  started_once_ = true;
  ++failed_starts_;  // until it sends a valid frame
  recycling_ = false;
  runs_since_start_ = 0;
  resident_at_start_ = 0;
  awaiting_first_reply_ = true;
  return Status::Ok();
}

std::string Supervisor::Reap(bool kill_first, int* signal_out) {
  *signal_out = 0;
  if (pid_ <= 0) return "worker not running";
  if (kill_first) kill(pid_, SIGKILL);
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  pid_ = -1;
  if (to_worker_ >= 0) close(to_worker_);
  if (from_worker_ >= 0) close(from_worker_);
  to_worker_ = from_worker_ = -1;
  if (r < 0) return "worker vanished";
  if (WIFSIGNALED(status)) {
    *signal_out = WTERMSIG(status);
    return std::string("killed by signal ") + std::to_string(*signal_out) + " (" +
           strsignal(*signal_out) + ")";
  }
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

std::string Supervisor::WithStderrTail(const std::string& text) {
  std::string tail = StderrTail();
  return tail.empty() ? text : text + "\n--- worker stderr (tail) ---\n" + tail;
}

std::string Supervisor::StderrTail() {
  if (options_.log_path.empty()) return "";
  std::ifstream in(options_.log_path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  long size = static_cast<long>(in.tellg());
  long from = std::max(log_offset_, size - 1500);
  in.seekg(from);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ValidUtf8(ss.str());  // the tail may start or end inside a character
}

Status Supervisor::Hello() {
  if (pid_ <= 0) {
    Status s = Start();
    if (!s.ok()) return s;
  }
  Status w = WriteFrame(to_worker_, {{"type", "hello"}});
  ReadResult r = ReadFrame(from_worker_, static_cast<int>(options_.startup_timeout_s * 1000));
  FirstReply();
  bool hello = r.state == ReadState::kOk && StringField(r.message, "type") == "hello" &&
               r.message.contains("paths") && r.message["paths"].is_array();
  if (!w.ok() || !hello) {
    int sig = 0;
    std::string how = Reap(true, &sig);
    if (r.state == ReadState::kOk && !hello) how += "; its greeting was not one";
    if (r.state == ReadState::kCorrupt) how += "; its greeting was damaged: " + r.error;
    if (r.state == ReadState::kTimeout)
      how += fmt::format("; no greeting within {:g} s", options_.startup_timeout_s);
    last_failure_ = "worker did not start (" + how + "): " + StderrTail();
    return Status::Error(last_failure_);
  }
  failed_starts_ = 0;
  versions_ = r.message.contains("versions") && r.message["versions"].is_object()
                  ? r.message["versions"]
                  : nlohmann::json::object();
  paths_.clear();
  for (const auto& p : r.message["paths"]) {
    auto info = PathInfoFromJson(p);
    if (!info.ok()) {
      paths_.clear();
      int sig = 0;
      Reap(true, &sig);
      return Status::Error("worker announced a malformed path: " + info.error());
    }
    paths_.push_back(info.value());
  }
  return Status::Ok();
}

bool Supervisor::Offers(const std::string& path) const {
  for (const auto& p : paths_)
    if (p.name == path) return p.available;
  return false;
}

const PathTraits* Supervisor::Traits(const std::string& path) const {
  for (const auto& p : paths_)
    if (p.name == path) return &p.traits;
  return nullptr;
}

bool Supervisor::Broken() const {
  return failed_starts_ >= options_.max_failed_starts ||
         faults_in_a_row_ >= options_.max_failed_starts;
}

std::string Supervisor::Failure() const {
  if (!Broken()) return "";
  const std::string what =
      failed_starts_ >= options_.max_failed_starts
          ? std::to_string(failed_starts_) + " worker starts in a row sent no valid frame"
          : std::to_string(faults_in_a_row_) + " requests in a row failed twice as worker faults";
  return "the worker cannot work (" + what + "); the last: " + last_failure_;
}

void Supervisor::AnswerWorkerFault(const std::vector<std::string>& paths, size_t next,
                                   const std::string& detail, std::vector<PathResult>& results) {
  for (; next < paths.size(); ++next) {
    PathResult r{paths[next], OutcomeKind::kUnsupported};
    r.unsupported = UnsupportedReason::kWorkerFault;
    r.message = "worker fault: " + detail;
    results.push_back(r);
  }
}

std::vector<PathResult> Supervisor::Run(const Program& p, const InputRecipe& recipe,
                                        const std::vector<std::string>& paths, bool fresh) {
  std::vector<PathResult> results;
  // Input variants of one program (same nodes, maybe new sizes) count as one program and never
  // trigger recycling midway: the worker holds what it compiled for them.
  bool new_program = p.nodes != last_nodes_ || p.outputs != last_outputs_;
  if (new_program) {
    last_nodes_ = p.nodes;
    last_outputs_ = p.outputs;
  }
  if (new_program && RecycleDue()) {
    auto stopping = std::chrono::steady_clock::now();
    Stop();
    start_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - stopping).count();
    recycling_ = true;
    ++recycles_;
  }
  size_t next = 0;          // index of the first path without a result
  std::string first_fault;  // this request's worker fault, retried once
  bool given_up = false;
  // A worker fault: the worker goes; the request is sent again, whole, once, then given up.
  auto fault = [&](const std::string& what) {
    int sig = 0;
    std::string how = pid_ > 0 ? Reap(true, &sig) : "not running";
    std::string detail = what + " (the worker " + how + ")";
    last_failure_ = WithStderrTail(detail);
    // What this request's earlier workers answered is dropped: it is asked again whole.
    results.clear();
    next = 0;
    if (first_fault.empty()) {
      first_fault = detail;
      ++retried_faults_;
      spdlog::warn("worker fault: {}; restarting the worker and sending the request again", detail);
      return;
    }
    AnswerWorkerFault(paths, 0, first_fault + "; again after a restart: " + detail, results);
    ++faults_;
    ++faults_in_a_row_;
    given_up = true;
  };
  while (next < paths.size() && !given_up) {
    if (Broken()) {
      results.clear();
      AnswerWorkerFault(paths, 0, Failure(), results);
      given_up = true;
      break;
    }
    // The stderr a failure quotes: this request's, or all a worker started for it wrote.
    if (pid_ <= 0) {
      Status s = Start();
      if (!s.ok()) {
        ++failed_starts_;
        fault("cannot start a worker: " + s.message());
        continue;
      }
    } else if (struct stat st;
               !options_.log_path.empty() && stat(options_.log_path.c_str(), &st) == 0) {
      log_offset_ = st.st_size;
    }
    std::vector<std::string> todo(paths.begin() + static_cast<long>(next), paths.end());
    nlohmann::json req = {{"type", "run"},
                          {"program", ProgramToJson(p)},
                          {"recipe", RecipeToJson(recipe)},
                          {"paths", todo}};
    // (A worker started for this request has nothing to forget.)
    if (fresh) req["fresh"] = true;
    // "request" until the worker's first frame for it: every path reports its "start" stage
    // before it runs anything, so what ends the worker before that is the worker's fault.
    std::string current = todo.front(), stage = "request";
    if (!WriteFrame(to_worker_, req).ok()) {
      fault("it accepted no request");
      continue;
    }
    bool finished = false;
    while (true) {
      // A freshly started worker first imports torch: that is start-up time, not the path's.
      double wait_s = awaiting_first_reply_
                          ? std::max(options_.stage_timeout_s, options_.startup_timeout_s)
                          : options_.stage_timeout_s;
      ReadResult m = ReadFrame(from_worker_, static_cast<int>(wait_s * 1000));
      FirstReply();
      if (m.state == ReadState::kCorrupt || m.state == ReadState::kError) {
        fault(m.error.empty() ? "its pipe failed" : m.error);
        break;
      }
      if (m.state != ReadState::kOk && stage == "request") {
        fault(m.state == ReadState::kTimeout
                  ? fmt::format("no answer to the request within {:g} s", wait_s)
                  : "it ended before it answered the request");
        break;
      }
      if (m.state == ReadState::kOk) {
        failed_starts_ = 0;  // a valid frame: this worker works
        std::string type = StringField(m.message, "type");
        if (type == "stage") {
          current = StringField(m.message, "path", current);
          stage = StringField(m.message, "stage", stage);
          if (stage == "request") stage = "start";  // (a stage a path names is the path's)
          continue;
        }
        if (type == "result") {
          if (next >= paths.size()) {
            fault("a result beyond the " + std::to_string(paths.size()) + " paths asked for");
            break;
          }
          auto r = m.message.contains("result")
                       ? PathResultFromJson(m.message["result"])
                       : Result<PathResult>(Status::Error("no \"result\""));
          if (r.ok() && r.value().path != paths[next])
            r = Status::Error("a result for path \"" + r.value().path + "\" where \"" +
                              paths[next] + "\" was next");
          if (!r.ok()) {
            fault("an unreadable result: " + r.error());
            break;
          }
          results.push_back(r.value());
          ++next;
          if (next < paths.size()) current = paths[next];
          stage = "start";
          continue;
        }
        if (type == "done") {
          if (next < paths.size()) {
            fault("\"done\" after " + std::to_string(next) + " of " + std::to_string(paths.size()) +
                  " results");
            break;
          }
          finished = true;
          break;
        }
        if (type == "error") {
          for (; next < paths.size(); ++next) {
            PathResult r{paths[next], OutcomeKind::kUnsupported};
            r.unsupported = UnsupportedReason::kRejected;
            r.message = "worker rejected the program: " + StringField(m.message, "message");
            results.push_back(r);
          }
          finished = true;
          break;
        }
        fault("a reply of type \"" + type + "\" during a run");
        break;
      }
      int sig = 0;
      // Every path answered: what ended the worker before its "done" was none of theirs.
      if (next >= paths.size()) {
        std::string how = Reap(true, &sig);
        spdlog::warn("the worker {} after the last result of a request; restarting it",
                     m.state == ReadState::kTimeout ? "went silent" : how);
        finished = true;
        break;
      }
      // Timeout or closed pipe while a path ran: the path hung or killed the worker.
      bool timed_out = m.state == ReadState::kTimeout;
      std::string how = Reap(true, &sig);
      PathResult r{current, timed_out ? OutcomeKind::kTimeout : OutcomeKind::kCrash};
      r.stage = stage;
      r.signal = timed_out ? 0 : sig;
      r.message = timed_out ? "no progress for " + std::to_string(options_.stage_timeout_s) +
                                  " s; worker killed"
                            : "worker " + how;
      r.message = WithStderrTail(r.message);
      spdlog::warn("path {} {} in stage {}; restarting the worker", current,
                   timed_out ? "timed out" : "crashed (" + how + ")", stage);
      results.push_back(r);
      ++next;
      break;
    }
    if (finished) break;
  }
  if (!given_up) faults_in_a_row_ = 0;
  bool compiled = std::any_of(paths.begin(), paths.end(), [this](const std::string& path) {
    const PathTraits* t = Traits(path);
    return t && t->compiled;
  });
  if (new_program && compiled) ++runs_since_start_;
  for (auto& r : results)
    if (const PathTraits* t = Traits(r.path)) r.traits = *t;
  return results;
}

}  // namespace mmdiff
