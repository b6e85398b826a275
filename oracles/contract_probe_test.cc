// The contract against what eager did: every dtype combination of the matmul family, as
// scripts/contract-probe.py recorded it on a torch release and device (oracles/probes/*.json; the
// cuda file came from a session lent a GPU). The contract, asked about that release, must say
// the same: accepted with that result dtype, or rejected with that error class.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "oracles/contract.h"
#include "src/ir/op.h"
#include "src/support/files.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

nlohmann::json ReadProbe(const fs::path& file) {
  auto text = ReadFile(file.string());
  EXPECT_TRUE(text.ok()) << text.error();
  return nlohmann::json::parse(text.ok() ? text.value() : "{}");
}

struct Mismatch {
  std::string variant, line;
  // Where eager accepts what the contract rejects because eager breaks a rule the contract keeps
  // (the violation's eager_deviation): that deviation's id; "" for any other mismatch.
  std::string deviation;
};

// The mismatches of one probe file.
std::vector<Mismatch> Mismatches(const nlohmann::json& probe) {
  TorchRelease release = ParseTorchRelease(probe.at("torch").get<std::string>());
  auto device = ParseDevice(probe.at("device").get<std::string>());
  EXPECT_TRUE(device.has_value());
  std::vector<DType> dtypes;
  for (const auto& d : probe.at("dtypes"))
    dtypes.push_back(ParseDType(d.get<std::string>()).value());
  std::vector<Mismatch> out;
  for (const auto& [name, op] : probe.at("ops").items()) {
    auto kind = ParseOpKind(op.at("op").get<std::string>());
    EXPECT_TRUE(kind.has_value()) << name;
    std::vector<Shape> shapes = op.at("shapes").get<std::vector<Shape>>();
    std::string codes = op.at("outcomes").get<std::string>();
    size_t n = shapes.size(), combos = 1;
    for (size_t i = 0; i < n; ++i) combos *= dtypes.size();
    EXPECT_EQ(codes.size(), combos) << name;
    for (size_t c = 0; c < std::min(combos, codes.size()); ++c) {
      Program p;
      std::string call = name + "(";
      for (size_t i = 0, rest = c; i < n; ++i) {  // the first operand's dtype varies slowest
        size_t stride = 1;
        for (size_t j = i + 1; j < n; ++j) stride *= dtypes.size();
        DType d = dtypes[(rest / stride) % dtypes.size()];
        p.inputs.push_back({"x" + std::to_string(i), shapes[i], d, *device});
        call += std::string(i ? ", " : "") + std::string(DTypeName(d));
      }
      call += ")";
      std::vector<std::string> args;
      for (const auto& in : p.inputs) args.push_back(in.name);
      p.nodes = {{"v0", *kind, args}};
      p.outputs = {"v0"};
      Expectation e = Expect(p, release);
      char code = codes[c];
      std::string got = e.rejects ? e.violation.error_class + " (" + e.violation.rule + ")"
                                  : "accepts, " + std::string(DTypeName(e.outputs.at(0).dtype));
      std::string want = code == 'R'   ? "RuntimeError"
                         : code == 'N' ? "NotImplementedError"
                         : code == 'X'
                             ? ""
                             : "accepts, " + std::string(DTypeName(dtypes.at(code - '0')));
      if (want.empty()) continue;  // another exception: not the contract's to say
      bool same = e.rejects ? got.rfind(want, 0) == 0 : got == want;
      bool accepted = code >= '0' && code <= '9';
      std::string deviation = e.rejects && accepted ? e.violation.eager_deviation : "";
      if (!same) out.push_back({name, call + ": eager " + want + ", contract " + got, deviation});
    }
  }
  return out;
}

// Probed corners the contract does not model yet, with how many dtype combinations it gets wrong
// there: a change in either direction fails the test, so this table stays true.
const std::map<std::string, int> kUnmodelled = {
    // torch 2.11.0: an empty mv takes any two dtypes and returns the vector's (matmul of a 1-D by
    // an empty batch folds into such an mv); an empty addmv then adds a bias of any dtype that the
    // float beta can be cast to. Gone in 2.12 (addmv's meta function compares the dtypes first).
    {"eager-cpu-2.11.0.json mv_m0", 72},
    {"eager-cpu-2.11.0.json mv_k0", 72},
    {"eager-cpu-2.11.0.json matmul_1_3_0", 72},
    {"eager-cpu-2.11.0.json addmv_m0", 456},
    {"eager-cpu-2.11.0.json addmv_k0", 456},
    // The same on cuda (probed on 2.11.0: the cuda kernels return early the same way).
    {"eager-cuda-2.11.0.json mv_m0", 72},
    {"eager-cuda-2.11.0.json mv_k0", 72},
    {"eager-cuda-2.11.0.json matmul_1_3_0", 72},
    {"eager-cuda-2.11.0.json addmv_m0", 456},
    {"eager-cuda-2.11.0.json addmv_k0", 456},
    // A 1-D integer or bool input with a bias of another dtype on cuda: eager's matmul raises
    // NotImplementedError (no integer kernels) before it meets the bias, which the contract
    // compares first.
    {"eager-cuda-2.11.0.json linear_1d_bias0", 40},
    // A bool input and weight with a bias of another dtype, 1-D: eager raises NotImplementedError
    // from its matmul before it meets the bias (its path off 2-D adds the bias afterwards); the
    // contract compares the bias first, as addmm and linear's 2-D path do.
    {"eager-cpu-2.15.0.json linear_1d_bias0", 8},
};

// Where the contract deliberately differs from eager: eager breaks a rule that the contract keeps
// (the rows of ContractRules() that eager_deviation names; docs/judging.md, "Where eager breaks the
// rule"), so eager accepts dtype combinations that the contract rejects. Listed with how many, per
// probe and variant: a change in either direction fails the test.
//   empty_bmm_dtype: same_dtype holds for empty products (pytorch#100274 made addmm check before
//     its empty-input return; mm, addmm, addbmm and dot raise on the same operands; the bmm meta
//     function and every torch.compile path raise from 2.12); eager's bmm_out_or_baddbmm_ returns
//     first, with the second matrix's dtype.
//   linear_bias_dtype: same_dtype holds for linear's bias whatever the input's rank (its 2-D path,
//     addmm, raises); off that path eager adds the bias in place, cast to the input's dtype.
//   addmv_bias_dtype: same_dtype holds for addmv's bias (addmm raises on the same bias; from 2.12
//     addmv's meta function compares all three dtypes); before 2.12 eager never compares it.
struct Deviation {
  std::string id;
  int combinations;
};
const std::map<std::string, Deviation> kDeviations = {
    {"eager-cpu-2.15.0.json bmm_k0", {"empty_bmm_dtype", 72}},
    {"eager-cpu-2.15.0.json bmm_b0", {"empty_bmm_dtype", 72}},
    {"eager-cpu-2.15.0.json baddbmm_k0", {"empty_bmm_dtype", 32}},
    {"eager-cpu-2.15.0.json matmul_3_3_k0", {"empty_bmm_dtype", 72}},
    {"eager-cpu-2.15.0.json linear_1d_bias0", {"linear_bias_dtype", 48}},
    {"eager-cpu-2.11.0.json bmm_k0", {"empty_bmm_dtype", 72}},
    {"eager-cpu-2.11.0.json bmm_b0", {"empty_bmm_dtype", 72}},
    {"eager-cpu-2.11.0.json baddbmm_k0", {"empty_bmm_dtype", 32}},
    {"eager-cuda-2.11.0.json bmm_k0", {"empty_bmm_dtype", 72}},
    {"eager-cuda-2.11.0.json bmm_b0", {"empty_bmm_dtype", 72}},
    {"eager-cpu-2.11.0.json addmv", {"addmv_bias_dtype", 64}},
    {"eager-cpu-2.11.0.json addmv_m0", {"addmv_bias_dtype", 48}},
    {"eager-cpu-2.11.0.json addmv_k0", {"addmv_bias_dtype", 48}},
    {"eager-cuda-2.11.0.json addmv", {"addmv_bias_dtype", 32}},
    {"eager-cuda-2.11.0.json addmv_m0", {"addmv_bias_dtype", 48}},
    {"eager-cuda-2.11.0.json addmv_k0", {"addmv_bias_dtype", 48}},
    {"eager-cuda-2.11.0.json baddbmm_k0", {"empty_bmm_dtype", 32}},
    {"eager-cuda-2.11.0.json matmul_3_3_k0", {"empty_bmm_dtype", 72}},
    {"eager-cuda-2.11.0.json linear_1d_bias0", {"linear_bias_dtype", 32}},
};

TEST(ContractProbe, TheContractSaysWhatEagerDidOnEveryProbedReleaseAndDevice) {
  fs::path dir = fs::path(MMDIFF_SOURCE_DIR) / "oracles" / "probes";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    std::string file = entry.path().filename().string();
    std::map<std::string, std::vector<std::string>> bad;
    std::map<std::string, int> deviations;
    for (auto& m : Mismatches(ReadProbe(entry.path()))) {
      auto listed = kDeviations.find(file + " " + m.variant);
      if (!m.deviation.empty() && listed != kDeviations.end() && listed->second.id == m.deviation)
        ++deviations[m.variant];
      else
        bad[m.variant].push_back(m.line);
    }
    for (const auto& [key, d] : kDeviations) {
      if (key.rfind(file + " ", 0) != 0) continue;
      std::string variant = key.substr(file.size() + 1);
      EXPECT_EQ(deviations[variant], d.combinations)
          << key << ": eager breaks " << d.id << " on another number of dtype combinations than "
          << "listed in kDeviations";
    }
    for (const auto& [variant, lines] : bad) {
      auto known = kUnmodelled.find(file + " " + variant);
      if (known != kUnmodelled.end() && known->second == static_cast<int>(lines.size())) continue;
      std::string shown;
      for (size_t i = 0; i < lines.size() && i < 12; ++i) shown += "\n  " + lines[i];
      ADD_FAILURE() << file << " " << variant << ": the contract is wrong on " << lines.size()
                    << " dtype combinations (listed as unmodelled: "
                    << (known == kUnmodelled.end() ? 0 : known->second) << "), e.g." << shown;
    }
    for (const auto& [key, count] : kUnmodelled)
      if (key.rfind(file + " ", 0) == 0 && !bad.contains(key.substr(file.size() + 1)))
        ADD_FAILURE() << key << " is listed as unmodelled (" << count
                      << " combinations) but the contract now agrees: drop it from kUnmodelled";
  }
  EXPECT_GE(files, 3) << "the probes of torch 2.11.0 (cpu, cuda) and 2.15.0 (cpu) are expected in "
                      << dir;
}

// The test above can fail: a probe that disagrees with the contract is reported.
TEST(ContractProbe, AMisrecordedOutcomeIsReported) {
  nlohmann::json probe = {
      {"torch", "2.15.0"},
      {"device", "cpu"},
      {"dtypes", {"float32", "float16"}},
      {"ops", {{"mm", {{"op", "mm"}, {"shapes", {{2, 3}, {3, 4}}}, {"outcomes", "0R1R"}}}}}};
  // Right: float32 @ float32 gives float32, float32 @ float16 raises. Wrong: float16 @ float32
  // accepted, float16 @ float16 rejected.
  std::vector<Mismatch> bad = Mismatches(probe);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_NE(bad[0].line.find("mm(float16, float32)"), std::string::npos) << bad[0].line;
}

// An empty mixed-dtype bmm that eager accepts is a mismatch that names the deviation (so that only
// the listed ones pass); the rule's own violations eager keeps are no mismatch.
TEST(ContractProbe, EagerAcceptingWhatTheRuleRejectsNamesTheDeviation) {
  nlohmann::json probe = {
      {"torch", "2.15.0"},
      {"device", "cpu"},
      {"dtypes", {"float64", "int64"}},
      {"ops",
       {{"bmm_k0", {{"op", "bmm"}, {"shapes", {{2, 3, 0}, {2, 0, 5}}}, {"outcomes", "0101"}}},
        {"mm_k0", {{"op", "mm"}, {"shapes", {{3, 0}, {0, 5}}}, {"outcomes", "0RR1"}}}}}};
  std::vector<Mismatch> bad = Mismatches(probe);
  ASSERT_EQ(bad.size(), 2u);
  for (const Mismatch& m : bad) {
    EXPECT_EQ(m.variant, "bmm_k0");
    EXPECT_EQ(m.deviation, "empty_bmm_dtype") << m.line;
  }
}

}  // namespace
}  // namespace mmdiff
