// Compile once, run many; automatic ablation; `mmdiff bench` — end to end on the real worker and
// torch.compile.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "src/ir/program_json.h"
#include "src/support/files.h"
#include "tests/e2e_util.h"
#include "tests/schema_check.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

// Programs that compute (cpu, no contract violations), so that every input runs.
std::string ComputingPolicy(const std::string& dir) {
  std::string file = dir + "/policy.json";
  std::ofstream(file)
      << R"({"max_ops": 1, "p_meta": 0, "p_cuda": 0, "p_move": 0, "p_device_mismatch": 0,
    "p_shape_violation": 0, "p_mixed_dtype": 0, "p_cast": 0, "p_zero_dim": 0, "p_large_k": 0, "p_special": 0,
    "w_int8": 0, "w_uint8": 0, "w_int32": 0, "w_int64": 0, "w_bool": 0, "w_bfloat16": 0, "w_float16": 0,
    "w_sdpa": 0, "w_attention": 0, "p_train": 0})";
  return file;
}

TEST(CompileOnceE2E, AProgramsInputsReuseWhatItCompiledAndTheCacheLivesInTheCampaign) {
  std::string dir = e2e::ScratchDir("compile-once");
  std::string policy = ComputingPolicy(dir);
  std::string many = dir + "/many", one = dir + "/one";
  auto r = e2e::RunMmdiffOwnCache(
      "fuzz --cases 3 --jobs 1 --no-reduce --seed 11 --paths reference,eager,inductor --policy " +
      policy + " --inputs-per-program 6 --out " + many);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json s = e2e::ReadJson(many + "/summary.json");
  ASSERT_TRUE(s.is_object()) << r.output;
  EXPECT_EQ(s["cases"], 3);
  EXPECT_EQ(s["inputs_per_program"], 6);
  EXPECT_EQ(s["diverging_cases"], 0) << r.output;
  EXPECT_EQ(s["checked_inputs"], 18);  // every input of every program ran
  // Each program compiled for its first input, and again (dynamic shapes) for its new sizes at
  // most; every other input reused the compiled function.
  const auto& c = s["compile"];
  EXPECT_GE(c["compiles"].get<int>(), 3);
  EXPECT_LE(c["compiles"].get<int>(), 3 + c["shape_variants"].get<int>());
  EXPECT_EQ(c["compiles"].get<int>() + c["reuses"].get<int>(), 18);
  EXPECT_GE(c["reuses"].get<int>(), 12);
  EXPECT_GE(c["shape_variants"].get<int>(), 1);
  // Workers turn the FX graph cache off: every compile runs Inductor's passes.
  EXPECT_EQ(c["fx_cache_hits"].get<int>(), 0);
  EXPECT_EQ(c["cache_dir"], "inductor-cache");
  EXPECT_TRUE(fs::is_directory(many + "/inductor-cache"))
      << "Inductor's cache is not in the campaign folder";
  EXPECT_FALSE(fs::is_empty(many + "/inductor-cache"));
  auto check = e2e::ValidateJson({many + "/summary.json"});
  EXPECT_TRUE(check.all_valid()) << check.output;
  EXPECT_NE(r.output.find("reused a compiled graph"), std::string::npos) << r.output;
  // Where the time went: every checked input's path runs, Inductor's by stage, as the worker's
  // helper names the stages (a name the C++ side does not read would be zero here).
  const auto& prof = s["profile"];
  EXPECT_EQ(prof["paths"]["inductor"]["runs"], 18);
  EXPECT_EQ(prof["paths"]["reference"]["runs"], 18);
  EXPECT_FALSE(prof["paths"]["eager"].contains("phases"));
  const auto& phases = prof["paths"]["inductor"]["phases"];
  for (const char* stage : {"dynamo", "aot_autograd", "inductor_lowering", "run"})
    EXPECT_GT(phases[stage].get<double>(), 0) << stage << ": " << prof.dump();
  double in_phases = 0;
  for (const auto& [stage, seconds] : phases.items()) in_phases += seconds.get<double>();
  EXPECT_LE(in_phases, prof["paths"]["inductor"]["seconds"].get<double>() + 1e-6);
  EXPECT_LE(prof["run_s"].get<double>() + prof["judge_s"].get<double>() +
                prof["generate_s"].get<double>(),
            s["elapsed_s"].get<double>() + 1e-6);

  // One input per program: nothing to reuse. --profile prints the table.
  r = e2e::RunMmdiff(
      "fuzz --cases 3 --jobs 1 --no-reduce --seed 11 --paths reference,eager,inductor --policy " +
      policy + " --inputs-per-program 1 --profile --out " + one);
  EXPECT_NE(r.output.find("where the time went"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cpp_compile"), std::string::npos) << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  s = e2e::ReadJson(one + "/summary.json");
  EXPECT_EQ(s["checked_inputs"], 3);
  EXPECT_EQ(s["compile"]["reuses"], 0);
  EXPECT_EQ(s["compile"]["shape_variants"], 0);

  // No compiled path: nothing to reuse, so each program gets one input and new programs explore.
  std::string eager = dir + "/eager";
  r = e2e::RunMmdiff(
      "fuzz --cases 20 --jobs 1 --no-reduce --seed 11 --paths reference,eager --policy " + policy +
      " --inputs-per-program 6 --out " + eager);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  s = e2e::ReadJson(eager + "/summary.json");
  EXPECT_EQ(s["cases"], 20);
  EXPECT_EQ(s["checked_inputs"], 20);
}

// The profile splits out the programs the contract rejects: their runs, and the C++ compiles of
// the compiled paths that accepted them (none in a campaign of programs that compute).
TEST(CompileOnceE2E, TheProfileSaysWhatTheProgramsTheContractRejectsCost) {
  std::string dir = e2e::ScratchDir("rejected-profile");
  std::string computing = ComputingPolicy(dir);
  std::string violating = dir + "/violating.json";
  {
    nlohmann::json v = e2e::ReadJson(computing);
    v["p_shape_violation"] = 1;
    std::ofstream(violating) << v.dump();
  }
  for (const auto& [policy, rejected] : {std::pair{computing, 0}, std::pair{violating, 3}}) {
    std::string out = dir + "/out-" + std::to_string(rejected);
    auto r = e2e::RunMmdiff(
        "fuzz --cases 3 --jobs 1 --no-reduce --no-standalone-check --no-known --seed 11 --paths "
        "reference,eager,inductor --inputs-per-program 1 --profile --policy " +
        policy + " --out " + out);
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output;
    nlohmann::json s = e2e::ReadJson(out + "/summary.json");
    ASSERT_TRUE(s.is_object()) << r.output;
    const auto& prof = s["profile"];
    EXPECT_EQ(prof["rejected_programs"], rejected) << prof.dump();
    EXPECT_LE(prof["rejected_run_s"].get<double>(), prof["run_s"].get<double>() + 1e-9);
    EXPECT_LE(prof["rejected_cpp_compile_s"].get<double>(),
              prof["paths"]["inductor"]["phases"]["cpp_compile"].get<double>() + 1e-9);
    if (rejected == 0) {
      EXPECT_EQ(prof["rejected_run_s"], 0);
    } else {
      EXPECT_GT(prof["rejected_run_s"].get<double>(), 0) << prof.dump();
      EXPECT_NE(r.output.find("rejected programs' (3)"), std::string::npos) << r.output;
    }
    auto check = e2e::ValidateJson({out + "/summary.json"});
    EXPECT_TRUE(check.all_valid()) << check.output;
  }
}

// torch.compile's lower stages run beside inductor only on an input where it diverges (here none),
// unless --controls always; the choice is kept for --resume.
TEST(CompileOnceE2E, TheLowerStagesRunOnlyWhereInductorDivergesUnlessAlways) {
  std::string dir = e2e::ScratchDir("controls");
  std::string policy = ComputingPolicy(dir);
  auto runs = [](const nlohmann::json& s, const char* path) {
    const auto& paths = s["profile"]["paths"];
    return paths.contains(path) ? paths[path]["runs"].get<int>() : 0;
  };
  for (const char* mode : {"divergence", "always"}) {
    std::string out = dir + "/" + mode;
    auto r = e2e::RunMmdiff(
        "fuzz --cases 2 --jobs 1 --no-reduce --seed 11 --paths reference,eager,inductor,aot_eager "
        "--inputs-per-program 2 --policy " +
        policy + " --controls " + mode + " --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json s = e2e::ReadJson(out + "/summary.json");
    ASSERT_EQ(s["diverging_cases"], 0) << r.output;
    EXPECT_EQ(runs(s, "inductor"), 4) << s.dump();
    EXPECT_EQ(runs(s, "aot_eager"), std::string(mode) == "always" ? 4 : 0) << s.dump();
    EXPECT_EQ(s["resume"]["controls"], mode);
    EXPECT_EQ(s["paths"], (nlohmann::json{"reference", "eager", "inductor", "aot_eager"}));
  }
  auto r = e2e::RunMmdiff("fuzz --cases 1 --controls sometimes --out " + dir + "/bad");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST(CompileOnceE2E, AblationNamesTheFirstStageThatDisagreesWithEager) {
  std::string dir = e2e::ScratchDir("ablation");
  std::ofstream(dir + "/mm.json") << ProgramToJson(e2e::LegalMm()).dump();
  // planted_drop_k (a deliberately wrong path) drops the last term of every product: the ladder's
  // real stages agree with eager, and the blamed path, added at the end, does not.
  auto r = e2e::RunMmdiff("run " + dir +
                          "/mm.json --test-paths --paths reference,eager,planted_drop_k --out " +
                          dir + "/f");
  ASSERT_EQ(r.exit_code, 1) << r.output;  // a divergence
  nlohmann::json report = e2e::ReadJson(dir + "/f/report.json");
  ASSERT_TRUE(report.contains("ablation")) << report.dump(1);
  const auto& a = report["ablation"];
  EXPECT_EQ(a["first_divergent"], "planted_drop_k");
  std::vector<std::string> order;
  for (const auto& s : a["stages"]) {
    order.push_back(s["path"]);
    EXPECT_EQ(s["agrees_with_eager"], s["path"] != "planted_drop_k") << s.dump();
  }
  EXPECT_EQ(order, (std::vector<std::string>{"eager", "compile_eager", "aot_eager", "inductor",
                                             "planted_drop_k"}));
  auto repro = ReadFile(dir + "/f/repro.py");
  ASSERT_TRUE(repro.ok());
  EXPECT_NE(repro.value().find(
                "| torch.compile(backend=\"aot_eager\"): + AOTAutograd | ok (float32) | yes |"),
            std::string::npos)
      << repro.value();
  EXPECT_NE(r.output.find("ablation (first stage to disagree with eager: planted_drop_k)"),
            std::string::npos)
      << r.output;
  auto check = e2e::ValidateJson({dir + "/f/report.json"});
  EXPECT_TRUE(check.all_valid()) << check.output;

  // A case where only eager and the reference are involved gets no ablation.
  r = e2e::RunMmdiff("run " + dir + "/mm.json --paths reference,eager --out " + dir + "/g");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(e2e::ReadJson(dir + "/g/report.json").contains("ablation"));
}

TEST(CompileOnceE2E, BenchReportsEachPathAndTheReuseOfACompiledProgram) {
  auto r = e2e::RunMmdiff("bench --programs 3 --compiled-programs 1 --aoti-programs 0 --inputs 4");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto start = r.output.find("{\n");
  ASSERT_NE(start, std::string::npos) << r.output;
  nlohmann::json b = nlohmann::json::parse(r.output.substr(start), nullptr, false);
  ASSERT_TRUE(b.is_object()) << r.output;
  const auto& p = b["paths"];
  for (const char* path : {"reference", "eager", "eager_meta", "reference+eager"}) {
    EXPECT_EQ(p[path]["runs"], 3) << path;
    EXPECT_EQ(p[path]["ok"], 3) << path;  // the programs compute
    EXPECT_GT(p[path]["per_s"].get<double>(), 0) << path;
  }
  EXPECT_EQ(p["inductor (new compile)"]["compiled"], 1);
  EXPECT_EQ(p["inductor (reused compiled program)"]["runs"], 4);
  EXPECT_EQ(p["inductor (reused compiled program)"]["reused"], 4);
  EXPECT_EQ(p["inductor (reused compiled program)"]["compiled"], 0);
  EXPECT_GT(b["worker_peak_rss_mb"].get<double>(), 100);  // a worker holds LibTorch and Python
}

}  // namespace
}  // namespace mmdiff
