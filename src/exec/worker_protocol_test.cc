// Tests for the traits and unsupported reasons across the worker protocol: the worker loop
// announces each backend's traits and sends each result's reason; the supervisor validates a
// worker's greeting (a malformed trait is a clear error) and stamps each result with the traits
// its worker published.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "src/exec/backend.h"
#include "src/exec/path_info.h"
#include "src/exec/supervisor.h"
#include "src/exec/wire.h"
#include "src/exec/worker_loop.h"
#include "src/ir/program_json.h"
#include "src/support/files.h"

namespace mmdiff {
namespace {

Program Mm() {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat32, Device::kCpu},
              {"b", {3, 2}, DType::kFloat32, Device::kCpu}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  return p;
}

// A path that never runs the program: it says it has no GPU for it.
class NoGpuPath : public Backend {
 public:
  std::string name() const override { return "needs_a_gpu"; }
  PathTraits traits() const override { return {.compiled = true, .needs_gpu = true}; }
  PathResult Run(const Program&, const InputRecipe&, StageReporter&) override {
    PathResult r{name(), OutcomeKind::kUnsupported};
    r.unsupported = UnsupportedReason::kNoGpu;
    r.message = "no GPU here";
    return r;
  }
};

// A path that cannot run here.
class MissingPath : public Backend {
 public:
  std::string name() const override { return "missing"; }
  PathTraits traits() const override { return {.on_demand = true}; }
  std::string Unavailable() const override { return "not installed"; }
  PathResult Run(const Program&, const InputRecipe&, StageReporter&) override {
    return PathResult{name(), OutcomeKind::kOk};
  }
};

// Serves the requests (written in advance) with the two paths; returns the worker's messages.
std::vector<nlohmann::json> Serve(const std::vector<nlohmann::json>& requests) {
  int in[2], out[2];
  EXPECT_EQ(pipe(in), 0);
  EXPECT_EQ(pipe(out), 0);
  for (const auto& r : requests) EXPECT_TRUE(WriteFrame(in[1], r).ok());
  close(in[1]);
  std::vector<std::unique_ptr<Backend>> backends;
  backends.push_back(std::make_unique<NoGpuPath>());
  backends.push_back(std::make_unique<MissingPath>());
  EXPECT_EQ(RunWorkerLoop(in[0], out[1], backends, {{"torch", "test"}}), 0);
  close(in[0]);
  close(out[1]);
  std::vector<nlohmann::json> messages;
  for (ReadResult m = ReadFrame(out[0], 1000); m.state == ReadState::kOk;
       m = ReadFrame(out[0], 1000))
    messages.push_back(m.message);
  close(out[0]);
  return messages;
}

TEST(WorkerProtocol, TheHelloAnnouncesEachPathsTraits) {
  auto messages = Serve({{{"type", "hello"}}, {{"type", "exit"}}});
  ASSERT_EQ(messages.size(), 1u);
  ASSERT_EQ(messages[0]["paths"].size(), 2u);
  auto gpu = PathInfoFromJson(messages[0]["paths"][0]);
  auto missing = PathInfoFromJson(messages[0]["paths"][1]);
  ASSERT_TRUE(gpu.ok()) << gpu.error();
  ASSERT_TRUE(missing.ok()) << missing.error();
  EXPECT_EQ(gpu.value().name, "needs_a_gpu");
  EXPECT_TRUE(gpu.value().available);
  EXPECT_EQ(gpu.value().traits, (PathTraits{.compiled = true, .needs_gpu = true}));
  EXPECT_FALSE(missing.value().available);
  EXPECT_EQ(missing.value().why, "not installed");
  EXPECT_EQ(missing.value().traits, (PathTraits{.on_demand = true}));
}

TEST(WorkerProtocol, EachUnsupportedResultSaysWhyAsAReason) {
  nlohmann::json run = {{"type", "run"},
                        {"program", ProgramToJson(Mm())},
                        {"recipe", RecipeToJson({"grid16", 1})},
                        {"paths", {"needs_a_gpu", "missing", "nowhere"}}};
  std::vector<PathResult> results;
  for (const auto& m : Serve({run}))
    if (m["type"] == "result") {
      auto r = PathResultFromJson(m["result"]);
      ASSERT_TRUE(r.ok()) << r.error();
      results.push_back(r.value());
    }
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].unsupported, UnsupportedReason::kNoGpu);
  EXPECT_EQ(results[1].unsupported, UnsupportedReason::kUnavailable);
  EXPECT_EQ(results[1].message, "not installed");
  EXPECT_EQ(results[2].unsupported, UnsupportedReason::kUnknownPath);
}

using JsonList = std::vector<nlohmann::json>;

// A stand-in worker: a script that sends the frames in a file, whatever it is asked, then waits to
// be stopped.
class ScriptedWorker {
 public:
  explicit ScriptedWorker(const JsonList& frames) : dir_("mmdiff-scripted") {
    std::string frames_file = dir_.File("frames");
    int fd = open(frames_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    for (const auto& f : frames) EXPECT_TRUE(WriteFrame(fd, f).ok());
    close(fd);
    std::ofstream(dir_.File("worker")) << "#!/bin/sh\ncat '" << frames_file << "'\nexec sleep 30\n";
    chmod(dir_.File("worker").c_str(), 0700);
  }
  SupervisorOptions Options() const {
    SupervisorOptions o;
    o.worker_binary = dir_.File("worker");
    o.startup_timeout_s = 10;
    o.stage_timeout_s = 10;
    return o;
  }

 private:
  PrivateTempDir dir_;
};

nlohmann::json Hello(const JsonList& paths) {
  return {{"type", "hello"}, {"versions", nlohmann::json::object()}, {"paths", paths}};
}

TEST(WorkerProtocol, TheSupervisorRejectsAGreetingWithAMalformedTrait) {
  nlohmann::json path = PathInfoToJson({"inductor", true, "", PathTraits{.compiled = true}});
  path["traits"]["compiled"] = "sometimes";
  ScriptedWorker worker(JsonList{Hello({path})});
  Supervisor sup(worker.Options());
  Status s = sup.Hello();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "worker announced a malformed path: path \"inductor\": path traits: \"compiled\" must "
            "be true or false");
  EXPECT_TRUE(sup.paths().empty());
}

TEST(WorkerProtocol, TheSupervisorStampsEachResultWithItsPathsTraits) {
  PathTraits compiled{.compiled = true, .needs_gpu = true};
  PathResult unsupported{"inductor", OutcomeKind::kUnsupported};
  unsupported.unsupported = UnsupportedReason::kNoGpu;
  unsupported.message = "program uses cuda and this machine has no GPU";
  ScriptedWorker worker(
      JsonList{Hello({PathInfoToJson({"inductor", true, "", compiled})}),
               {{"type", "result"}, {"result", PathResultToJson(unsupported, true)}},
               {{"type", "done"}}});
  Supervisor sup(worker.Options());
  ASSERT_TRUE(sup.Hello().ok());
  ASSERT_NE(sup.Traits("inductor"), nullptr);
  EXPECT_EQ(*sup.Traits("inductor"), compiled);
  EXPECT_EQ(sup.Traits("eager"), nullptr);
  std::vector<PathResult> results = sup.Run(Mm(), {"grid16", 1}, {"inductor"});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].kind, OutcomeKind::kUnsupported);
  EXPECT_EQ(results[0].unsupported, UnsupportedReason::kNoGpu);
  EXPECT_EQ(results[0].traits, compiled);
}

// A result that does not decode is the worker's fault, not the path's: the worker is restarted and
// asked again (this scripted one greets instead of answering), then the path gets a worker fault,
// which no oracle judges, never a crash.
TEST(WorkerProtocol, AnUnreadableResultIsAWorkerFaultNeverACrashOfThePath) {
  nlohmann::json result = {
      {"path", "eager"}, {"outcome", "unsupported"}, {"unsupported_reason", "out_of_coffee"}};
  ScriptedWorker worker(JsonList{Hello({PathInfoToJson({"eager", true, "", {.needs_gpu = true}})}),
                                 {{"type", "result"}, {"result", result}},
                                 {{"type", "done"}}});
  Supervisor sup(worker.Options());
  ASSERT_TRUE(sup.Hello().ok());
  std::vector<PathResult> results = sup.Run(Mm(), {"grid16", 1}, {"eager"});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].kind, OutcomeKind::kUnsupported);
  EXPECT_EQ(results[0].unsupported, UnsupportedReason::kWorkerFault);
  EXPECT_NE(results[0].message.find("unknown unsupported reason \"out_of_coffee\""),
            std::string::npos)
      << results[0].message;
  EXPECT_NE(results[0].message.find("again after a restart: a reply of type \"hello\""),
            std::string::npos)
      << results[0].message;
  EXPECT_EQ(sup.retried_faults(), 1);
  EXPECT_EQ(sup.faults(), 1);
  EXPECT_FALSE(sup.Broken());
}

// Replies that are not what a run request asks for: each is a worker fault after its retry.
TEST(WorkerProtocol, RepliesARunNeverAsksForAreWorkerFaults) {
  PathResult ok{"eager", OutcomeKind::kOk};
  nlohmann::json eager = PathResultToJson(ok, true);
  const std::vector<std::pair<std::string, JsonList>> cases = {
      {"a result for path \"inductor\"",
       {{{"type", "result"}, {"result", PathResultToJson({"inductor", OutcomeKind::kOk}, true)}}}},
      {"\"done\" after 0 of 1 results", {{{"type", "done"}}}},
      {"a result beyond the 1 paths",
       {{{"type", "result"}, {"result", eager}}, {{"type", "result"}, {"result", eager}}}},
      {"a reply of type \"greeting\"", {{{"type", "greeting"}}}},
  };
  for (const auto& [expected, replies] : cases) {
    JsonList frames = {Hello({PathInfoToJson({"eager", true, "", {}})})};
    frames.insert(frames.end(), replies.begin(), replies.end());
    ScriptedWorker worker(frames);
    Supervisor sup(worker.Options());
    ASSERT_TRUE(sup.Hello().ok());
    std::vector<PathResult> results = sup.Run(Mm(), {"grid16", 1}, {"eager"});
    ASSERT_EQ(results.size(), 1u) << expected;
    EXPECT_EQ(results[0].unsupported, UnsupportedReason::kWorkerFault) << expected;
    EXPECT_NE(results[0].message.find(expected), std::string::npos) << results[0].message;
  }
}

// A worker that fails at every start: after max_failed_starts the supervisor is Broken, starts no
// more, and says what the worker did.
TEST(WorkerProtocol, AWorkerThatNeverStartsBreaksTheSupervisorAfterABoundedNumberOfStarts) {
  PrivateTempDir dir("mmdiff-dying");
  std::ofstream(dir.File("worker")) << "#!/bin/sh\necho 'no torch on this node' >&2\nexit 7\n";
  chmod(dir.File("worker").c_str(), 0700);
  SupervisorOptions o;
  o.worker_binary = dir.File("worker");
  o.log_path = dir.File("worker.log");
  o.max_failed_starts = 3;
  Supervisor sup(o);
  EXPECT_FALSE(sup.Hello().ok());
  std::vector<PathResult> results = sup.Run(Mm(), {"grid16", 1}, {"eager", "reference"});
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) EXPECT_EQ(r.unsupported, UnsupportedReason::kWorkerFault);
  EXPECT_TRUE(sup.Broken());
  EXPECT_EQ(sup.Failure().find("the worker cannot work (3 worker starts in a row"), 0u)
      << sup.Failure();
  EXPECT_NE(sup.Failure().find("exited with code 7"), std::string::npos) << sup.Failure();
  EXPECT_NE(sup.Failure().find("no torch on this node"), std::string::npos) << sup.Failure();
  const int starts = sup.restarts();
  results = sup.Run(Mm(), {"grid16", 1}, {"eager"});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].unsupported, UnsupportedReason::kWorkerFault);
  EXPECT_EQ(sup.restarts(), starts) << "a broken supervisor started another worker";
}

}  // namespace
}  // namespace mmdiff
