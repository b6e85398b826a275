// Starting a campaign: its settings (new or resumed), its folder and lock, Inductor's cache, the
// stop signals and the worker pool, then RunFuzz.
#include "src/campaign/campaign_start.h"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "mmdiff/build_info.h"
#include "src/campaign/rewrite_catalogue.h"
#include "src/campaign/steering.h"
#include "src/exec/path_info.h"
#include "src/gen/focus.h"
#include "src/ir/paths.h"
#include "src/report/known.h"
#include "src/support/files.h"
#include "src/support/json_limits.h"

namespace mmdiff {

namespace {

// Seconds the install's Python may take to list its attention fusions and lowerings (a few on an
// idle machine).
constexpr double kTargetListTimeoutS = 300;

namespace fs = std::filesystem;

std::atomic<int64_t> g_first_stop_signal_ns{0};

// The first Ctrl-C or SIGTERM asks the campaign to stop after the cases under way; another one a
// second or more later stops the process (async-signal-safe: clock_gettime, write and _exit only).
// Signals within that second are the same request: `timeout` signals its command, then the
// command's process group.
void OnStopSignal(int sig) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  int64_t now = static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  int64_t first = 0;
  if (g_first_stop_signal_ns.compare_exchange_strong(first, now)) {
    RequestFuzzStop();
    return;
  }
  if (now - first < 1000000000) return;
  static const char kMsg[] =
      "mmdiff fuzz: second signal: stopping now (`mmdiff fuzz --resume` continues)\n";
  (void)!write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
  _exit(128 + sig);
}

// The stop handlers for as long as it lives; the previous ones after.
class StopSignals {
 public:
  explicit StopSignals(bool install) : installed_(install) {
    if (!installed_) return;
    old_int_ = signal(SIGINT, OnStopSignal);
    old_term_ = signal(SIGTERM, OnStopSignal);
  }
  ~StopSignals() {
    if (!installed_) return;
    signal(SIGINT, old_int_);
    signal(SIGTERM, old_term_);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  bool installed_;
  void (*old_int_)(int) = SIG_DFL;
  void (*old_term_)(int) = SIG_DFL;
};

// One campaign process per folder: a task resubmitted while its first copy still runs (or two
// resumes by hand) would otherwise write the same summary and findings. The lock goes with the
// process however it ends, or with this object.
class FolderLock {
 public:
  explicit FolderLock(const std::string& dir)
      : fd_(open((fs::path(dir) / ".fuzz.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    held_ = fd_ >= 0 && flock(fd_, LOCK_EX | LOCK_NB) == 0;
  }
  ~FolderLock() {
    if (fd_ >= 0) close(fd_);
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  bool created() const { return fd_ >= 0; }
  bool held() const { return held_; }

 private:
  int fd_;
  bool held_ = false;
};

int64_t DefaultMemoryMb(int jobs) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  int64_t total_mb = static_cast<int64_t>(pages) * page >> 20;
  return std::max<int64_t>(2048, total_mb * 3 / 4 / std::max(jobs, 1));
}

CampaignEnd Failed(int code, std::string error) {
  CampaignEnd end;
  end.exit_code = code;
  end.error = std::move(error);
  return end;
}

// A summary written because the campaign's workers failed before its first case.
bool NeverStarted(const nlohmann::json& j) {
  return j.is_object() && j.contains("not_started") && j["not_started"].is_boolean() &&
         j["not_started"].get<bool>();
}

// The same for a summary.json file; false for one that cannot be read as JSON.
bool NeverStartedAt(const fs::path& summary) {
  auto text = ReadFile(summary.string());
  auto j = text.ok() ? ParseJsonBounded(text.value()) : Result<nlohmann::json>(text.status());
  return j.ok() && NeverStarted(j.value());
}

// The settings of the folder's campaign, with the start's budget and jobs; its summary so far.
Status ReadResumed(const CampaignStart& s, FuzzOptions& fo, FuzzSummary& sum) {
  fs::path summary = fs::path(s.resume) / "summary.json";
  auto text = ReadFile(summary.string());
  if (!text.ok()) return Status::Error("--resume: " + text.error());
  auto j = ParseJsonBounded(text.value());
  if (!j.ok()) return Status::Error("--resume: " + summary.string() + ": " + j.error());
  if (NeverStarted(j.value()))
    return Status::Error("--resume: " + s.resume +
                         " holds a campaign whose workers never started, so nothing to continue: "
                         "run its command again (without --resume) once the cause is fixed");
  if (Status st = SummaryFromJson(j.value(), fo, sum); !st.ok())
    return Status::Error("--resume: " + summary.string() + ": " + st.message());
  if (s.resume_shard && ShardText(*s.resume_shard) != ShardText(fo.shard))
    return Status::Error("--resume: " + s.resume + " holds shard " + ShardText(fo.shard) +
                         ", not shard " + ShardText(*s.resume_shard));
  ++sum.resumes;
  fo.out_dir = s.resume;
  if (s.resume_time_s) fo.time_s = *s.resume_time_s;
  if (s.resume_cases) fo.max_cases = *s.resume_cases;
  if (s.resume_jobs > 0) fo.jobs = s.resume_jobs;
  return Status::Ok();
}

// One supervisor per job, its worker not yet started: its log in the folder, torch's debug files
// in worker-files/.
std::vector<std::unique_ptr<Supervisor>> MakeWorkers(const CampaignStart& s,
                                                     const FuzzOptions& fo) {
  std::vector<std::unique_ptr<Supervisor>> owned;
  for (int j = 0; j < fo.jobs; ++j) {
    SupervisorOptions so;
    so.worker_binary = s.worker_binary;
    if (fo.test_paths) so.worker_args.push_back("--test-paths");
    so.stage_timeout_s = fo.stage_timeout_s;
    so.log_path = (fs::path(fo.out_dir) /
                   (fo.jobs == 1 ? "worker.log" : "worker-" + std::to_string(j) + ".log"))
                      .string();
    so.recycle_after = s.recycle_after;
    so.recycle_growth_mb = s.recycle_growth_mb;
    so.memory_limit_mb = s.memory_mb >= 0 ? s.memory_mb : DefaultMemoryMb(fo.jobs);
    so.work_dir = (fs::path(fo.out_dir) / "worker-files").string();  // torch's debug files
    owned.push_back(std::make_unique<Supervisor>(so));
  }
  return owned;
}

// Whether a --paths list ("": the default paths, which have it) names inductor.
bool ListsInductor(const std::string& list) {
  const std::vector<std::string> names = SplitPathList(list);
  return list.empty() || std::find(names.begin(), names.end(), paths::kInductor) != names.end();
}

// The campaign's settings, its summary so far (a resumed one's) and the paths to resolve: the
// start's, or a resumed campaign's own (each of which must still be there).
Status Settings(const CampaignStart& s, FuzzOptions& fo, FuzzSummary& start,
                std::string& path_list) {
  if (!s.resume.empty()) {
    if (Status st = ReadResumed(s, fo, start); !st.ok()) return st;
    for (const auto& p : fo.paths) path_list += (path_list.empty() ? "" : ",") + p;
    return Status::Ok();
  }
  // (One whose workers never started holds nothing: the same command starts it afresh.)
  if (const fs::path summary = fs::path(s.options.out_dir) / "summary.json";
      fs::exists(summary) && !NeverStartedAt(summary))
    return Status::Error(s.options.out_dir +
                         " already holds a campaign; continue it with `mmdiff fuzz --resume " +
                         s.options.out_dir + "` or choose another --out");
  fo = s.options;
  fo.paths.clear();
  path_list = s.path_list;
  fo.steer =
      s.steer == SteerChoice::kOn || (s.steer == SteerChoice::kAuto && ListsInductor(path_list) &&
                                      fo.shard.count == 1 && !s.policy_given);
  return Status::Ok();
}

// The knob variants a new campaign draws from: `list` ("none", or names, each a variant the worker
// offers, a test one only with --test-paths, and none among the campaign's paths), or without
// one, every non-test variant offered when the paths are the default ones.
Result<std::vector<std::string>> CampaignVariants(const std::vector<PathInfo>& offered,
                                                  const std::string& path_list,
                                                  const std::optional<std::string>& list,
                                                  const FuzzOptions& fo) {
  std::vector<std::string> out;
  if (!list) {
    if (path_list.empty())
      for (const PathInfo& p : offered)
        if (p.available && p.traits.variant && !p.traits.test_only) out.push_back(p.name);
    return out;
  }
  if (*list == "none") return out;
  const std::vector<std::string> names = SplitPathList(*list);
  if (names.empty()) return Status::Error("--variants: name knob variants, or `none`");
  for (const auto& name : names) {
    auto it = std::find_if(offered.begin(), offered.end(),
                           [&](const PathInfo& p) { return p.name == name; });
    if (it == offered.end() || !it->traits.variant || (it->traits.test_only && !fo.test_paths))
      return Status::Error("--variants: \"" + name +
                           "\" is not a knob variant this worker offers (`mmdiff paths` lists "
                           "them; a test one needs --test-paths)");
    if (!it->available) return Status::Error("--variants: " + name + " cannot run: " + it->why);
    if (std::find(fo.paths.begin(), fo.paths.end(), name) != fo.paths.end())
      return Status::Error("--variants: " + name +
                           " is among the campaign's paths already (it runs on every program)");
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

// The listing's names that a program can reach on this CPU, logged; on an error, none (every
// target focus can be drawn), with a warning.
std::optional<std::set<std::string>> ReachableTargets(
    const Result<std::vector<CatalogueRewrite>>& listed) {
  if (!listed.ok()) {
    spdlog::warn(
        "steering: cannot list the attention fusions and lowerings of the installed torch ({}); "
        "every target focus can be drawn",
        listed.error());
    return std::nullopt;
  }
  std::set<std::string> names;  // those a program can reach here: no note says why not
  int64_t fusions = 0, lowerings = 0;
  for (const CatalogueRewrite& r : listed.value()) {
    (r.kind == kKernelKind ? lowerings : fusions) += 1;
    if (r.note.empty()) names.insert(r.name);
  }
  int64_t aimed = 0, targets = 0;
  for (const Focus& f : Foci()) {
    if (!GatedTarget(f.target)) continue;
    ++targets;
    aimed += names.count(f.target) > 0;
  }
  spdlog::info(
      "steering: the installed torch registers {} attention fusions and {} lowerings, {} of "
      "them reachable on this CPU (`mmdiff rewrites` says why not); {} of the {} fusion and "
      "lowering target foci aim at one of those",
      fusions, lowerings, names.size(), aimed, targets);
  return names;
}

// The workers failed before the first case: said, and written into summary.json (a new
// campaign's marked not_started, which the same command replaces; a resumed one's keeps what it
// had, for a later --resume).
CampaignEnd NotStarted(FuzzOptions& fo, FuzzSummary& start, const std::string& path_list,
                       bool resuming, const std::string& why) {
  start.worker_failure = why;  // ("worker did not start (how): its stderr")
  if (!resuming) {
    start.not_started = true;
    fo.paths = SplitPathList(path_list);  // as asked (none: the default ones)
  }
  const std::string path = (fs::path(fo.out_dir) / "summary.json").string();
  Status saved = WriteFileAtomic(path, SummaryToJson(start, fo).dump(2) + "\n");
  return Failed(kExitEnvironment,
                start.worker_failure + (saved.ok() ? "\n(recorded in " + path + ")"
                                                   : "\n(" + path + ": " + saved.message() + ")"));
}

}  // namespace

RunContext WorkerRunContext(const Supervisor& sup) {
  RunContext ctx;
  ctx.versions = sup.versions();
  ctx.knobs = {{"TORCHINDUCTOR_COMPILE_THREADS", "1"},
               {"torch.compile", "fullgraph=True, torch._dynamo.reset() before each program"}};
  return ctx;
}

CampaignEnd StartCampaign(CampaignStart s) {
  FuzzOptions fo;
  FuzzSummary start;
  std::string path_list;
  const bool resuming = !s.resume.empty();
  if (Status st = Settings(s, fo, start, path_list); !st.ok())
    return Failed(kExitUsage, st.message());
  fo.standalone.python = s.python;
  fo.standalone.timeout_s = fo.stage_timeout_s + 120;
  if (!s.inductor_cache.empty()) fo.inductor_cache_dir = fs::absolute(s.inductor_cache).string();
  if (Status st = CheckFuzzOptions(fo); !st.ok()) return Failed(kExitUsage, st.message());
  auto catalogue = LoadKnownCatalogue(fo.known_paths, build_info::kTorchVersion);
  if (!catalogue.ok()) return Failed(kExitUsage, "--known: " + catalogue.error());
  fo.known = std::make_shared<const KnownCatalogue>(std::move(catalogue.value()));
  if (!fo.known_paths.empty())
    spdlog::info("known behaviours: {} root causes from {} files", fo.known->size(),
                 fo.known->sources().size());
  if (Status st = MakeWritableDir(fo.out_dir); !st.ok())
    return Failed(kExitEnvironment, st.message());
  FolderLock lock(fo.out_dir);
  if (!lock.created())
    return Failed(kExitEnvironment, fo.out_dir + ": cannot create its lock file");
  if (!lock.held())
    return Failed(kExitUsage,
                  fo.out_dir + " is in use by another `mmdiff fuzz` (its lock is held)");
  // Inductor's caches live in the campaign's folder (the workers inherit the variable): compiled
  // kernels are shared by the jobs and survive worker recycling and --resume (the workers turn the
  // FX graph cache off: every graph runs the passes, whose rewrites sign findings).
  // inductor_cache puts them elsewhere (node-local disk on a cluster; an absolute path).
  setenv("TORCHINDUCTOR_CACHE_DIR", (fs::absolute(fo.out_dir) / fo.inductor_cache_dir).c_str(), 1);
  // Stop signals even while the workers start: complete findings are already on disk (and the
  // workers die with the supervisor); `--resume` tidies what was under way.
  StopSignals signals(s.stop_on_signals);
  std::vector<std::unique_ptr<Supervisor>> owned = MakeWorkers(s, fo);
  std::vector<Supervisor*> workers;
  for (auto& w : owned) workers.push_back(w.get());
  // A steered campaign opens target foci only for the attention fusions this torch registers and
  // the lowerings it can make on this CPU: listed by the install's Python while the workers start
  // (a few seconds; a resumed campaign reads them from its summary).
  std::future<Result<std::vector<CatalogueRewrite>>> targets;
  if (fo.steer && !resuming)
    targets = std::async(std::launch::async, [python = s.python] {
      return ListInstalledRewrites(python, kTargetListTimeoutS, CatalogueScope::kSteeringTargets);
    });
  // The first worker resolves the paths; the others start meanwhile, so that no job waits for its
  // worker in the middle of the campaign.
  std::vector<std::thread> starting;
  for (size_t j = 1; j < workers.size(); ++j)
    starting.emplace_back([w = workers[j]] { (void)w->Hello(); });
  Status hello = workers[0]->Hello();
  for (auto& t : starting) t.join();
  if (!hello.ok()) return NotStarted(fo, start, path_list, resuming, hello.message());
  auto selected = SelectPaths(workers[0]->paths(), path_list, fo.test_paths);
  if (!selected.ok()) return Failed(kExitUsage, selected.error());
  fo.paths = selected.value();
  // The default paths come with inductor's knob variants, a share of the programs each
  // (GenPolicy::variant_rate), unless --variants says which; a resumed campaign keeps its own
  // (each must still be offered).
  if (!resuming) {
    auto variants = CampaignVariants(workers[0]->paths(), s.path_list, s.variant_list, fo);
    if (!variants.ok()) return Failed(kExitUsage, variants.error());
    fo.variants = variants.value();
  }
  for (const auto& v : fo.variants)
    if (!workers[0]->Offers(v))
      return Failed(kExitUsage, "the campaign's knob variant \"" + v +
                                    "\" is not offered by this worker (another torch or build?)");
  if (fo.steer && !resuming && s.steer == SteerChoice::kAuto &&
      std::find(fo.paths.begin(), fo.paths.end(), paths::kInductor) == fo.paths.end()) {
    spdlog::info("no steering: inductor is not among the paths, so no rewrite is ever reported");
    fo.steer = false;
  }
  if (fo.steer && targets.valid()) fo.reachable_targets = ReachableTargets(targets.get());
  fo.progress_line = s.progress_line;
  std::string joined;
  for (const auto& p : fo.paths) joined += (joined.empty() ? "" : ", ") + p;
  if (!fo.variants.empty()) {
    joined += "; and on a share of the programs one of";
    for (const auto& v : fo.variants) joined += " " + v;
  }
  spdlog::info("{} campaign (seed {}, shard {}, {} jobs, budget {} s{}) on paths: {}; output in {}",
               resuming ? "resuming the" : "starting a", fo.seed, ShardText(fo.shard), fo.jobs,
               fo.time_s, fo.max_cases >= 0 ? ", " + std::to_string(fo.max_cases) + " cases" : "",
               joined, fo.out_dir);
  auto sum = RunFuzz(fo, workers, WorkerRunContext(*workers[0]), start);
  if (!sum.ok()) return Failed(kExitEnvironment, sum.error());
  CampaignEnd end;
  end.options = std::move(fo);
  end.summary = std::move(sum.value());
  return end;
}

}  // namespace mmdiff
