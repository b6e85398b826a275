// The CLI on real binaries: versions, generation, paths, and clear errors with documented exit
// codes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "mmdiff/build_info.h"
#include "src/ir/program_json.h"
#include "src/support/files.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

TEST(CliE2E, VersionNamesMmdiffTorchAndPython) {
  auto r = e2e::RunMmdiff("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find(std::string("mmdiff ") + build_info::kMmdiffVersion), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(std::string("torch ") + build_info::kTorchVersion), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("python 3."), std::string::npos) << r.output;
}

TEST(CliE2E, HelpListsEachSubcommandOnALineAndAnUnknownOneIsBadUsage) {
  auto help = e2e::RunMmdiff("--help");
  ASSERT_EQ(help.exit_code, 0) << help.output;
  std::istringstream lines(help.output);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    EXPECT_LE(line.size(), 100u) << line;
  }
  EXPECT_LE(count, 40) << help.output;
  for (const char* name : {"gen", "run", "fuzz", "triage", "replay", "releases", "selftest"})
    EXPECT_NE(help.output.find(std::string("\n  ") + name + " "), std::string::npos) << name;
  // Every subcommand listed explains itself with an example.
  std::istringstream listed(help.output.substr(help.output.find("Subcommands:")));
  int subcommands = 0;
  std::getline(listed, line);
  while (std::getline(listed, line) && line.rfind("  ", 0) == 0) {
    std::string name = line.substr(2, line.find(' ', 2) - 2);
    ++subcommands;
    auto own = e2e::RunMmdiff(name + " --help");
    EXPECT_EQ(own.exit_code, 0) << name;
    EXPECT_NE(own.output.find("Example: mmdiff " + name), std::string::npos) << own.output;
  }
  EXPECT_GE(subcommands, 14);
  // The detail lives in the subcommand's own help.
  auto fuzz_help = e2e::RunMmdiff("fuzz --help");
  EXPECT_EQ(fuzz_help.exit_code, 0);
  EXPECT_NE(fuzz_help.output.find("resumable after a kill"), std::string::npos) << fuzz_help.output;
  EXPECT_EQ(help.output.find("resumable after a kill"), std::string::npos);

  for (const char* args : {"nosuchcmd", "fuz --help", "--help fuz"}) {
    auto r = e2e::RunMmdiff(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    std::string given = std::string(args).find("fuz") != std::string::npos ? "fuz" : "nosuchcmd";
    EXPECT_NE(r.output.find("unknown subcommand '" + given + "'"), std::string::npos)
        << args << "\n"
        << r.output;
  }
  EXPECT_NE(e2e::RunMmdiff("fuz").output.find("closest is 'fuzz'"), std::string::npos);
}

TEST(CliE2E, GenIsDeterministicAndValid) {
  auto a = e2e::RunMmdiff("gen --seed 17"), b = e2e::RunMmdiff("gen --seed 17"),
       c = e2e::RunMmdiff("gen --seed 18");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(a.output, b.output);
  EXPECT_NE(a.output, c.output);
  EXPECT_TRUE(ParseProgramText(a.output).ok());
  auto policy = e2e::RunMmdiff("gen --dump-policy");
  EXPECT_NE(policy.output.find("p_mixed_dtype"), std::string::npos);
}

TEST(CliE2E, PathsListsTheRealPathsAndTheMissingGpu) {
  auto r = e2e::RunMmdiff("paths --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  std::set<std::string> names;
  for (const auto& p : j["paths"]) names.insert(p["name"]);
  for (const char* n : {"reference", "eager", "inductor", "aot_eager"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_FALSE(names.count("planted_promote"));  // test-only paths stay hidden unless asked for
  EXPECT_TRUE(j["devices"].contains("cuda"));
}

TEST(CliE2E, BadInputsGetClearMessagesAndExitCodes) {
  std::string dir = e2e::ScratchDir("cli-bad");
  auto missing = e2e::RunMmdiff("run " + dir + "/nope.json");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("no such file"), std::string::npos) << missing.output;

  std::ofstream(dir + "/truncated.json")
      << R"({"format": "mmdiff.program", "version": 1, "inputs": [)";
  auto truncated = e2e::RunMmdiff("run " + dir + "/truncated.json");
  EXPECT_EQ(truncated.exit_code, 2);
  EXPECT_NE(truncated.output.find("malformed JSON"), std::string::npos) << truncated.output;

  nlohmann::json bad = ProgramToJson(e2e::LegalMm());
  bad["nodes"][0]["args"][1] = "ghost";
  std::ofstream(dir + "/bad.json") << bad.dump();
  auto invalid = e2e::RunMmdiff("run " + dir + "/bad.json");
  EXPECT_EQ(invalid.exit_code, 2);
  EXPECT_NE(invalid.output.find("node \"v0\" (mm): argument \"ghost\""), std::string::npos)
      << invalid.output;

  std::ofstream(dir + "/a-file") << "x";
  auto unwritable = e2e::RunMmdiff("fuzz --time 1 --out " + dir + "/a-file/sub");
  EXPECT_EQ(unwritable.exit_code, 3) << unwritable.output;

  // --out naming a file is bad usage for every command that writes a folder, before anything runs.
  for (const std::string& command : {std::string("fuzz --time 1"), "run " + dir + "/bad.json",
                                     "triage " + dir, "reduce " + dir + "/bad.json"}) {
    auto file_out = e2e::RunMmdiff(command + " --out " + dir + "/a-file");
    EXPECT_EQ(file_out.exit_code, 2) << command << "\n" << file_out.output;
    EXPECT_NE(file_out.output.find("a-file is a file; give a folder"), std::string::npos)
        << command << "\n"
        << file_out.output;
  }

  auto unknown_path = e2e::RunMmdiff("run " + dir + "/../cli-bad/bad.json --paths eager");
  EXPECT_EQ(unknown_path.exit_code, 2);
  std::ofstream(dir + "/ok.json") << ProgramToJson(e2e::LegalMm()).dump();
  auto no_such_path = e2e::RunMmdiff("run " + dir + "/ok.json --paths eager,warp_drive");
  EXPECT_EQ(no_such_path.exit_code, 2);
  EXPECT_NE(no_such_path.output.find("unknown path \"warp_drive\""), std::string::npos)
      << no_such_path.output;

  // A report from a future mmdiff is refused, not half-read.
  auto report = ReadFile(std::string(MMDIFF_SOURCE_DIR) +
                         "/reports/examples/inductor-mm-k1-torch-2.15.0/report.json");
  ASSERT_TRUE(report.ok());
  nlohmann::json future = nlohmann::json::parse(report.value());
  future["version"] = 9;
  std::ofstream(dir + "/future.json") << future.dump();
  auto newer = e2e::RunMmdiff("run " + dir + "/future.json");
  EXPECT_EQ(newer.exit_code, 2);
  EXPECT_NE(newer.output.find("report format version 9 is not supported"), std::string::npos)
      << newer.output;
}

TEST(CliE2E, IssueWritesTheTextToFileAFindingWithItsCatalogueEntry) {
  std::string dir = e2e::ScratchDir("cli-issue");
  const std::string example =
      std::string(MMDIFF_SOURCE_DIR) + "/reports/examples/pytorch-177630-bmm-torch-2.11.0";
  auto r = e2e::RunMmdiff("issue " + example + " --out " + dir + "/issue.md");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string md = ReadFile(dir + "/issue.md").value();
  const std::string repro = ReadFile(example + "/repro.py").value();
  EXPECT_NE(md.find("```python\n" + repro + "```\n"), std::string::npos) << md;
  EXPECT_NE(md.find("mmdiff class: [filable]"), std::string::npos) << md;
  EXPECT_NE(md.find("- torch: 2.11.0+cu130"), std::string::npos) << md;
  // The report is 2.11.0's, where the catalogue's #177630 entry expects the divergence.
  EXPECT_NE(md.find("- pytorch#177630: inductor silently promotes"), std::string::npos) << md;
  auto none = e2e::RunMmdiff("issue " + example + " --no-known --out -");
  EXPECT_EQ(none.exit_code, 0) << none.output;
  EXPECT_NE(none.output.find("None in mmdiff's catalogue."), std::string::npos) << none.output;
  auto missing = e2e::RunMmdiff("issue " + dir + "/nope");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  std::ofstream(dir + "/a-file") << "x";
  auto unwritable = e2e::RunMmdiff("issue " + example + " --out " + dir + "/a-file/issue.md");
  EXPECT_EQ(unwritable.exit_code, 3) << unwritable.output;
}

TEST(CliE2E, RunOnALegalProgramAgreesAcrossRealPaths) {
  // No false alarm on a plain float32 mm through reference, eager, inductor and aot_eager.
  std::string dir = e2e::ScratchDir("cli-legal");
  std::ofstream(dir + "/mm.json") << ProgramToJson(e2e::LegalMm()).dump();
  auto r = e2e::RunMmdiff("run " + dir + "/mm.json --paths reference,eager,inductor,aot_eager");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("verdict: agree"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(CliE2E, SigtermStopsACampaignCleanlyWithItsSummary) {
  std::string dir = e2e::ScratchDir("cli-term");
  auto r = e2e::RunShell(
      std::string(MMDIFF_BUILD_DIR) +
      "/mmdiff fuzz --time 300 --jobs 1 --paths reference,eager --out " + dir +
      " & pid=$!; for i in $(seq 600); do sleep 0.1; grep -q '\"cases\": [1-9]' " + dir +
      "/summary.json 2>/dev/null && break; done; kill -TERM $pid; wait $pid; echo rc=$?");
  EXPECT_NE(r.output.find("rc=0"), std::string::npos) << r.output;
  auto s = ReadFile(dir + "/summary.json");
  ASSERT_TRUE(s.ok()) << r.output;
  auto j = nlohmann::json::parse(s.value());
  EXPECT_EQ(j["interrupted"], true);
  EXPECT_GT(j["cases"].get<int>(), 0);
  // Well before --time 300 ran out, however long a busy machine took to start the worker.
  EXPECT_LT(j["elapsed_s"].get<double>(), 200);
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(CliE2E, MutateIsDeterministicAndVerifies) {
  std::string dir = e2e::ScratchDir("cli-mutate");
  std::ofstream(dir + "/a.json") << e2e::RunMmdiff("gen --seed 3").output;
  std::ofstream(dir + "/b.json") << e2e::RunMmdiff("gen --seed 4").output;
  // stdout only: the description of the mutation goes to stderr.
  auto quiet = [](const std::string& args) {
    return e2e::RunShell("{ " + std::string(MMDIFF_BUILD_DIR) + "/mmdiff " + args +
                         " 2>/dev/null; }");
  };
  auto m1 = quiet("mutate " + dir + "/a.json --seed 5");
  auto m2 = quiet("mutate " + dir + "/a.json --seed 5");
  ASSERT_EQ(m1.exit_code, 0) << m1.output;
  EXPECT_EQ(m1.output, m2.output);
  EXPECT_TRUE(ParseProgramText(m1.output).ok()) << m1.output;
  auto x = quiet("mutate " + dir + "/a.json --cross " + dir + "/b.json");
  ASSERT_EQ(x.exit_code, 0) << x.output;
  auto crossed = ParseProgramText(x.output);
  ASSERT_TRUE(crossed.ok()) << x.output;
  auto a = ParseProgramText(ReadFile(dir + "/a.json").value()).value();
  EXPECT_GT(crossed.value().nodes.size(), a.nodes.size());
  // A case file of an unknown format is rejected as `run` rejects it, not mutated.
  std::ofstream(dir + "/c.json") << "{\"format\": \"mmdiff.unknown\", \"program\": "
                                 << ReadFile(dir + "/a.json").value() << "}";
  auto odd = e2e::RunMmdiff("mutate " + dir + "/c.json");
  EXPECT_EQ(odd.exit_code, 2) << odd.output;
  EXPECT_NE(odd.output.find("unknown format"), std::string::npos) << odd.output;
}

TEST(CliE2E, GenStatsCountsEveryOp) {
  auto r = e2e::RunMmdiff("gen --stats 3000 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["programs"], 3000);
  for (const char* op : {"mm", "bmm", "matmul", "addmm", "mv", "dot", "addmv", "baddbmm", "addbmm",
                         "linear", "cast"})
    EXPECT_GT(j["programs_with"]["op"].value(op, 0), 0) << op;
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(CliE2E, CudaProgramsWithoutAGpuAreCountedNeverSilentlyDropped) {
  auto paths = nlohmann::json::parse(e2e::RunMmdiff("paths --json").output);
  bool gpu = paths["devices"]["cuda"].get<bool>();
  std::string dir = e2e::ScratchDir("cli-cuda");
  std::ofstream(dir + "/cuda.json") << R"({"p_cuda": 1, "p_meta": 0})";
  auto r = e2e::RunMmdiff("fuzz --cases 20 --time 120 --paths reference,eager --policy " + dir +
                          "/cuda.json --out " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(ReadFile(dir + "/summary.json").value());
  EXPECT_EQ(j["cases"], 20);
  EXPECT_EQ(j["cuda_cases_without_gpu"], gpu ? 0 : 20) << "GPU present: " << gpu;
  EXPECT_NE(
      r.output.find("cuda programs skipped for want of a GPU: " + std::string(gpu ? "0" : "20")),
      std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(CliE2E, InductorValueFindingsAreRerunWithTheMitigationKnobs) {
  // inductor's bfloat16 mv rounds its products (a precision-only finding); the report says which
  // of PyTorch's mitigation knobs remove it.
  auto r = e2e::RunMmdiff("run --json " + std::string(MMDIFF_SOURCE_DIR) +
                          "/corpus/regression/inductor-mv-bfloat16-rounds-products.json --paths "
                          "reference,eager,inductor");
  ASSERT_EQ(r.exit_code, 1) << r.output;  // diverges
  auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  ASSERT_TRUE(j.contains("mitigations")) << j.dump(2);
  ASSERT_EQ(j["mitigations"].size(), 2u);
  EXPECT_EQ(j["mitigations"][0]["knob"], "torch._inductor.config.emulate_precision_casts = True");
  EXPECT_EQ(j["mitigations"][1]["knob"], "torch._inductor.config.fallback_random = True");
  for (const auto& m : j["mitigations"]) {
    bool removes = m["removes_divergence"].get<bool>();
    EXPECT_EQ(removes, m["detail"].get<std::string>().find("got") == std::string::npos) << m.dump();
  }
  EXPECT_FALSE(j["mitigations"][1]["removes_divergence"].get<bool>());  // no randomness involved
  if (std::string(build_info::kTorchVersion).rfind("2.15", 0) == 0) {
    EXPECT_TRUE(j["mitigations"][0]["removes_divergence"].get<bool>());  // observed on 2.15.0
  }
}

}  // namespace
}  // namespace mmdiff
