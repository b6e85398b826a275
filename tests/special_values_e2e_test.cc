// Special values judged per element, end to end on the real worker: a float32 addmm whose b holds
// one infinity in its first column (issue 17's example). The columns the infinity never meets are
// judged like any finite result, so a path that writes NaN there is caught and blamed.
#include <gtest/gtest.h>

#include <cmath>

#include "src/exec/supervisor.h"
#include "src/ir/input_recipe.h"
#include "src/report/report.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

constexpr int64_t kRows = 4, kInner = 3, kCols = 5;

Program AddmmProgram() {
  Program p;
  p.inputs = {{"x0", {kRows, kCols}, DType::kFloat32},
              {"x1", {kRows, kInner}, DType::kFloat32},
              {"x2", {kInner, kCols}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kAddmm, {"x0", "x1", "x2"}}};
  p.outputs = {"v0"};
  return p;
}

// The first recipe (exact values with special values at 10 %) whose b holds exactly one special
// value, an infinity in column 0, and whose other values are all moderate finite numbers.
InputRecipe OneInfinityInColumnZero(const Program& p) {
  for (uint64_t seed = 0; seed < 100000; ++seed) {
    InputRecipe r{"exact", seed};
    r.special = 0.1;
    int infinities = 0;
    bool ok = true;
    for (size_t i = 0; i < p.inputs.size() && ok; ++i) {
      int64_t n = p.inputs[i].shape[0] * p.inputs[i].shape[1];
      std::vector<double> v = RecipeValues(r, i, n, DType::kFloat32);
      for (int64_t e = 0; e < n && ok; ++e) {
        if (i == 2 && std::isinf(v[e]) && e % kCols == 0) {
          ++infinities;
        } else {
          ok = std::isfinite(v[e]) && std::fabs(v[e]) < 1e6;
        }
      }
    }
    if (ok && infinities == 1) return r;
  }
  return InputRecipe{};
}

TEST(SpecialValuesE2E, ANaNInAColumnTheInfinityNeverMeetsIsBlamedOnThePathThatWroteIt) {
  Program p = AddmmProgram();
  InputRecipe r = OneInfinityInColumnZero(p);
  ASSERT_EQ(r.kind, "exact") << "no recipe seed below 100000 gives the example";
  SupervisorOptions o;
  o.worker_binary = e2e::WorkerBinary();
  o.worker_args = {"--test-paths"};
  o.log_path = e2e::ScratchDir("special-values") + "/worker.log";
  Supervisor sup(o);
  ASSERT_TRUE(sup.Hello().ok());
  CaseRun run = JudgeCase(p, r, sup.Run(p, r, {"reference", "eager", "planted_spread_nan"}));

  // The reference: column 0 is exactly an infinity, the other columns judged finite values.
  const PathResult* ref = FindResult(run.results, "reference");
  ASSERT_TRUE(ref && ref->ok());
  const TensorValue& t = ref->outputs[0];
  for (int64_t e = 0; e < kRows * kCols; ++e) {
    if (e % kCols == 0) {
      EXPECT_TRUE(std::isinf(t.data[e])) << e;
      EXPECT_EQ(t.bound[e], 0) << e;
    } else {
      EXPECT_TRUE(std::isfinite(t.data[e])) << e;
      EXPECT_TRUE(std::isfinite(t.bound[e])) << e;
    }
  }
  // Eager agrees; the planted path's NaN in column 1 is a value divergence blamed on it alone.
  ASSERT_FALSE(run.verdict.divergences.empty());
  for (const auto& d : run.verdict.divergences) {
    EXPECT_EQ(d.kind, DivergenceKind::kValue) << d.detail;
    EXPECT_EQ(d.blamed, "planted_spread_nan") << d.detail;
    EXPECT_EQ(d.element % kCols, 1) << d.detail;
    EXPECT_TRUE(std::isnan(d.got)) << d.detail;
  }
}

}  // namespace
}  // namespace mmdiff
