// Batch scripts of a campaign on Slurm, and its shards' progress.
#include "src/cluster/slurm_campaign.h"

#include <cstdio>

#include "src/campaign/case_schedule.h"
#include "src/campaign/fuzz_campaign.h"
#include "src/support/json_limits.h"
#include "src/support/utf8.h"

namespace mmdiff {

namespace {

// Whether `text` can stand in a #SBATCH line as one word: sbatch splits those lines at whitespace
// and takes quotes itself, and a newline would start a line of its own.
bool SbatchWord(const std::string& text) {
  for (unsigned char ch : text)
    if (ch <= ' ' || ch == 0x7f || ch == '"' || ch == '\'' || ch == '\\' || ch == '#') return false;
  return true;
}

void Directive(std::string& s, const std::string& option, const std::string& value) {
  if (!value.empty()) s += "#SBATCH " + option + "=" + value + "\n";
}

// The lines both scripts start with after their own comment: the folders, as bash words.
std::string Header(const SlurmCampaign& c) {
  return "set -u\nmmdiff=" + ShellQuote(c.mmdiff) + "\nout=" + ShellQuote(c.out_dir) + "\n";
}

}  // namespace

Status CheckSlurmCampaign(const SlurmCampaign& c) {
  if (c.tasks < 1 || c.tasks > 100000)
    return Status::Error("--tasks must be 1 to 100000 (got " + std::to_string(c.tasks) + ")");
  if (c.cpus_per_task < 0 || c.cpus_per_task > 4096)
    return Status::Error("--cpus-per-task must be 1 to 4096");
  if (c.warning_s < 0 || c.warning_s > 65535)
    return Status::Error("--warning must be 0 to 65535 seconds (Slurm's limit)");
  if (c.out_dir.empty() || c.out_dir.front() != '/' || c.mmdiff.empty() || c.mmdiff.front() != '/')
    return Status::Error("the campaign folder and mmdiff's path must be absolute");
  // Slurm expands %-patterns in --output, and the folder goes into #SBATCH lines.
  if (!SbatchWord(c.out_dir) || c.out_dir.find('%') != std::string::npos)
    return Status::Error("the campaign folder '" + c.out_dir +
                         "' cannot go into a Slurm batch script: no whitespace, quotes, "
                         "backslashes, '#' or '%' in it");
  const std::pair<const char*, const std::string*> values[] = {
      {"--partition", &c.partition},   {"--gres", &c.gres},
      {"--time-limit", &c.time_limit}, {"--mem", &c.mem},
      {"--account", &c.account},       {"--qos", &c.qos},
      {"--job-name", &c.job_name}};
  for (const auto& [name, value] : values)
    if (!SbatchWord(*value))
      return Status::Error(std::string(name) + " '" + *value +
                           "' cannot go into a #SBATCH line: no whitespace, quotes, "
                           "backslashes or '#'");
  for (const std::string& extra : c.sbatch_extra)
    if (extra.rfind("--", 0) != 0 || extra.size() < 3 || !SbatchWord(extra))
      return Status::Error("--sbatch '" + extra +
                           "': give one sbatch option as --name or --name=value, without "
                           "whitespace, quotes, backslashes or '#'");
  return Status::Ok();
}

std::string ShellQuote(const std::string& text) {
  std::string out = "'";
  for (char ch : text) {
    if (ch == '\'')
      out += "'\\''";
    else
      out += ch;
  }
  return out + "'";
}

std::string SlurmTaskScript(const SlurmCampaign& c) {
  const std::string n = std::to_string(c.tasks);
  std::string s =
      "#!/bin/bash\n"
      "# Written by `mmdiff cluster submit`. Task i of this array runs shard i of " +
      n +
      " of the\n"
      "# campaign (mmdiff fuzz --shard auto) in $out/shard-<i>/ and resumes that shard when it is\n"
      "# requeued: on preemption, by `scontrol requeue`, or by itself when Slurm's warning signal\n"
      "# (USR1) comes before the time limit with the shard's budget unspent. Submitting this\n"
      "# script again (`mmdiff cluster resubmit`) resumes every shard.\n";
  Directive(s, "--job-name", c.job_name);
  Directive(s, "--array", "0-" + std::to_string(c.tasks - 1));
  Directive(s, "--output", c.out_dir + "/slurm/task-%a.log");
  Directive(s, "--open-mode", "append");
  s += "#SBATCH --requeue\n";
  if (c.warning_s > 0) Directive(s, "--signal", "B:USR1@" + std::to_string(c.warning_s));
  Directive(s, "--partition", c.partition);
  Directive(s, "--gres", c.gres);
  Directive(s, "--time", c.time_limit);
  if (c.cpus_per_task > 0) Directive(s, "--cpus-per-task", std::to_string(c.cpus_per_task));
  Directive(s, "--mem", c.mem);
  Directive(s, "--account", c.account);
  Directive(s, "--qos", c.qos);
  for (const std::string& extra : c.sbatch_extra) s += "#SBATCH " + extra + "\n";
  s += Header(c);
  s += "shard=\"$out/shard-$SLURM_ARRAY_TASK_ID\"\n";
  // Inductor's cache on node-local disk: compiled graphs are many small files that a shared file
  // system serves slowly, and no other task reads them.
  s += "cache=" +
       (c.local_dir.empty() ? std::string("\"${TMPDIR:-/tmp}\"") : ShellQuote(c.local_dir)) +
       "\"/mmdiff-inductor-${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}\"\n";
  s += "trap 'rm -rf -- \"$cache\"' EXIT\n";
  s += "if [ -f \"$shard/summary.json\" ]; then\n"
       "  set -- fuzz --resume \"$shard\" --shard auto --inductor-cache \"$cache\"\n"
       "else\n"
       "  set -- fuzz --jobs \"${SLURM_CPUS_PER_TASK:-1}\"";
  for (const std::string& a : c.fuzz_args) s += " " + ShellQuote(a);
  s += " --shard auto --out \"$shard\" --inductor-cache \"$cache\"\n"
       "fi\n";
  s += "echo \"[mmdiff] $(date -u +%FT%TZ) task $SLURM_ARRAY_TASK_ID of array job "
       "$SLURM_ARRAY_JOB_ID (job $SLURM_JOB_ID, restart ${SLURM_RESTART_COUNT:-0}) on "
       "$(hostname): mmdiff $*\"\n";
  // The warning goes to this shell alone (B:); the campaign gets SIGTERM, finishes the cases under
  // way and writes its summary. A SIGTERM from Slurm (preemption, requeue, scancel) reaches every
  // process of the job anyway; passing it on is harmless (one request).
  // The shard's cases so far (`cluster status`'s total): a run that adds none is not requeued, or
  // a time limit too short for a worker to start would requeue the task for ever.
  s += "checked() { \"$mmdiff\" cluster status \"$shard\" 2>/dev/null | sed -n "
       "'s/.* \\([0-9]*\\) cases checked$/\\1/p'; }\n"
       "before=$(checked)\n";
  s += "warned=0 pid=\n"
       "trap 'warned=1; [ -n \"$pid\" ] && kill -TERM \"$pid\" 2>/dev/null' USR1\n"
       "trap '[ -n \"$pid\" ] && kill -TERM \"$pid\" 2>/dev/null' TERM\n"
       "\"$mmdiff\" \"$@\" &\n"
       "pid=$!\n"
       "[ \"$warned\" = 1 ] && kill -TERM \"$pid\" 2>/dev/null\n"
       "while kill -0 \"$pid\" 2>/dev/null; do wait \"$pid\"; done\n"
       "wait \"$pid\"\n"
       "rc=$?\n";
  // The task waits to be killed by its requeue rather than end first, so that its end is the
  // requeue's and not one that the triage job's afterany dependency counts.
  s += "if [ \"$rc\" = 0 ] && [ \"$warned\" = 1 ] && ! \"$mmdiff\" cluster status \"$shard\" "
       ">/dev/null 2>&1; then\n"
       "  if [ \"$(checked)\" -gt \"${before:-0}\" ] 2>/dev/null; then\n"
       "    echo \"[mmdiff] $(date -u +%FT%TZ) the time limit is near and the shard's budget is "
       "not spent: requeueing this task to resume it\"\n"
       "    trap - TERM\n"
       "    scontrol requeue \"$SLURM_JOB_ID\" && sleep 600\n"
       "    echo \"[mmdiff] the requeue failed: \\`mmdiff cluster resubmit $out\\` resumes\"\n"
       "  else\n"
       "    echo \"[mmdiff] $(date -u +%FT%TZ) the time limit is near and this run checked no "
       "case: not requeued (give the tasks a longer --time-limit or a shorter --warning; "
       "\\`mmdiff cluster resubmit $out\\` resumes)\"\n"
       "  fi\n"
       "fi\n"
       "exit \"$rc\"\n";
  return s;
}

std::string SlurmTriageScript(const SlurmCampaign& c) {
  std::string s =
      "#!/bin/bash\n"
      "# Written by `mmdiff cluster submit`: once every task of the campaign's array has ended\n"
      "# (--dependency=afterany), shows the shards' progress and merges them into $out/triage/.\n"
      "# Its argument: the array's job id.\n";
  Directive(s, "--job-name", c.job_name + "-triage");
  Directive(s, "--output", c.out_dir + "/slurm/triage.log");
  Directive(s, "--open-mode", "append");
  Directive(s, "--partition", c.partition);
  Directive(s, "--account", c.account);
  Directive(s, "--qos", c.qos);
  s += Header(c);
  // A guard: should the dependency let this job start while a task of the array is queued again
  // (a requeue passes through a terminal state), it submits itself again with the same dependency
  // instead of merging half a campaign.
  s += "array=${1:-}\n"
       "if [ -n \"$array\" ] && [ -n \"$(squeue -h -o %i -j \"$array\" 2>/dev/null)\" ]; then\n"
       "  again=$(sbatch --parsable --dependency=afterany:\"$array\" --kill-on-invalid-dep=yes "
       "\"$out/slurm/triage.sbatch\" \"$array\") || exit 1\n"
       "  echo \"[mmdiff] $(date -u +%FT%TZ) tasks of array job $array are queued again: triage "
       "waits for them as job $again\"\n"
       "  echo \"$(date -u +%FT%TZ) triage job $again (resubmitted by triage job $SLURM_JOB_ID)\" "
       ">>\"$out/slurm/submissions.log\"\n"
       "  exit 0\n"
       "fi\n";
  s += "echo \"[mmdiff] $(date -u +%FT%TZ) triage of $out (job $SLURM_JOB_ID)\"\n"
       "\"$mmdiff\" cluster status \"$out\"\n"
       "status=$?\n"
       "\"$mmdiff\" triage \"$out\" --out \"$out/triage\" || exit $?\n"
       "if [ \"$status\" = 1 ]; then\n"
       "  echo \"[mmdiff] some shards have not spent their budget: \\`mmdiff cluster resubmit "
       "$out\\` resumes them\"\n"
       "fi\n";
  return s;
}

Result<int64_t> ParseSbatchJobId(const std::string& output) {
  std::string first = output.substr(0, output.find_first_of(";\n"));
  int64_t id = 0;
  bool digits = !first.empty() && first.size() <= 18;
  for (char ch : first) {
    if (ch < '0' || ch > '9') digits = false;
    if (digits) id = id * 10 + (ch - '0');
  }
  if (!digits || id <= 0)
    return Status::Error("sbatch did not print a job id (got '" + output.substr(0, 200) + "')");
  return id;
}

Result<ShardProgress> ReadShardProgress(const std::string& dir, const std::string& summary) {
  auto j = ParseJsonBounded(summary);
  if (!j.ok()) return Status::Error(dir + "/summary.json: " + j.error());
  FuzzOptions o;
  FuzzSummary s;
  if (Status st = SummaryFromJson(j.value(), o, s); !st.ok())
    return Status::Error(dir + "/summary.json: " + st.message());
  ShardProgress p;
  p.dir = dir;
  p.shard = ShardText(o.shard);
  p.cases = s.cases;
  p.elapsed_s = s.elapsed_s;
  p.time_s = o.time_s;
  p.buckets = static_cast<int64_t>(s.buckets.size());
  p.resumes = s.resumes;
  // (--resume clears it: SummaryFromJson leaves it out.)
  const auto& stopped = j.value().find("interrupted");
  p.interrupted = stopped != j.value().end() && stopped->is_boolean() && stopped->get<bool>();
  if (o.max_cases >= 0)  // the indices below max_cases that are this shard's
    p.budget = o.max_cases > o.shard.index
                   ? (o.max_cases - o.shard.index + o.shard.count - 1) / o.shard.count
                   : 0;
  p.complete = (p.budget >= 0 && p.cases >= p.budget) || p.elapsed_s >= p.time_s;
  return p;
}

std::string ShardProgressTable(const std::vector<ShardProgress>& shards) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-9s %-17s %10s %8s %8s  %s\n", "shard", "cases", "elapsed",
                "buckets", "resumes", "state");
  out += line;
  int64_t cases = 0, done = 0;
  for (const ShardProgress& p : shards) {
    std::string count = std::to_string(p.cases) +
                        (p.budget >= 0 ? " of " + std::to_string(p.budget) : std::string());
    std::string state = p.complete      ? "complete"
                        : p.interrupted ? "stopped early (resume continues it)"
                                        : "running, or killed (resume continues it)";
    std::snprintf(line, sizeof line, "%-9s %-17s %9.0fs %8lld %8lld  ", p.shard.c_str(),
                  count.c_str(), p.elapsed_s, static_cast<long long>(p.buckets),
                  static_cast<long long>(p.resumes));
    out += line + state + "  " + TerminalLine(p.dir) + "\n";  // a folder name: any bytes
    cases += p.cases;
    done += p.complete;
  }
  out += std::to_string(shards.size()) + " shards, " + std::to_string(done) + " complete; " +
         std::to_string(cases) + " cases checked\n";
  return out;
}

}  // namespace mmdiff
