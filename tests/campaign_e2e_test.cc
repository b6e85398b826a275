// Campaign workflows end to end: parallel jobs, shards that merge, resume after kill -9, worker
// recycling and memory limits, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "src/support/files.h"
#include "src/support/hash.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

// The planted path diverges on many programs (every dtype-mismatched matmul), so a few hundred
// cases give several buckets.
// The campaigns here are about the campaign's machinery (shards, jobs, resume, folders, workers):
// they leave out the standalone check of each new root cause (CallSequenceE2E and the other
// campaign tests run it), whose worker starts would double their time, and the ablation
// (CompileOnceE2E tests it), whose compiles would take most of it.
const std::string kCampaign =
    "--seed 1 --test-paths --paths reference,eager,planted_promote --no-reduce "
    "--no-standalone-check --no-ablation";

nlohmann::json Summary(const std::string& dir) { return e2e::CampaignSummary(dir); }

std::map<std::string, e2e::CampaignBucket> Buckets(const nlohmann::json& summary) {
  return e2e::CampaignBuckets(summary);
}

// Every listed bucket has a complete folder, and nothing else is in findings/. A new root cause's
// folder holds issue.md, whose code block is the repro.py the folder leads with (the reduced one
// where there is one), byte for byte.
void ExpectFindingsComplete(const std::string& dir, const nlohmann::json& summary) {
  std::set<std::string> listed;
  for (const auto& b : summary["buckets"]) {
    const fs::path folder = fs::path(dir) / b["finding"].get<std::string>();
    listed.insert(folder.filename().string());
    for (const char* f : {"report.json", "program.json", "repro.py", "case.json"})
      EXPECT_TRUE(fs::exists(folder / f)) << b["hash"] << " " << f;
    EXPECT_EQ(fs::exists(folder / "issue.md"), b["new"].get<bool>()) << b["hash"];
    if (!fs::exists(folder / "issue.md")) continue;
    const fs::path lead = fs::exists(folder / "reduced" / "repro.py")
                              ? folder / "reduced" / "repro.py"
                              : folder / "repro.py";
    const std::string issue = ReadFile((folder / "issue.md").string()).value();
    EXPECT_NE(issue.find("```python\n" + ReadFile(lead.string()).value() + "```\n"),
              std::string::npos)
        << b["hash"];
  }
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "findings"))
    EXPECT_TRUE(listed.count(e.path().filename().string()))
        << "unlisted or temporary folder " << e.path();
}

TEST(CampaignE2E, TwoShardsMergeIntoTheSingleCampaignAndJobsDoNotChangeIt) {
  std::string one = e2e::ScratchDir("campaign-one"), two = e2e::ScratchDir("campaign-jobs");
  std::string s0 = e2e::ScratchDir("campaign-s0"), s1 = e2e::ScratchDir("campaign-s1");
  ASSERT_EQ(e2e::RunMmdiff("fuzz --cases 240 --jobs 1 " + kCampaign + " --out " + one).exit_code,
            0);
  ASSERT_EQ(e2e::RunMmdiff("fuzz --cases 240 --jobs 2 " + kCampaign + " --out " + two).exit_code,
            0);
  ASSERT_EQ(e2e::RunMmdiff("fuzz --cases 240 --jobs 2 --shard 0/2 " + kCampaign + " --out " + s0)
                .exit_code,
            0);
  ASSERT_EQ(e2e::RunMmdiff("fuzz --cases 240 --jobs 1 --shard 1/2 " + kCampaign + " --out " + s1)
                .exit_code,
            0);
  auto single = Buckets(Summary(one));
  ASSERT_GE(single.size(), 3u);
  EXPECT_EQ(Buckets(Summary(two)), single);
  // Merging: counts add up, the first seed and the examples are the smallest of both.
  int64_t cases = 0;
  auto merged = e2e::MergedShardBuckets({s0, s1}, &cases);
  EXPECT_EQ(cases, 240);
  EXPECT_EQ(merged, single);
  // The same case is each bucket's report, whichever shard holds it.
  for (const auto& [hash, b] : single) {
    std::string shard =
        Buckets(Summary(s0)).count(hash) && Buckets(Summary(s0))[hash].first_seed == b.first_seed
            ? s0
            : s1;
    auto a = ReadFile(one + "/findings/" + hash + "/program.json"),
         c = ReadFile(shard + "/findings/" + hash + "/program.json");
    ASSERT_TRUE(a.ok() && c.ok()) << hash;
    EXPECT_EQ(a.value(), c.value()) << hash;
    // --no-ablation: the planted path's findings were not run through torch.compile's stages.
    EXPECT_FALSE(e2e::ReadJson(one + "/findings/" + hash + "/report.json").contains("ablation"));
  }
}

TEST(CampaignE2E, ResumeAfterKillNineLosesAndDuplicatesNothing) {
  std::string whole = e2e::ScratchDir("campaign-whole"),
              killed = e2e::ScratchDir("campaign-killed");
  ASSERT_EQ(e2e::RunMmdiff("fuzz --cases 400 --jobs 2 " + kCampaign + " --out " + whole).exit_code,
            0);
  // Kill the whole campaign (the workers die with it) once it has found something: a wait for that
  // condition, bounded generously (150 s) for a busy machine, never a fixed delay.
  auto r = e2e::RunShell(
      std::string(MMDIFF_BUILD_DIR) + "/mmdiff fuzz --cases 400 --jobs 2 " + kCampaign + " --out " +
      killed + " >/dev/null 2>&1 & pid=$!; for i in $(seq 1500); do sleep 0.1; " +
      "grep -q '\"hash\"' " + killed + "/summary.json 2>/dev/null && break; done; sleep 0.5; " +
      "kill -9 $pid; wait $pid; echo rc=$?");
  ASSERT_NE(r.output.find("rc=137"), std::string::npos) << r.output;
  nlohmann::json before = Summary(killed);
  ASSERT_FALSE(before.is_null());
  ASSERT_LT(before["cases"].get<int64_t>(), 400)
      << "the campaign finished before the kill: the test proves nothing";
  auto resumed = e2e::RunMmdiff("fuzz --resume " + killed);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  nlohmann::json after = Summary(killed), reference = Summary(whole);
  EXPECT_EQ(after["cases"], 400);
  EXPECT_EQ(after["resumes"], 1);
  // Workers that died with the killed campaign were not restarts.
  EXPECT_EQ(after["worker_restarts"], reference["worker_restarts"]);
  EXPECT_EQ(after["diverging_cases"], reference["diverging_cases"]);
  EXPECT_EQ(Buckets(after), Buckets(reference));
  ExpectFindingsComplete(killed, after);
}

// --resume adopts finding folders written after the last summary; a folder whose case this
// campaign would never run (planted, or copied from another campaign) is not one of them.
TEST(CampaignE2E, ResumeIgnoresAFindingFolderOfACaseBeyondTheBudget) {
  std::string dir = e2e::ScratchDir("campaign-stray");
  ASSERT_EQ(e2e::RunMmdiff("fuzz --cases 60 --jobs 1 " + kCampaign + " --out " + dir).exit_code, 0);
  nlohmann::json before = Summary(dir);
  ASSERT_FALSE(before["buckets"].empty()) << "no finding to copy: the test proves nothing";
  fs::path real = fs::path(dir) / before["buckets"][0]["finding"].get<std::string>();
  const std::string stray_hash = "00000000deadbeef";
  fs::path stray = fs::path(dir) / "findings" / stray_hash;
  fs::copy(real, stray, fs::copy_options::recursive);
  nlohmann::json c = nlohmann::json::parse(ReadFile((stray / "case.json").string()).value());
  c["hash"] = stray_hash;
  c["signature"] = c["root_cause"] = "planted|elsewhere";
  c["index"] = 1000000;
  ASSERT_TRUE(WriteFileAtomic((stray / "case.json").string(), c.dump()).ok());
  auto r = e2e::RunMmdiff("fuzz --resume " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("is not one of this campaign's"), std::string::npos) << r.output;
  nlohmann::json after = Summary(dir);
  EXPECT_EQ(after["cases"], 60);
  EXPECT_EQ(after["diverging_cases"], before["diverging_cases"]);
  EXPECT_EQ(after["resumes"], 1);
  for (const auto& b : after["buckets"]) EXPECT_NE(b["hash"], stray_hash);
}

TEST(CampaignE2E, NewBucketsAreReducedIntoTheirFolderUnlessToldNot) {
  std::string dir = e2e::ScratchDir("campaign-reduce");
  auto r = e2e::RunMmdiff(
      "fuzz --no-standalone-check --no-ablation --cases 40 --jobs 1 --reduce-budget 40 --seed 1 "
      "--test-paths "
      "--paths "
      "reference,eager,planted_promote --out " +
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json s = Summary(dir);
  ASSERT_FALSE(s["buckets"].empty());
  int reduced = 0;
  for (const auto& b : s["buckets"]) {
    fs::path folder = fs::path(dir) / b["finding"].get<std::string>();
    if (!fs::exists(folder / "reduced" / "report.json")) continue;
    ++reduced;
    auto original = nlohmann::json::parse(ReadFile((folder / "report.json").string()).value());
    auto smaller =
        nlohmann::json::parse(ReadFile((folder / "reduced" / "report.json").string()).value());
    // The folder is named after the reduced case's root cause.
    EXPECT_EQ(smaller["bucket"]["hash"], folder.filename().string());
    EXPECT_LE(smaller["program"]["nodes"].size(), original["program"]["nodes"].size());
    EXPECT_TRUE(fs::exists(folder / "reduced" / "repro.py"));
    auto reduction =
        nlohmann::json::parse(ReadFile((folder / "reduced" / "reduction.json").string()).value());
    EXPECT_FALSE(reduction["stopped_early"].get<bool>());  // no time limit was met
  }
  EXPECT_GT(reduced, 0) << "no bucket was reduced";
  ExpectFindingsComplete(dir, s);
}

// Reduce first, then sign: errors on programs the contract accepts are signed by all their ops
// until reduction narrows them to the op that raises, so several buckets reduce to one root cause.
// Training chains of addmv, mm and linear with empty dims, one dtype: eager's backward of an addmv
// with an empty matrix and a [1] bias raises, and every chain holding one is signed by its ops
// until reduction narrows it to the addmv (docs/judging.md, "Where eager breaks the rule"). The
// default policy's such buckets were the meta kernel raising on an empty mixed-dtype bmm, which is
// now eager's contract finding at the bmm from the start.
std::string AddmvChainPolicy(const std::string& dir) {
  nlohmann::json p = {{"format", "mmdiff.policy"}, {"version", 1},   {"max_ops", 3},
                      {"p_mixed_dtype", 0.0},      {"p_chain", 1.0}, {"p_glue", 1.0},
                      {"p_zero_dim", 1.0},         {"p_train", 1.0}, {"w_mm", 1.0},
                      {"w_linear", 1.0},           {"w_addmv", 1.0}};
  for (const char* w :
       {"w_addbmm", "w_addmm", "w_attention", "w_baddbmm", "w_bmm", "w_dot", "w_matmul", "w_mv",
        "w_sdpa", "w_bool", "w_int8", "w_uint8", "w_int32", "w_int64"})
    p[w] = 0.0;
  for (const char* r :
       {"p_cuda", "p_meta", "p_device_mismatch", "p_shape_violation", "p_cast", "p_move"})
    p[r] = 0.0;
  std::ofstream(dir + "/policy.json") << p.dump(2);
  return dir + "/policy.json";
}

TEST(CampaignE2E, BucketsThatReduceToOneRootCauseShareOneFolderWhateverTheJobs) {
  std::string one = e2e::ScratchDir("campaign-cause-one"),
              two = e2e::ScratchDir("campaign-cause-two");
  const std::string campaign = "fuzz --no-standalone-check --cases 200 --seed 1 --policy " +
                               AddmvChainPolicy(e2e::ScratchDir("campaign-cause-policy")) +
                               " --no-known --paths reference,eager,eager_meta --out ";
  ASSERT_EQ(e2e::RunMmdiff(campaign + one + " --jobs 1").exit_code, 0);
  ASSERT_EQ(e2e::RunMmdiff(campaign + two + " --jobs 2").exit_code, 0);
  nlohmann::json s = Summary(one);
  std::map<std::string, std::set<std::string>> signatures_of;  // folder -> the buckets' signatures
  std::map<std::string, std::set<std::string>> causes_of;      // folder -> the buckets' root causes
  std::map<std::string, int64_t> smallest;  // folder -> its buckets' smallest case
  for (const auto& b : s["buckets"]) {
    std::string folder = b["finding"];
    signatures_of[folder].insert(b["signature"].get<std::string>());
    causes_of[folder].insert(b.value("reduced_signature", b["signature"].get<std::string>()));
    auto [it, fresh] = smallest.try_emplace(folder, b["first_index"].get<int64_t>());
    if (!fresh) it->second = std::min(it->second, b["first_index"].get<int64_t>());
  }
  bool shared = false;
  for (const auto& [folder, causes] : causes_of) {
    shared |= signatures_of[folder].size() > 1;
    ASSERT_EQ(causes.size(), 1u) << folder << ": buckets of different root causes share it";
    EXPECT_EQ(fs::path(folder).filename().string(), HashHex(*causes.begin())) << folder;
    // The folder holds the smallest case of the buckets that lead to it.
    auto c = nlohmann::json::parse(ReadFile(one + "/" + folder + "/case.json").value());
    EXPECT_EQ(c["index"], smallest[folder]) << folder;
    EXPECT_EQ(c["root_cause"], *causes.begin()) << folder;
  }
  ASSERT_TRUE(shared) << "no two buckets reduced to one root cause: the test proves nothing";
  EXPECT_EQ(s["new_root_causes"].get<size_t>() + s["known_buckets"].get<size_t>(),
            causes_of.size());
  ExpectFindingsComplete(one, s);
  // The same folders with the same cases, whichever job finished first.
  for (const auto& [folder, causes] : causes_of) {
    auto a = ReadFile(one + "/" + folder + "/program.json"),
         b = ReadFile(two + "/" + folder + "/program.json");
    ASSERT_TRUE(a.ok() && b.ok()) << folder;
    EXPECT_EQ(a.value(), b.value()) << folder;
  }
  EXPECT_EQ(Buckets(Summary(two)), Buckets(s));
  ExpectFindingsComplete(two, Summary(two));
  // Triage reads a shared folder once, as one entry holding every bucket's cases.
  std::string out = e2e::ScratchDir("campaign-cause-triage");
  auto t = e2e::RunMmdiff("triage " + one + " --no-known --out " + out);
  ASSERT_EQ(t.exit_code, 0) << t.output;
  std::string md = ReadFile(out + "/triage.md").value();
  EXPECT_EQ(md.find("differs from the summary"), std::string::npos) << md;
  EXPECT_NE(md.find("also campaign buckets"), std::string::npos) << md;
  size_t entries = 0;
  for (size_t at = md.find("\n### "); at != std::string::npos; at = md.find("\n### ", at + 1))
    ++entries;
  EXPECT_EQ(entries, s["new_root_causes"].get<size_t>()) << md;
}

TEST(CampaignE2E, ACrashReductionStopsAtItsTimeLimit) {
  // Every candidate of a crash finding restarts the worker (seconds: it imports torch); without a
  // limit this case's reduction makes about 20 of them.
  std::string dir = e2e::ScratchDir("campaign-reduce-time");
  auto r = e2e::RunMmdiff(
      "fuzz --no-standalone-check --no-ablation --cases 1 --jobs 1 --seed 3 --reduce-time 1 "
      "--test-paths --paths "
      "reference,eager,crash_segv --out " +
      dir + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json s = Summary(dir);
  ASSERT_EQ(s["buckets"].size(), 1u) << r.output;
  EXPECT_LE(s["worker_restarts"].get<int>(), 5) << r.output;
  EXPECT_EQ(s["resume"]["reduce_time_s"], 1.0);
  fs::path reduction =
      fs::path(dir) / s["buckets"][0]["finding"].get<std::string>() / "reduced" / "reduction.json";
  if (fs::exists(reduction)) {  // a smaller case kept the bucket before the time was up
    EXPECT_TRUE(
        nlohmann::json::parse(ReadFile(reduction.string()).value())["stopped_early"].get<bool>());
    EXPECT_NE(r.output.find("(stopped early, out of time"), std::string::npos) << r.output;
  } else {
    EXPECT_NE(r.output.find("out of time before any smaller case kept the bucket"),
              std::string::npos)
        << r.output;
  }
  ExpectFindingsComplete(dir, s);
}

TEST(CampaignE2E, WorkersAreRecycledAndAnOutOfMemoryWorkerIsAFindingNotADeadCampaign) {
  std::string dir = e2e::ScratchDir("campaign-recycle");
  // No reduction: its extra runs would go through the same workers. TorchScript compiles.
  auto r = e2e::RunMmdiff(
      "fuzz --no-standalone-check --cases 20 --jobs 1 --recycle-after 5 --no-reduce --paths "
      "reference,eager,torchscript "
      "--out " +
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json s = Summary(dir);
  EXPECT_EQ(s["worker_recycles"], 3);  // after programs 5, 10 and 15
  EXPECT_EQ(s["worker_restarts"], 0);
  // Programs that compile nothing do not count; memory growth does (any run grows a fresh
  // worker's resident memory by more than a megabyte).
  for (const char* growth : {"0", "1"}) {
    std::string out = dir + "-growth-" + growth;
    r = e2e::RunMmdiff(
        "fuzz --no-standalone-check --cases 7 --jobs 1 --recycle-after 5 --no-reduce --paths "
        "reference,eager "
        "--recycle-growth-mb " +
        std::string(growth) + " --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    s = Summary(out);
    if (std::string(growth) == "0")
      EXPECT_EQ(s["worker_recycles"], 0) << r.output;
    else
      EXPECT_GE(s["worker_recycles"].get<int>(), 1) << r.output;
  }

  std::string oom = e2e::ScratchDir("campaign-oom");
  // No reduction either: each run of an out-of-memory case restarts the worker (seconds each).
  r = e2e::RunMmdiff(
      "fuzz --no-standalone-check --cases 2 --jobs 1 --no-reduce --test-paths --paths "
      "reference,oom --worker-memory-mb "
      "1500 --out " +
      oom);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  s = Summary(oom);
  EXPECT_EQ(s["cases"], 2);
  ASSERT_FALSE(s["buckets"].empty());
  EXPECT_NE(s["buckets"][0]["headline"].get<std::string>().find("oom crashes in stage"),
            std::string::npos);
  EXPECT_NE(s["buckets"][0]["headline"].get<std::string>().find("bad_alloc"), std::string::npos);
}

TEST(CampaignE2E, ALiveProgressLineOnATerminalAndLogLinesOtherwise) {
  std::string dir = e2e::ScratchDir("campaign-tty");
  // `script` gives the campaign a terminal.
  auto r = e2e::RunShell("script -qec '" + std::string(MMDIFF_BUILD_DIR) +
                         "/mmdiff fuzz --time 3 --jobs 1 --paths " + "reference,eager --out " +
                         dir + "' /dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\r\033[K"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cases ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("left"), std::string::npos) << r.output;
  // The workers ran in the campaign's folder for torch's debug files, not in the caller's.
  EXPECT_TRUE(std::filesystem::is_directory(dir + "/worker-files"));
}

TEST(CampaignE2E, BadInputGetsAClearMessageAndExitCodeTwo) {
  std::string dir = e2e::ScratchDir("campaign-bad");
  auto r = e2e::RunMmdiff("fuzz --resume " + dir + "/nowhere");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("nowhere"), std::string::npos) << r.output;
  WriteFileAtomic(dir + "/summary.json",
                  "{\"format\": \"mmdiff.fuzz-summary\", \"version\": 1, \"cas");
  r = e2e::RunMmdiff("fuzz --resume " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("malformed JSON"), std::string::npos) << r.output;
  WriteFileAtomic(dir + "/summary.json", "{\"format\": \"mmdiff.fuzz-summary\", \"version\": 99}");
  r = e2e::RunMmdiff("fuzz --resume " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("version 99 is not supported"), std::string::npos) << r.output;
  // A campaign of an earlier mmdiff (buckets signed otherwise) is read by triage, not resumed.
  WriteFileAtomic(dir + "/summary.json", "{\"format\": \"mmdiff.fuzz-summary\", \"version\": 1}");
  r = e2e::RunMmdiff("fuzz --resume " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("version 1 was written by an older mmdiff and cannot be resumed"),
            std::string::npos)
      << r.output;
  WriteFileAtomic(dir + "/summary.json", "{\"format\": \"mmdiff.fuzz-summary\", \"version\": 99}");
  // A folder that holds a campaign is not overwritten by a new one.
  r = e2e::RunMmdiff("fuzz --cases 1 --out " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--resume"), std::string::npos) << r.output;
  EXPECT_EQ(ReadFile(dir + "/summary.json").value(),
            "{\"format\": \"mmdiff.fuzz-summary\", \"version\": 99}");
  // A repeated option takes the last value (scripts/fuzz passes defaults before the user's own).
  r = e2e::RunMmdiff("fuzz --time 600 --time 0 --jobs 1 --paths reference --out " + dir + "/twice");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Summary(dir + "/twice")["cases"], 0);
  r = e2e::RunMmdiff("fuzz --cases 1 --shard 2/2 --out " + dir + "/x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("i/N"), std::string::npos) << r.output;
  r = e2e::RunMmdiff("fuzz --cases 1 --recycle-growth-mb -1 --out " + dir + "/y");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // A summary whose resume state names no known --controls mode is refused, not guessed.
  nlohmann::json twice = Summary(dir + "/twice");
  twice["resume"]["controls"] = "sometimes";
  WriteFileAtomic(dir + "/twice/summary.json", twice.dump());
  r = e2e::RunMmdiff("fuzz --resume " + dir + "/twice");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("resume.controls must be"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mmdiff
