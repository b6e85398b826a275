// Tests for running a case's calls: the calls before run first, from a fresh start, on the paths
// that keep state only; the case's own run is fresh only when nothing ran before it; the judged
// case records its calls.
#include "src/report/run_case.h"

#include <gtest/gtest.h>

#include "oracles/case_run_test_cases.h"

namespace mmdiff {
namespace {

using Paths = std::vector<std::string>;

struct Call {
  Shape first_shape;
  Paths paths;
  bool fresh;
};

// Answers every path with eager's result type, and records each call.
struct RecordingRunner {
  std::vector<Call> calls;
  PathRunner Runner() {
    return [this](const Program& p, const InputRecipe&, const Paths& paths, bool fresh) {
      calls.push_back({p.inputs.at(0).shape, paths, fresh});
      std::vector<PathResult> out;
      for (const auto& path : paths) out.push_back({path, OutcomeKind::kError});
      return out;
    };
  }
};

TEST(RunCase, OnlyThePathsThatKeepStateReplayTheCallsBefore) {
  EXPECT_EQ(StatefulPaths({"reference", "eager", "eager_meta", "inductor", "aot_eager",
                           "compile_eager", "torchscript", "aoti", "inductor_dynamic"}),
            (Paths{"inductor", "aot_eager", "compile_eager", "torchscript", "inductor_dynamic"}));
}

TEST(RunCase, TheCallsBeforeRunFirstFromAFreshStartThenTheCase) {
  const Program p = case_test::Seed();
  Program smaller = p;
  smaller.inputs[0].shape[0] = 1;
  smaller.inputs[1].shape[0] = 1;
  const std::vector<PriorCall> before = {PriorCallOf(smaller, {"exact", 3}),
                                         PriorCallOf(p, {"exact", 4})};
  RecordingRunner rec;
  CaseRun c =
      RunAndJudge(rec.Runner(), p, {"grid16", 1}, {"reference", "eager", "inductor"}, before);
  ASSERT_EQ(rec.calls.size(), 3u);
  EXPECT_EQ(rec.calls[0].paths, Paths{"inductor"});
  EXPECT_EQ(rec.calls[0].first_shape, smaller.inputs[0].shape);
  EXPECT_TRUE(rec.calls[0].fresh);
  EXPECT_FALSE(rec.calls[1].fresh);
  EXPECT_EQ(rec.calls[2].paths, (Paths{"reference", "eager", "inductor"}));
  EXPECT_FALSE(rec.calls[2].fresh);  // the case reuses what the calls before compiled
  EXPECT_EQ(c.before, before);

  // Without calls before, or without a path that keeps state, the case's own run is fresh.
  for (const Paths& paths :
       {Paths{"reference", "eager", "inductor"}, Paths{"reference", "eager"}}) {
    RecordingRunner alone;
    RunAndJudge(alone.Runner(), p, {"grid16", 1}, paths,
                paths.size() == 2 ? before : std::vector<PriorCall>{});
    ASSERT_EQ(alone.calls.size(), 1u);
    EXPECT_TRUE(alone.calls[0].fresh);
  }
}

}  // namespace
}  // namespace mmdiff
