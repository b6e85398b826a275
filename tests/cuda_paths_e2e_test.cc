// The paths on cuda, where a GPU exists: reference (its CUDA kernels), eager and inductor on cuda
// mm, bmm and matmul, and the cross-device programs of issue 7 (a cpu bias into a cuda addmm; a
// cuda operand meeting a cpu one in bmm). Without a GPU every test here skips and says why; on a
// machine without one, cuda programs are counted instead (CliE2E.CudaProgramsWithoutAGpu...).
#include <gtest/gtest.h>

#include <filesystem>

#include "src/exec/supervisor.h"
#include "src/report/report.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

bool Gpu() {
  return std::filesystem::exists("/dev/nvidia0") || std::filesystem::exists("/dev/nvidiactl");
}

#define SKIP_WITHOUT_GPU() \
  if (!Gpu()) GTEST_SKIP() << "no GPU here (no /dev/nvidia0): the cuda paths are not exercised"

Program OnCuda(Program p) {
  for (auto& in : p.inputs) in.device = Device::kCuda;
  return p;
}

TEST(CudaPathsE2E, CudaMmBmmAndMatmulAgreeOnReferenceEagerAndInductor) {
  SKIP_WITHOUT_GPU();
  std::string dir = e2e::ScratchDir("cuda-paths");
  Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
  ASSERT_TRUE(sup.Hello().ok());
  Program mm = OnCuda(e2e::LegalMm());
  Program bmm;
  bmm.inputs = {{"a", {2, 5, 17}, DType::kFloat32, Device::kCuda},
                {"b", {2, 17, 3}, DType::kFloat32, Device::kCuda}};
  bmm.nodes = {{"v0", OpKind::kBmm, {"a", "b"}}};
  bmm.outputs = {"v0"};
  Program matmul = bmm;
  matmul.nodes[0].op = OpKind::kMatmul;
  for (const Program& p : {mm, bmm, matmul}) {
    InputRecipe r{"grid16", 3};  // exact sums
    std::vector<PathResult> res = sup.Run(p, r, {"reference", "eager", "inductor"});
    ASSERT_EQ(res.size(), 3u);
    for (const auto& x : res) {
      ASSERT_EQ(x.kind, OutcomeKind::kOk) << x.path << ": " << x.error_class << ": " << x.message;
      ASSERT_EQ(x.outputs.size(), 1u) << x.path;
      EXPECT_EQ(x.outputs[0].device, Device::kCuda) << x.path;
      EXPECT_EQ(x.outputs[0].dtype, DType::kFloat32) << x.path;
    }
    CaseRun c = JudgeCase(p, r, res);
    EXPECT_FALSE(c.verdict.diverges()) << Headline(c);
  }
  EXPECT_EQ(sup.restarts(), 0);
}

TEST(CudaPathsE2E, CrossDeviceAddmmAndBmmAreJudgedNotCrashed) {
  SKIP_WITHOUT_GPU();
  std::string dir = e2e::ScratchDir("cuda-cross");
  Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
  ASSERT_TRUE(sup.Hello().ok());
  Program addmm;  // cpu bias, cuda matrices
  addmm.inputs = {{"bias", {3}, DType::kFloat32, Device::kCpu},
                  {"a", {5, 17}, DType::kFloat32, Device::kCuda},
                  {"b", {17, 3}, DType::kFloat32, Device::kCuda}};
  addmm.nodes = {{"v0", OpKind::kAddmm, {"bias", "a", "b"}}};
  addmm.outputs = {"v0"};
  Program bmm;  // a cuda operand meets a cpu one
  bmm.inputs = {{"a", {2, 5, 17}, DType::kFloat32, Device::kCuda},
                {"b", {2, 17, 3}, DType::kFloat32, Device::kCpu}};
  bmm.nodes = {{"v0", OpKind::kBmm, {"a", "b"}}};
  bmm.outputs = {"v0"};
  for (const Program& p : {addmm, bmm}) {
    InputRecipe r{"grid16", 3};
    std::vector<PathResult> res = sup.Run(p, r, {"reference", "eager", "inductor"});
    ASSERT_EQ(res.size(), 3u);
    CaseRun c = JudgeCase(p, r, res);
    ASSERT_TRUE(c.contract.rejects);
    EXPECT_EQ(c.contract.violation.rule, "same_device");
    EXPECT_EQ(res[0].kind, OutcomeKind::kError) << "the reference follows the contract";
    for (const auto& x : res)  // each path answered: a value or an error, never a crash or a hang
      EXPECT_TRUE(x.kind == OutcomeKind::kOk || x.kind == OutcomeKind::kError)
          << x.path << ": " << OutcomeName(x.kind) << " " << x.message;
    // Whatever torch does, the case is judged: a divergence has a bucket and a headline.
    if (c.verdict.diverges()) {
      EXPECT_FALSE(Headline(c).empty());
    }
  }
  EXPECT_EQ(sup.restarts(), 0);
}

}  // namespace
}  // namespace mmdiff
