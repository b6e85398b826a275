// Tests for running a case in another release, with a stand-in for the venv's python: a shell
// script that writes what a runner would (or dies), so that every way a runner ends is covered
// without torch.
#include "src/releases/release_run.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "src/ir/paths.h"
#include "src/support/files.h"

namespace mmdiff {
namespace {

Program Mm() {
  Program p;
  p.inputs = {{"a", {2, 2}, DType::kFloat32}, {"b", {2, 2}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  return p;
}

const char* kHeader = R"({"torch": "2.11.0+fake", "python": "3.11.2"})";
const char* kEagerOk =
    R"({"path": "eager", "outcome": "ok", "outputs": [{"dtype": "float32", "shape": [], )"
    R"("device": "cpu", "data": "000000000000f03f"}]})";

class ReleaseRunTest : public ::testing::Test {
 protected:
  // A runner stand-in: `body` runs in sh with $2 the output file.
  std::vector<PathResult> Run(const std::string& body, const std::vector<std::string>& paths,
                              std::string* failure, double timeout_s = 60) {
    const std::string python = tmp_.File("python");
    std::ofstream(python) << "#!/bin/sh\nout=\"$2\"\n" << body << "\n";
    chmod(python.c_str(), 0700);
    ReleaseRunSettings s;
    s.work_dir = tmp_.path();
    s.timeout_s = timeout_s;
    s.paths = {{"eager", true, "", {}}, {"inductor", true, "", PathTraits{true}}};
    ReleaseRunner runner(
        {"2.11.0", python}, s,
        [](const Program&, const InputRecipe&, const std::string& path) {
          PathResult r{path, OutcomeKind::kOk};
          return r;
        },
        "t");
    auto results = runner(Mm(), {"exact", 1}, paths);
    *failure = runner.failure();
    torch_ = runner.torch();
    return results;
  }
  PrivateTempDir tmp_{"mmdiff-release-run-test"};
  std::string torch_;
};

TEST_F(ReleaseRunTest, ResultsComeBackInPathOrderWithTheReferenceAndTraits) {
  std::string failure;
  auto r = Run(
      std::string("printf '%s\\n' '") + kHeader + "' '" + kEagerOk +
          R"(' '{"path": "inductor", "outcome": "error", "error_class": "RuntimeError", "message": "m"}' > "$out")",
      {"reference", "eager", "inductor"}, &failure);
  ASSERT_EQ(failure, "");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].path, "reference");
  EXPECT_EQ(r[1].kind, OutcomeKind::kOk);
  EXPECT_EQ(r[2].kind, OutcomeKind::kError);
  EXPECT_TRUE(r[2].traits.compiled);
  EXPECT_EQ(torch_, "2.11.0+fake");
}

TEST_F(ReleaseRunTest, APathTheRunnerDiesInIsACrashAndOneItHangsInATimeout) {
  std::string failure;
  auto crash =
      Run(std::string("printf '%s\\n' '") + kHeader + "' '" + kEagerOk + "' > \"$out\"; kill -9 $$",
          {"eager", "inductor"}, &failure);
  EXPECT_EQ(failure, "");
  EXPECT_EQ(crash[1].kind, OutcomeKind::kCrash);
  EXPECT_EQ(crash[1].signal, 9);
  auto hang = Run(std::string("printf '%s\\n' '") + kHeader + "' > \"$out\"; sleep 600",
                  {"eager", "inductor"}, &failure, 0.5);
  EXPECT_EQ(failure, "");
  EXPECT_EQ(hang[0].kind, OutcomeKind::kTimeout);
  EXPECT_EQ(hang[1].kind, OutcomeKind::kUnsupported);
}

TEST_F(ReleaseRunTest, WhatSaysNothingAboutTheFindingIsAFailureNotAResult) {
  std::string failure;
  Run("echo 'REPRODUCER FAILED: no GPU'; exit 3", {"eager"}, &failure);
  EXPECT_NE(failure.find("inputs cannot be built in torch 2.11.0: REPRODUCER FAILED: no GPU"),
            std::string::npos)
      << failure;
  Run("echo 'Segmentation fault in import torch'; kill -9 $$", {"eager"}, &failure);
  EXPECT_NE(failure.find("died of signal 9 in torch 2.11.0 before it ran a path"),
            std::string::npos)
      << failure;
  Run("echo 'Traceback: NameError'; exit 1", {"eager"}, &failure);
  EXPECT_NE(failure.find("(exit 1): Traceback: NameError"), std::string::npos) << failure;
  Run(std::string("printf '%s\\n' '") + kHeader +
          R"(' '{"path": "eager", "outcome": "unsupported", "message": "no torch.compile"}' > "$out")",
      {"eager"}, &failure);
  EXPECT_NE(failure.find("eager cannot run in torch 2.11.0+fake: no torch.compile"),
            std::string::npos)
      << failure;
  Run(std::string("printf '%s\\n' '") + kHeader + "' 'garbage' > \"$out\"", {"eager"}, &failure);
  EXPECT_NE(failure.find("unreadable"), std::string::npos) << failure;
}

TEST(ReleaseRun, PathsAProgramCannotUseSaySoWithoutARunner) {
  Program p = Mm();
  EXPECT_FALSE(NotRunnableInRelease(p, "eager", false).has_value());
  auto planted = NotRunnableInRelease(p, "planted_promote", false);
  ASSERT_TRUE(planted.has_value());
  EXPECT_EQ(planted->unsupported, UnsupportedReason::kUnavailable);
  // The paths it names are the catalogue's release-runner rows.
  EXPECT_NE(planted->message.find("(eager, eager_meta, inductor, aot_eager, compile_eager, "
                                  "torchscript, aoti, inductor_emulate_precision_casts, "),
            std::string::npos)
      << planted->message;
  EXPECT_NE(planted->message.find(", inductor_max_autotune, "), std::string::npos)
      << planted->message;
  Program cuda = p;
  cuda.inputs[0].device = Device::kCuda;
  EXPECT_EQ(NotRunnableInRelease(cuda, "inductor", false)->unsupported, UnsupportedReason::kNoGpu);
  EXPECT_FALSE(NotRunnableInRelease(cuda, "inductor", true).has_value());
  EXPECT_EQ(NotRunnableInRelease(cuda, "eager_meta", true)->unsupported,
            UnsupportedReason::kDevice);
  Program trains = p;
  trains.inputs[0].requires_grad = true;
  EXPECT_EQ(NotRunnableInRelease(trains, "aoti", false)->unsupported, UnsupportedReason::kTraining);
  // Each limit comes from the path's catalogue row, with its reason.
  Program on_meta = p;
  on_meta.inputs[0].device = Device::kMeta;
  auto aoti = NotRunnableInRelease(on_meta, "aoti", false);
  ASSERT_TRUE(aoti.has_value());
  EXPECT_EQ(aoti->unsupported, UnsupportedReason::kDevice);
  EXPECT_EQ(aoti->message, FindPath("aoti")->limits.no_meta);
  EXPECT_FALSE(NotRunnableInRelease(on_meta, "inductor", false).has_value());
  Program autocast = p;
  autocast.autocast = {{Device::kCpu, DType::kBFloat16, true}};
  autocast.nodes[0].autocast = 0;
  for (const char* path : {"torchscript", "eager_meta"}) {
    auto r = NotRunnableInRelease(autocast, path, false);
    ASSERT_TRUE(r.has_value()) << path;
    EXPECT_EQ(r->unsupported, UnsupportedReason::kAutocast) << path;
    EXPECT_EQ(r->message, FindPath(path)->limits.no_autocast);
  }
  EXPECT_FALSE(NotRunnableInRelease(autocast, "inductor", false).has_value());
}

}  // namespace
}  // namespace mmdiff
