// Tests for reports: a complete report for a planted-style divergence, stable buckets, repro
// choice.
#include "src/report/report.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "oracles/case_run_test_cases.h"
#include "oracles/root_cause.h"
#include "src/ir/program_json.h"
#include "src/report/bucket.h"
#include "src/support/files.h"

namespace mmdiff {
namespace {

using case_test::Seed;
using case_test::SeedResults;

TEST(Report, SeedBugReportIsCompleteAndReproTargetsInductor) {
  CaseRun c = JudgeCase(Seed(), {"grid16", 7}, SeedResults());
  ASSERT_TRUE(c.verdict.diverges());
  RunContext ctx{{{"mmdiff", "0.1.0"}, {"torch", "2.11.0"}, {"python", "3.11"}},
                 {{"TORCHINDUCTOR_COMPILE_THREADS", "1"}}};
  nlohmann::json j = MakeReport(c, ctx);
  for (const char* key : {"format", "version", "id", "headline", "bucket", "versions", "knobs",
                          "program", "inputs", "contract", "paths", "verdict", "repro"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["verdict"]["result"], "diverge");
  EXPECT_EQ(j["verdict"]["divergences"][0]["blamed"], "inductor");
  EXPECT_EQ(j["contract"]["rule"], "same_dtype");
  EXPECT_TRUE(ProgramFromJson(j["program"]).ok());
  std::string repro = MakeRepro(c, ctx);
  EXPECT_NE(repro.find("backend=\"inductor\""), std::string::npos);
  EXPECT_NE(repro.find("same_dtype"), std::string::npos);
}

TEST(Report, TheReRunRecordsAreWrittenWhereTriedAndTheAblationIsTheReprosTable) {
  RunContext ctx{{{"mmdiff", "0.1.0"}, {"torch", "2.15.0"}, {"python", "3.11"}}, {}};
  CaseRun c = JudgeCase(Seed(), {"grid16", 7}, SeedResults());
  nlohmann::json none = MakeReport(c, ctx);
  EXPECT_FALSE(none.contains("ablation"));
  EXPECT_FALSE(none.contains("mitigations"));
  c.ablation = Ablation{{{"eager", "eager", "error: RuntimeError: x", true, ""},
                         {"inductor", "torch.compile(backend=\"inductor\")", "ok (float32)", false,
                          "inductor returns"}},
                        "inductor"};
  c.mitigations = std::vector<Mitigation>{};  // tried, no knob available
  nlohmann::json j = MakeReport(c, ctx);
  ASSERT_TRUE(j.contains("ablation"));
  EXPECT_EQ(j["ablation"]["first_divergent"], "inductor");
  EXPECT_EQ(j["ablation"]["stages"][1]["agrees_with_eager"], false);
  EXPECT_EQ(j["mitigations"], nlohmann::json::array());
  std::string repro = MakeRepro(c, ctx);
  EXPECT_NE(repro.find("the first stage that disagrees with eager: inductor"), std::string::npos)
      << repro;
  EXPECT_NE(repro.find("| torch.compile(backend=\"inductor\") | ok (float32) | no |"),
            std::string::npos)
      << repro;
}

// An aoti error names its step: raised while exporting, compiling or loading, the reproducer's own
// compile error is the finding; raised by the loaded package, a compile error in the script means
// it does not rebuild mmdiff's run; with no step (an older report) the script cannot tell.
TEST(Report, AnAotiErrorsStepDecidesWhatItsReproMakesOfACompileError) {
  RunContext ctx{{{"mmdiff", "0.1.0"}, {"torch", "2.15.0"}, {"python", "3.11"}}, {}};
  auto repro_for = [&](const std::string& stage) {
    std::vector<PathResult> results = SeedResults();
    results.pop_back();  // inductor
    PathResult aoti{"aoti", OutcomeKind::kError};
    aoti.error_class = "TypeError";
    aoti.stage = stage;
    results.push_back(aoti);
    CaseRun c = JudgeCase(Seed(), {"grid16", 7}, results);
    EXPECT_TRUE(c.verdict.diverges());
    return MakeRepro(c, ctx);
  };
  const std::string finding = "AOTInductor could not compile f, as in mmdiff's run (the finding)";
  const std::string rebuilt = "AOTInductor could not compile f here, which mmdiff's path compiled";
  const std::string unknown = "AOTInductor could not compile f, and eager raised";
  for (const char* stage : {"export", "aoti-compile", "aoti-load"}) {
    std::string r = repro_for(stage);
    EXPECT_NE(r.find(finding), std::string::npos) << stage;
    EXPECT_EQ(r.find(rebuilt), std::string::npos) << stage;
  }
  std::string run = repro_for("aoti-run");
  EXPECT_NE(run.find(rebuilt), std::string::npos);
  EXPECT_EQ(run.find(finding), std::string::npos);
  std::string old = repro_for("");
  EXPECT_NE(old.find(unknown), std::string::npos);
  EXPECT_EQ(old.find(finding), std::string::npos);
}

TEST(Report, ARejectionSiteNamesTheRuleOpOperandDtypesAndDevices) {
  CaseRun c = JudgeCase(Seed(), {"grid16", 1}, SeedResults());
  std::string site = RejectionSite(c.program, c.contract);
  EXPECT_EQ(site, "rule=same_dtype|op=matmul(batched)|operands=float16,float32|devices=cpu,cpu");
  EXPECT_EQ(RejectionSite(c.program, c.contract, /*ignore_dtypes=*/true),
            "rule=same_dtype|op=matmul(batched)|operands=*|devices=cpu,cpu");
  Program accepted = Seed();
  accepted.inputs[0].dtype = DType::kFloat32;
  CaseRun a = JudgeCase(accepted, {"grid16", 1}, SeedResults());
  EXPECT_EQ(RejectionSite(a.program, a.contract), "");
}

TEST(Report, MetaAndWrongDeviceViolationsAreBucketedByDevicesInOperandOrder) {
  // A meta operand or a wrong-device operand is one behaviour whatever the dtypes, but which
  // operand is on which device takes different code paths.
  auto signature = [](DType a, Device da, Device db) {
    Program p = Seed();
    p.inputs[0].dtype = a;
    p.inputs[0].device = da;
    p.inputs[1].device = db;
    CaseRun c = JudgeCase(p, {"grid16", 1}, SeedResults());
    return CaseFinding(c).signature;
  };
  EXPECT_EQ(signature(DType::kFloat16, Device::kMeta, Device::kMeta),
            signature(DType::kBFloat16, Device::kMeta, Device::kMeta));
  EXPECT_EQ(signature(DType::kFloat16, Device::kCpu, Device::kMeta),
            signature(DType::kInt8, Device::kCpu, Device::kMeta));
  EXPECT_NE(signature(DType::kFloat16, Device::kCpu, Device::kMeta),
            signature(DType::kFloat16, Device::kMeta, Device::kCpu));
}

TEST(Report, WriteFindingWritesAllThreeFiles) {
  auto dir =
      std::filesystem::temp_directory_path() / ("mmdiff_report_test_" + std::to_string(getpid()));
  CaseRun c = JudgeCase(Seed(), {"grid16", 7}, SeedResults());
  ASSERT_TRUE(WriteFinding(dir.string(), c, RunContext{}).ok());
  for (const char* f : {"report.json", "program.json", "repro.py"})
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  auto text = ReadFile((dir / "report.json").string());
  ASSERT_TRUE(text.ok());
  EXPECT_FALSE(nlohmann::json::parse(text.value(), nullptr, false).is_discarded());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mmdiff
