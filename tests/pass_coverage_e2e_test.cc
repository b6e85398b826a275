// Pass coverage end to end: a hand-written attention program that Inductor rewrites records the
// rewrite's name in its run and in a campaign's summary.json; a product no rewrite matches records
// none; `mmdiff rewrites` then leaves the reached rewrite out of those never reached.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "src/ir/program_json.h"
#include "tests/e2e_util.h"
#include "tests/schema_check.h"

namespace mmdiff {
namespace {

constexpr const char* kFused = "_sfdp_pattern_1_inference";

// (q @ kᵀ / 4).softmax(-1) @ v in float32, the form of Inductor's _sfdp_pattern_1.
Program Attention() {
  Program p;
  p.inputs = {{"q", {2, 4, 8, 16}, DType::kFloat32},
              {"k", {2, 4, 8, 16}, DType::kFloat32},
              {"v", {2, 4, 8, 16}, DType::kFloat32}};
  Node kt{"kt", OpKind::kTranspose, {"k"}};
  kt.ints = {2, 3};
  Node scores{"s", OpKind::kMatmul, {"q", "kt"}};
  Node scaled{"d", OpKind::kDivScalar, {"s"}, std::nullopt, 4.0};
  Node probs{"p", OpKind::kSoftmax, {"d"}};
  probs.ints = {-1};
  Node out{"o", OpKind::kMatmul, {"p", "v"}};
  p.nodes = {kt, scores, scaled, probs, out};
  p.outputs = {"o"};
  return p;
}

// The internals the inductor path reported for `p`, run with `mmdiff run --json` and Inductor's
// caches in `dir`, fresh: a compile the FX graph cache answers runs no pass and reports none.
// Exit 1 (the paths diverge) is accepted where `diverging_ok`: a target focus's program may show a
// fusion's bug (that is what it is for).
std::vector<std::string> InductorInternals(const std::string& dir, const std::string& file,
                                           const std::string& name, bool diverging_ok = false) {
  auto r =
      e2e::RunShell("TORCHINDUCTOR_CACHE_DIR=" + dir + "/cache-" + name + " " + MMDIFF_BUILD_DIR +
                    "/mmdiff run " + file + " --paths reference,eager,inductor --json");
  if (!diverging_ok || r.exit_code != 1) {
    EXPECT_EQ(r.exit_code, 0) << r.output;
  }
  nlohmann::json report = nlohmann::json::parse(r.output, nullptr, false);
  if (report.is_discarded()) {
    ADD_FAILURE() << "not JSON: " << r.output;
    return {};
  }
  for (const auto& path : report["paths"])
    if (path["path"] == "inductor") return path["compile"]["internals"];
  ADD_FAILURE() << "no inductor path: " << r.output;
  return {};
}

std::vector<std::string> InductorInternals(const std::string& dir, const Program& p,
                                           const std::string& name) {
  const std::string file = dir + "/" + name + ".json";
  std::ofstream(file) << ProgramToJson(p).dump();
  return InductorInternals(dir, file, name);
}

bool HasRewrite(const std::vector<std::string>& internals, const std::string& name = "") {
  for (const std::string& i : internals)
    if (i.starts_with("rewrite:") && (name.empty() || i == "rewrite:" + name)) return true;
  return false;
}

TEST(PassCoverageE2E, AnAttentionProgramRecordsItsRewriteAndAPlainProductNone) {
  const std::string dir = e2e::ScratchDir("pass-coverage-run");
  const auto fused = InductorInternals(dir, Attention(), "attention");
  EXPECT_TRUE(HasRewrite(fused, kFused)) << nlohmann::json(fused).dump();
  const auto plain = InductorInternals(dir, e2e::LegalMm(), "mm");
  EXPECT_FALSE(plain.empty());
  EXPECT_FALSE(HasRewrite(plain)) << nlohmann::json(plain).dump();
}

TEST(PassCoverageE2E, ACampaignCountsTheRewriteAndMmdiffRewritesNoLongerListsIt) {
  const std::string dir = e2e::ScratchDir("pass-coverage-campaign");
  // Float32 4-D attention with its scores divided and nothing else: every program is the form of
  // _sfdp_pattern_1 (or, with a batch of one, a sibling of it).
  nlohmann::json policy = {{"max_ops", 1},
                           {"p_mixed_dtype", 0},
                           {"p_cast", 0},
                           {"p_view", 0},
                           {"p_move", 0},
                           {"p_meta", 0},
                           {"p_cuda", 0},
                           {"p_device_mismatch", 0},
                           {"p_shape_violation", 0},
                           {"p_zero_dim", 0},
                           {"p_large_k", 0},
                           {"p_train", 0},
                           {"p_autocast", 0},
                           {"p_mask", 0},
                           {"p_special", 0},
                           {"p_attention_4d", 1},
                           {"p_attention_bshd", 0},
                           {"p_attention_unscaled", 0},
                           {"p_scale_query", 0},
                           {"p_scale_div", 1},
                           {"p_softmax_float32", 0},
                           {"p_softmax_other_dim", 0},
                           {"p_v_float32", 0},
                           {"w_float64", 0},
                           {"w_float16", 0},
                           {"w_bfloat16", 0},
                           {"inputs_per_program", 2}};
  for (const char* op : {"w_mm", "w_bmm", "w_matmul", "w_addmm", "w_mv", "w_dot", "w_addmv",
                         "w_baddbmm", "w_addbmm", "w_linear", "w_sdpa"})
    policy[op] = 0;
  std::ofstream(dir + "/policy.json") << policy.dump();
  const std::string out = dir + "/campaign";
  auto r = e2e::RunMmdiff(
      "fuzz --cases 2 --jobs 1 --seed 5 --paths reference,eager,inductor "
      "--policy " +
      dir + "/policy.json --profile --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json s = e2e::ReadJson(out + "/summary.json");
  ASSERT_TRUE(s.is_object()) << r.output;
  ASSERT_TRUE(s["rewrites"].is_object()) << s.dump(2);
  int64_t fused = 0;
  for (const auto& [name, stats] : s["rewrites"].items())
    if (name.starts_with("_sfdp_pattern_")) fused += stats["programs"].get<int64_t>();
  EXPECT_GE(fused, 1) << s["rewrites"].dump(2);  // 2 unless the second hit Inductor's cache
  EXPECT_NE(r.output.find("Inductor's rewrites the programs reached"), std::string::npos)
      << r.output;
  auto check = e2e::ValidateJson({out + "/summary.json"});
  EXPECT_TRUE(check.all_valid()) << check.output;

  auto listed = e2e::RunMmdiff("rewrites " + out + " --json");
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  nlohmann::json rows = nlohmann::json::parse(listed.output, nullptr, false);
  ASSERT_TRUE(rows.is_array()) << listed.output;
  int64_t reached = 0, family = 0;
  for (const auto& row : rows) {
    family += row["family"].get<bool>();
    if (s["rewrites"].contains(row["name"])) {
      EXPECT_EQ(row["programs"], s["rewrites"][row["name"].get<std::string>()]["programs"]);
      ++reached;
    }
  }
  EXPECT_GT(family, 50);  // about 140 on torch 2.11 and 2.15
  EXPECT_GE(reached, 1) << listed.output;
  auto missing = e2e::RunMmdiff("rewrites " + dir + "/no-such-campaign");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  // A summary whose rewrites are malformed is an error naming it, before any Python runs.
  s["rewrites"] = 3;
  std::filesystem::create_directories(dir + "/broken");
  std::ofstream(dir + "/broken/summary.json") << s.dump();
  auto broken = e2e::RunMmdiff("rewrites " + dir + "/broken");
  EXPECT_EQ(broken.exit_code, 2) << broken.output;
  EXPECT_NE(broken.output.find("broken/summary.json"), std::string::npos) << broken.output;
  EXPECT_NE(broken.output.find("\"rewrites\" must be an object"), std::string::npos)
      << broken.output;
}

// A target focus writes its fusion's form: a program it generates (of the first 3 seeds) reaches
// that fusion. Four targets of unlike forms: 3-D bmm, a padding mask filled in 16 bits, a float32
// softmax cast back before a training dropout at batch 1, sdpa's decomposition folded back.
TEST(PassCoverageE2E, TargetFociReachTheirFusions) {
  const std::string dir = e2e::ScratchDir("pass-coverage-targets");
  for (const std::string target :
       {"_sfdp_pattern_13_inference", "_sfdp_pattern_15_half_inference",
        "_sfdp_pattern_25_half_bs1_training", "_sfdp_pattern_30_inference"}) {
    bool reached = false;
    std::vector<std::string> last;
    for (int seed = 1; seed <= 3 && !reached; ++seed) {
      const std::string name = target + "-" + std::to_string(seed);
      const std::string file = dir + "/" + name + ".json";
      auto gen = e2e::RunShell(std::string(MMDIFF_BUILD_DIR) + "/mmdiff gen --case --seed " +
                               std::to_string(seed) + " --focus target" + target + " > " + file);
      ASSERT_EQ(gen.exit_code, 0) << gen.output;
      last = InductorInternals(dir, file, name, /*diverging_ok=*/true);
      reached = HasRewrite(last, target);
    }
    EXPECT_TRUE(reached) << target << ": " << nlohmann::json(last).dump();
  }
}

}  // namespace
}  // namespace mmdiff
