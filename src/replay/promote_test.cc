// Tests for promote (report -> regression entry) and the report format checks it relies on.
#include "src/replay/promote.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "src/report/known.h"
#include "src/report/regression_entry.h"
#include "src/report/report.h"

namespace mmdiff {
namespace {

// A report of a legal float32 mm where eager raises and the reference returns.
nlohmann::json Report() {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat32}, {"b", {3, 2}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  PathResult ref{"reference", OutcomeKind::kOk};
  ref.outputs = {{DType::kFloat32, {2, 2}, Device::kCpu, {1, 2, 3, 4}, {0, 0, 0, 0}}};
  PathResult eager{"eager", OutcomeKind::kError, "RuntimeError", "c10::Error", "boom"};
  PathResult inductor = ref;
  inductor.path = "inductor";
  CaseRun c = JudgeCase(p, {"exact", 7}, {ref, eager, inductor});
  RunContext ctx{{{"mmdiff", "0.1.0"}, {"torch", "2.15.0+cu132"}, {"python", "3.11.2"}}, {}};
  return MakeReport(c, ctx);
}

TEST(Promote, ExpectsTheReportsVerdictOnItsTorchVersionOnly) {
  nlohmann::json report = Report();
  ASSERT_EQ(report["verdict"]["result"], "diverge") << report.dump(2);
  auto entry = PromoteReport(report.dump(), {"findings/x/report.json", "", "", ""});
  ASSERT_TRUE(entry.ok()) << entry.error();
  const nlohmann::json& e = entry.value();
  EXPECT_EQ(e["paths"], nlohmann::json({"reference", "eager", "inductor"}));
  EXPECT_EQ(e["inputs"], report["inputs"]);
  EXPECT_EQ(e["program"], report["program"]);
  EXPECT_EQ(e["title"], report["headline"]);
  EXPECT_EQ(e["promoted_from"]["report"], "findings/x/report.json");
  ASSERT_EQ(e["expected"].size(), 1u);
  EXPECT_EQ(e["expected"][0]["torch"], "==2.15.0");
  EXPECT_EQ(e["expected"][0]["verdict"], "diverge");
  ASSERT_EQ(e["expected"][0]["divergences"].size(), report["verdict"]["divergences"].size());
  EXPECT_EQ(e["expected"][0]["divergences"][0]["kind"],
            report["verdict"]["divergences"][0]["kind"]);
  EXPECT_EQ(e["expected"][0]["divergences"][0]["blamed"],
            report["verdict"]["divergences"][0]["blamed"]);

  auto parsed = ParseRegressionEntry(e.dump());
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_TRUE(ExpectationFor(parsed.value(), "2.15.0+cu132").has_value());
  EXPECT_FALSE(ExpectationFor(parsed.value(), "2.15.1").has_value());
  EXPECT_FALSE(ExpectationFor(parsed.value(), "2.14.1").has_value());
}

// A finding of an attention fusion's values (pytorch#174049 on torch 2.11.0: the scale dropped):
// the entry says which fusions, reads back, and the catalogue signs it as the report's bucket, not
// as the rounding of the op the fusion replaced.
TEST(Promote, AFusedAttentionsFindingKeepsItsFusionsInTheEntryAndTheCatalogue) {
  Program p;
  p.inputs = {{"q", {1, 2, 3}, DType::kFloat32}, {"k", {1, 3, 2}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kBmm, {"q", "k"}}};
  p.outputs = {"v0"};
  PathResult ref{"reference", OutcomeKind::kOk};
  ref.outputs = {{DType::kFloat32, {1, 2, 2}, Device::kCpu, {-1, -1, -1, -1}, {0, 0, 0, 0}}};
  PathResult eager = ref, inductor = ref;
  eager.path = "eager";
  eager.outputs[0].bound.clear();
  inductor.path = "inductor";
  inductor.outputs[0].bound.clear();
  inductor.outputs[0].data[0] = -11;
  inductor.traits.compiled = true;
  inductor.compile.present = true;  // as a worker reports it, and a report keeps it
  inductor.compile.internals = {"rewrite:_sfdp_pattern_5_inference"};
  RunContext ctx{{{"mmdiff", "0.1.0"}, {"torch", "2.11.0+cpu"}, {"python", "3.11.2"}}, {}};
  nlohmann::json report = MakeReport(JudgeCase(p, {"exact", 7}, {ref, eager, inductor}), ctx);
  const std::string bucket = report["bucket"]["signature"];
  ASSERT_NE(bucket.find("|fused=_sfdp_pattern_5|"), std::string::npos) << bucket;
  auto entry = PromoteReport(report.dump(), {"findings/x/report.json", "", "", ""});
  ASSERT_TRUE(entry.ok()) << entry.error();
  EXPECT_EQ(entry.value()["expected"][0]["divergences"][0]["fused"], "_sfdp_pattern_5");
  auto parsed = ParseRegressionEntry(entry.value().dump());
  ASSERT_TRUE(parsed.ok()) << parsed.error() << entry.value()["expected"].dump();
  EXPECT_EQ(parsed.value().expected[0].divergences[0].fused, "_sfdp_pattern_5");
  std::string dir = ::testing::TempDir() + "/promote-fused";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/entry.json") << entry.value().dump();
  auto cat = LoadKnownCatalogue({dir}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_NE(cat.value().Find(bucket), nullptr);
  // Anything but attention fusion patterns is refused.
  nlohmann::json bad = entry.value();
  bad["expected"][0]["divergences"][0]["fused"] = "_sfdp_pattern_5,../x";
  auto refused = ParseRegressionEntry(bad.dump());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("\"fused\""), std::string::npos) << refused.error();
  // A result type: the signature folds the patterns, the entry still names the fusion it ran.
  inductor.outputs[0].dtype = DType::kFloat16;
  nlohmann::json typed = MakeReport(JudgeCase(p, {"exact", 7}, {ref, eager, inductor}), ctx);
  const std::string typed_bucket = typed["bucket"]["signature"];
  ASSERT_EQ(typed_bucket, "dtype|path=inductor|returns|fused|op=bmm|devices=cpu,cpu");
  auto typed_entry = PromoteReport(typed.dump(), {"findings/y/report.json", "", "", ""});
  ASSERT_TRUE(typed_entry.ok()) << typed_entry.error();
  EXPECT_EQ(typed_entry.value()["expected"][0]["divergences"][0]["fused"], "_sfdp_pattern_5");
  std::ofstream(dir + "/entry.json") << typed_entry.value().dump();
  cat = LoadKnownCatalogue({dir}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_NE(cat.value().Find(typed_bucket), nullptr);
}

TEST(Promote, OptionsSetTitleNoteAndRange) {
  auto entry = PromoteReport(Report().dump(), {"r.json", "my title", "my note", ">=2.11.0"});
  ASSERT_TRUE(entry.ok()) << entry.error();
  EXPECT_EQ(entry.value()["title"], "my title");
  EXPECT_EQ(entry.value()["expected"][0]["note"], "my note");
  EXPECT_EQ(entry.value()["expected"][0]["torch"], ">=2.11.0");
  auto bad = PromoteReport(Report().dump(), {"r.json", "", "", "~2.15"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("--torch"), std::string::npos) << bad.error();
  auto elsewhere = PromoteReport(Report().dump(), {"r.json", "", "", ">=2.16"});
  ASSERT_FALSE(elsewhere.ok());
  EXPECT_EQ(elsewhere.error(),
            "--torch: \">=2.16\" does not contain the report's torch 2.15.0+cu132");
}

TEST(Promote, RejectsWhatIsNotAReportOfAKnownVersion) {
  nlohmann::json r = Report();
  r["version"] = 4;
  auto v4 = PromoteReport(r.dump(), {});
  ASSERT_FALSE(v4.ok());
  EXPECT_EQ(v4.error(),
            "report format version 4 is not supported (this mmdiff reads versions 1 to 3)");
  r = Report();
  r["format"] = "mmdiff.program";
  EXPECT_NE(PromoteReport(r.dump(), {}).error().find("not an mmdiff report"), std::string::npos);
  EXPECT_EQ(PromoteReport("{\"format\": \"mmdiff.rep", {}).error(), "malformed JSON");
  r = Report();
  r["versions"].erase("torch");
  EXPECT_NE(PromoteReport(r.dump(), {}).error().find("torch version"), std::string::npos);
  r = Report();
  r["program"]["nodes"][0]["args"] = {"a", "ghost"};
  EXPECT_NE(PromoteReport(r.dump(), {}).error().find("program"), std::string::npos);
}

TEST(Promote, FileNameNamesTheBlamedPathKindAndId) {
  auto entry = PromoteReport(Report().dump(), {});
  ASSERT_TRUE(entry.ok()) << entry.error();
  const auto& d = entry.value()["expected"][0]["divergences"][0];
  std::string blamed = d["blamed"].get<std::string>();
  EXPECT_EQ(PromotedFileName(entry.value()), (blamed.empty() ? "unblamed" : blamed) + "-" +
                                                 d["kind"].get<std::string>() + "-" +
                                                 Report()["id"].get<std::string>() + ".json");
}

TEST(Promote, FieldsThatNameTheFileMustBeNamesNotPaths) {
  // The file name is made of the first divergence's blamed path and kind and the report's id: a
  // hostile report must not steer it out of corpus/regression/.
  auto error_for = [](const char* pointer, const char* value) {
    nlohmann::json r = Report();
    r[nlohmann::json::json_pointer(pointer)] = value;
    auto entry = PromoteReport(r.dump(), {});
    return entry.ok() ? "accepted as " + PromotedFileName(entry.value()) : entry.error();
  };
  EXPECT_EQ(
      error_for("/verdict/divergences/0/blamed", "/etc/cron.d/x"),
      "report: a divergence blames \"/etc/cron.d/x\", which is not one of the report's paths");
  EXPECT_EQ(error_for("/verdict/divergences/0/blamed", "torchscript"),
            "report: a divergence blames \"torchscript\", which is not one of the report's paths");
  EXPECT_EQ(error_for("/verdict/divergences/0/kind", "../../x"),
            "report: unknown divergence kind \"../../x\"");
  EXPECT_EQ(error_for("/id", "../../../x"),
            "report: \"id\" must be a hexadecimal hash (at most 64 digits)");
  // A report whose own path list holds a path-like name cannot blame it either.
  nlohmann::json r = Report();
  r["paths"][1]["path"] = "../eager";
  r["verdict"]["divergences"][0]["blamed"] = "../eager";
  EXPECT_FALSE(PromoteReport(r.dump(), {}).ok());
  // A hand-made entry is kept inside the folder too.
  auto entry = PromoteReport(Report().dump(), {});
  ASSERT_TRUE(entry.ok()) << entry.error();
  nlohmann::json e = entry.value();
  e["expected"][0]["divergences"][0]["blamed"] = "/abs/../x";
  e["promoted_from"]["id"] = "../../y";
  std::string name = PromotedFileName(e);
  EXPECT_EQ(name.find('/'), std::string::npos) << name;
  EXPECT_EQ(name.find(".."), std::string::npos) << name;
}

TEST(ReportFormat, CaseFilesOfUnknownFormatsOrVersionsAreRejected) {
  EXPECT_TRUE(CheckReportFormat(Report()).ok());
  EXPECT_TRUE(CheckCaseFileFormat(Report()).ok());
  EXPECT_TRUE(
      CheckCaseFileFormat(nlohmann::json{{"program", {}}, {"inputs", {}}}).ok());  // gen --case
  EXPECT_TRUE(CheckCaseFileFormat(nlohmann::json{{"format", "mmdiff.program"}}).ok());
  nlohmann::json r = Report();
  r["version"] = "1";
  EXPECT_EQ(CheckCaseFileFormat(r).message(), "report: \"version\" must be an integer");
  EXPECT_EQ(CheckCaseFileFormat(nlohmann::json{{"format", "mmdiff.regression"}, {"version", 3}})
                .message(),
            "regression entry format version 3 is not supported (this mmdiff reads versions 1 to "
            "2)");
  EXPECT_NE(CheckCaseFileFormat(nlohmann::json{{"format", "mmdiff.fuzz-summary"}, {"version", 1}})
                .message()
                .find("unknown format \"mmdiff.fuzz-summary\""),
            std::string::npos);
}

}  // namespace
}  // namespace mmdiff
