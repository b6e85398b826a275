// A worker that cannot work, or whose replies are spoiled on the way, is the worker's fault and
// never a finding against a path: `run` and `fuzz` with the relay stand-in (tests/relay_worker.cc)
// in each of its modes. A spoiled reply is retried once on a fresh worker; spoiled again, the
// request is given up as a worker fault (run: exit 3; fuzz: the case is listed, not judged);
// workers that keep failing stop a campaign with exit 3, its summary saying why, and --resume
// continues once a good worker is back.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "src/ir/program_json.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

// The modes that spoil one reply (the relay's header comment says how each does it).
const std::vector<std::string> kSpoilingModes = {"truncate", "flip", "oversize", "wrong_type",
                                                 "duplicate"};

// The environment that makes `mmdiff` start the relay in `mode` in front of the real worker;
// `once`: a file that lets only the first relay spoil.
std::string Relay(const std::string& mode, const std::string& once = "") {
  const std::string build = MMDIFF_BUILD_DIR;
  return "MMDIFF_WORKER=" + build + "/relay_worker MMDIFF_RELAY_WORKER=" + build +
         "/mmdiff-worker MMDIFF_RELAY_MODE=" + mode +
         (once.empty() ? "" : " MMDIFF_RELAY_ONCE=" + once) + " ";
}

e2e::CommandResult Mmdiff(const std::string& env, const std::string& args) {
  return e2e::RunShell(env + std::string(MMDIFF_BUILD_DIR) + "/mmdiff " + args);
}

// A legal float32 mm, which reference and eager agree on.
std::string CaseFile(const std::string& dir) {
  std::ofstream(dir + "/case.json") << ProgramToJson(e2e::LegalMm()).dump(2);
  return dir + "/case.json";
}

// Stall: the relay sends nothing after the request, so the supervisor's --timeout (5 s) decides.
std::string Timeout(const std::string& mode) { return mode == "stall" ? " --timeout 5" : ""; }

TEST(WorkerFaultE2E, RunRetriesASpoiledReplyOnceAndGivesTheGoodWorkersVerdict) {
  std::vector<std::string> modes = kSpoilingModes;
  modes.push_back("stall");
  for (const std::string& mode : modes) {
    SCOPED_TRACE(mode);
    std::string dir = e2e::ScratchDir("fault-run-once-" + mode);
    auto r = Mmdiff(Relay(mode, dir + "/spoiled"),
                    "run " + CaseFile(dir) + " --paths reference,eager" + Timeout(mode));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("verdict: agree"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("worker fault: "), std::string::npos) << "nothing was spoiled";
    EXPECT_NE(r.output.find("sending the request again"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("crash"), std::string::npos) << r.output;
  }
}

TEST(WorkerFaultE2E, RunGivesUpARequestSpoiledTwiceWithExitThreeAndBlamesNoPath) {
  for (const std::string& mode : kSpoilingModes) {
    SCOPED_TRACE(mode);
    std::string dir = e2e::ScratchDir("fault-run-always-" + mode);
    auto r = Mmdiff(Relay(mode), "run " + CaseFile(dir) + " --paths reference,eager");
    EXPECT_EQ(r.exit_code, 3) << r.output;
    EXPECT_NE(r.output.find("the worker failed twice on 1 request(s)"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("again after a restart"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("crash"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("findings (one per root cause)"), std::string::npos) << r.output;
  }
}

TEST(WorkerFaultE2E, RunWithAFloodedStderrOrAWorkerThatDiesAtStartSaysWhatHappened) {
  std::string dir = e2e::ScratchDir("fault-run-misc");
  auto flood = Mmdiff(Relay("stderr_flood"), "run " + CaseFile(dir) + " --paths reference,eager");
  EXPECT_EQ(flood.exit_code, 0) << flood.output.substr(0, 2000);
  EXPECT_NE(flood.output.find("verdict: agree"), std::string::npos);
  EXPECT_LT(flood.output.size(), 100000u) << "the worker's stderr reached the terminal";
  auto dead = Mmdiff(Relay("die_at_start"), "run " + CaseFile(dir) + " --paths reference,eager");
  EXPECT_EQ(dead.exit_code, 3) << dead.output;
  EXPECT_NE(dead.output.find("worker did not start"), std::string::npos) << dead.output;
  EXPECT_NE(dead.output.find("dying at start-up"), std::string::npos) << dead.output;
  // A case that kills its worker stays a crash finding of the path that ran.
  auto killed = Mmdiff(Relay("kill_on_run", dir + "/killed"),
                       "run " + CaseFile(dir) + " --paths reference,eager");
  EXPECT_EQ(killed.exit_code, 1) << killed.output;
  EXPECT_NE(killed.output.find("eager crashes"), std::string::npos) << killed.output;
}

const std::string kCampaign = "fuzz --cases 4 --jobs 1 --seed 3 --paths reference,eager --out ";

TEST(WorkerFaultE2E, FuzzRetriesEachSpoiledReplyOnceAndFindsNothing) {
  std::vector<std::string> modes = kSpoilingModes;
  modes.push_back("stall");
  modes.push_back("stderr_flood");
  for (const std::string& mode : modes) {
    SCOPED_TRACE(mode);
    std::string dir = e2e::ScratchDir("fault-fuzz-once-" + mode);
    auto r = Mmdiff(Relay(mode, dir + "/spoiled"), kCampaign + dir + "/out" + Timeout(mode));
    ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 4000);
    nlohmann::json s = e2e::CampaignSummary(dir + "/out");
    EXPECT_EQ(s["cases"], 4);
    EXPECT_EQ(s["buckets"].size(), 0u) << s["buckets"].dump(1);
    EXPECT_EQ(s["worker_faults"]["cases"], 0);
    EXPECT_TRUE(s["worker_failure"].is_null());
    EXPECT_EQ(s["worker_restarts"], mode == "stderr_flood" ? 0 : 1);
  }
}

// Every reply spoiled: each case's request fails twice, and after five starts in a row without a
// valid frame, or five requests in a row given up (a duplicate comes after a valid frame), the
// campaign stops; a resume with a good worker runs the cases left.
const std::string kAlwaysCampaign =
    "fuzz --cases 8 --jobs 1 --seed 3 --paths reference,eager --out ";
TEST(WorkerFaultE2E, FuzzStopsWhenItsWorkersKeepFailingAndResumeContinues) {
  // A reply cut short and one damaged stop it by failed starts, a duplicate by requests given up
  // (the other modes fail the first reply as those two do: `run` and the retry above test them).
  for (const std::string mode : {"truncate", "flip", "duplicate"}) {
    SCOPED_TRACE(mode);
    std::string dir = e2e::ScratchDir("fault-fuzz-always-" + mode);
    auto r = Mmdiff(Relay(mode), kAlwaysCampaign + dir + "/out");
    ASSERT_EQ(r.exit_code, 3) << r.output.substr(0, 4000);
    EXPECT_NE(r.output.find("--resume"), std::string::npos) << r.output;
    nlohmann::json s = e2e::CampaignSummary(dir + "/out");
    ASSERT_TRUE(s["worker_failure"].is_string()) << s.dump(1);
    EXPECT_EQ(s["worker_failure"].get<std::string>().rfind("the worker cannot work", 0), 0u)
        << s["worker_failure"];
    EXPECT_EQ(s["buckets"].size(), 0u) << s["buckets"].dump(1);
    EXPECT_LT(s["cases"].get<int>(), 8);
    EXPECT_EQ(s["worker_faults"]["cases"], s["cases"]) << "a case judged with a spoiled reply";
    if (mode != "flip") continue;  // (one resume is enough)
    auto resumed = e2e::RunMmdiff("fuzz --resume " + dir + "/out");
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output.substr(0, 4000);
    nlohmann::json t = e2e::CampaignSummary(dir + "/out");
    EXPECT_EQ(t["cases"], 8);
    EXPECT_TRUE(t["worker_failure"].is_null());
    EXPECT_EQ(t["worker_faults"]["cases"], s["worker_faults"]["cases"]);
  }
}

TEST(WorkerFaultE2E, FuzzWithAWorkerThatDiesAtStartExitsThreeAndItsSummarySaysWhy) {
  std::string dir = e2e::ScratchDir("fault-fuzz-dead");
  auto r = Mmdiff(Relay("die_at_start"), kCampaign + dir + "/out");
  ASSERT_EQ(r.exit_code, 3) << r.output;
  nlohmann::json s = e2e::CampaignSummary(dir + "/out");
  EXPECT_EQ(s["not_started"], true) << s.dump(1);
  EXPECT_NE(s["worker_failure"].get<std::string>().find("dying at start-up"), std::string::npos)
      << s["worker_failure"];
  EXPECT_EQ(s["cases"], 0);
  // Nothing to resume: the same command starts it, once the worker works.
  auto resumed = e2e::RunMmdiff("fuzz --resume " + dir + "/out");
  EXPECT_EQ(resumed.exit_code, 2) << resumed.output;
  EXPECT_NE(resumed.output.find("never started"), std::string::npos) << resumed.output;
  auto again = e2e::RunMmdiff(kCampaign + dir + "/out");
  ASSERT_EQ(again.exit_code, 0) << again.output.substr(0, 4000);
  EXPECT_EQ(e2e::CampaignSummary(dir + "/out")["cases"], 4);
}

// A case that kills its worker is a crash finding, and the campaign goes on with the others.
TEST(WorkerFaultE2E, FuzzACaseThatKillsItsWorkerIsACrashFindingAndTheOthersRun) {
  std::string dir = e2e::ScratchDir("fault-fuzz-kill");
  auto r = Mmdiff(Relay("kill_on_run", dir + "/killed") + "MMDIFF_RELAY_AT=2 ",
                  kCampaign + dir + "/out --no-reduce --no-standalone-check");
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 4000);
  nlohmann::json s = e2e::CampaignSummary(dir + "/out");
  EXPECT_EQ(s["cases"], 4);
  EXPECT_EQ(s["worker_faults"]["cases"], 0);
  ASSERT_EQ(s["buckets"].size(), 1u) << s["buckets"].dump(1);
  EXPECT_EQ(s["buckets"][0]["count"], 1);
  EXPECT_NE(s["buckets"][0]["headline"].get<std::string>().find("eager crashes"), std::string::npos)
      << s["buckets"][0]["headline"];
}

}  // namespace
}  // namespace mmdiff
