// Autocast regions end to end on the real worker: eager (at::autocast from C++), the torch.compile
// paths and aoti (`with torch.autocast` in the emitted function) give the dtypes the reference
// derives from torch's autocast lists, values within the bounds of the precision each op ran in;
// the paths that cannot run a region say why; a planted path that ignores the region is caught.
#include <gtest/gtest.h>

#include <fstream>

#include "src/ir/program_json.h"
#include "src/ir/verifier.h"
#include "src/report/run_case.h"
#include "src/support/files.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

// A bfloat16 cpu region around mm(float32, float16), softmax (not on the CPU list: stays
// bfloat16), an explicit cast to float32 and a linear (bfloat16 again); inside it, a region that
// switches autocast off around a float32 matmul.
Program AutocastProgram() {
  Program p;
  p.inputs = {{"a", {4, 8}, DType::kFloat32},
              {"b", {8, 5}, DType::kFloat16},
              {"w", {5, 3}, DType::kFloat32},
              {"k", {6, 5}, DType::kFloat32}};
  p.inputs[0].requires_grad = true;
  Node mm{"v0", OpKind::kMm, {"a", "b"}};
  Node softmax{"v1", OpKind::kSoftmax, {"v0"}};
  softmax.ints = {-1};
  Node cast{"v2", OpKind::kCast, {"v1"}, DType::kFloat32};
  Node matmul{"v3", OpKind::kMatmul, {"v2", "w"}};
  Node linear{"v4", OpKind::kLinear, {"v2", "k"}};
  p.nodes = {mm, softmax, cast, matmul, linear};
  for (auto& n : p.nodes) n.autocast = 0;
  p.nodes[3].autocast = 1;
  p.autocast = {{Device::kCpu, DType::kBFloat16, true, std::nullopt},
                {Device::kCpu, DType::kBFloat16, false, 0}};
  p.outputs = {"v0", "v3", "v4"};
  return p;
}

TEST(AutocastE2E, EveryPathGivesEagersDtypesAndThePathsWithoutAutocastSayWhy) {
  std::string dir = e2e::ScratchDir("autocast");
  Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
  Program p = AutocastProgram();
  ASSERT_TRUE(Verify(p).ok()) << Verify(p).message();
  const std::vector<std::string> paths = {"reference", "eager",         "inductor",
                                          "aot_eager", "compile_eager", "inductor_dynamic"};
  for (const InputRecipe& r : {InputRecipe{"uniform", 21}, InputRecipe{"exact", 22}}) {
    CaseRun run = RunAndJudge(sup, p, r, paths);
    ASSERT_EQ(run.results.size(), paths.size());
    for (const auto& res : run.results) {
      ASSERT_TRUE(res.ok()) << res.path << ": " << res.message;
      ASSERT_EQ(res.outputs.size(), 4u) << res.path;  // v0, v3, v4, grad(a)
      EXPECT_EQ(res.outputs[0].dtype, DType::kBFloat16) << res.path;
      EXPECT_EQ(res.outputs[1].dtype, DType::kFloat32) << res.path;  // autocast off inside
      EXPECT_EQ(res.outputs[2].dtype, DType::kBFloat16) << res.path;
      EXPECT_EQ(res.outputs[3].dtype, DType::kFloat32) << res.path;  // a's own dtype
    }
    EXPECT_FALSE(run.verdict.diverges()) << VerdictToJson(run.verdict).dump(2);
  }
  for (const char* path : {"torchscript", "eager_meta"}) {
    std::vector<PathResult> res = sup.Run(p, InputRecipe{"uniform", 21}, {path});
    ASSERT_EQ(res.size(), 1u);
    EXPECT_EQ(res[0].kind, OutcomeKind::kUnsupported) << path;
    EXPECT_EQ(res[0].unsupported, UnsupportedReason::kAutocast) << path;
  }
  // aoti runs inference only: the same program without gradients, exported with its regions.
  p.inputs[0].requires_grad = false;
  CaseRun run = RunAndJudge(sup, p, InputRecipe{"uniform", 21}, {"reference", "eager", "aoti"});
  const PathResult* aoti = FindResult(run.results, "aoti");
  ASSERT_TRUE(aoti && aoti->ok()) << (aoti ? aoti->message : "no aoti result");
  EXPECT_EQ(aoti->outputs[0].dtype, DType::kBFloat16);
  EXPECT_EQ(aoti->outputs[1].dtype, DType::kFloat32);
  EXPECT_FALSE(run.verdict.diverges()) << VerdictToJson(run.verdict).dump(2);
}

TEST(AutocastE2E, APlantedPathThatIgnoresTheRegionIsCaughtBlamedAndHeadlinedUnderAutocast) {
  std::string dir = e2e::ScratchDir("autocast-planted");
  Program p = e2e::LegalMm();
  p.autocast = {{Device::kCpu, DType::kFloat16, true, std::nullopt}};
  for (auto& n : p.nodes) n.autocast = 0;
  std::ofstream(dir + "/program.json") << ProgramToJson(p).dump();
  auto r = e2e::RunMmdiff("run " + dir +
                          "/program.json --test-paths --paths reference,eager,"
                          "planted_ignore_autocast");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("dtype [blamed: planted_ignore_autocast"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("under autocast(cpu, float16)"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mmdiff
