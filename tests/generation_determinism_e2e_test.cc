// Generation is a pure function of (generator version, policy, seed): two processes print
// byte-identical cases and input values, and repro.py's Python twin of the input recipe computes
// the same values bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "src/gen/generator.h"
#include "src/ir/python_emitter.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

TEST(GenerationDeterminismE2E, TwoProcessesPrintByteIdenticalCasesAndValues) {
  std::set<std::string> distinct;
  for (int seed = 1; seed <= 25; ++seed) {
    std::string args = "gen --seed " + std::to_string(seed) + " --values";
    auto a = e2e::RunMmdiff(args), b = e2e::RunMmdiff(args);
    ASSERT_EQ(a.exit_code, 0) << a.output;
    ASSERT_EQ(a.output, b.output) << "seed " << seed;
    distinct.insert(a.output);
    auto j = nlohmann::json::parse(a.output);
    EXPECT_TRUE(j.contains("program") && j.contains("inputs") && j.contains("values"));
  }
  EXPECT_EQ(distinct.size(), 25u);  // and the seed matters
}

uint64_t Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

TEST(GenerationDeterminismE2E, PythonTwinOfTheInputRecipeIsBitIdentical) {
  // One Python process checks many cases: each case's input builder (as repro.py has it) runs in a
  // namespace of its own and prints the first elements of every input as hex floats.
  constexpr int64_t kPrefix = 3000;  // values of a prefix do not depend on the input's size
  std::string dir = e2e::ScratchDir("twin");
  nlohmann::json cases = nlohmann::json::array();
  std::vector<GeneratedCase> generated;
  std::set<std::string> kinds_seen;
  bool special_seen = false, zeroed_seen = false;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    GeneratedCase c = GenerateCaseFromSeed(seed, GenPolicy{});
    if (seed % 5 == 0) c.recipe.zeroed = {0};  // the rerun's recipe: input 0 all zeros
    zeroed_seen |= !c.recipe.zeroed.empty();
    kinds_seen.insert(c.recipe.kind);
    special_seen |= c.recipe.special > 0;
    nlohmann::json inputs = nlohmann::json::array();
    for (const auto& in : c.program.inputs)
      inputs.push_back(
          {{"numel", std::min(Numel(in.shape), kPrefix)}, {"dtype", DTypeName(in.dtype)}});
    cases.push_back({{"builder", EmitInputBuilder(c.program, c.recipe)}, {"inputs", inputs}});
    generated.push_back(c);
  }
  std::ofstream(dir + "/cases.json") << cases.dump();
  std::ofstream(dir + "/twin.py") << R"(import json, sys
import torch

out = []
for case in json.load(open(sys.argv[1])):
    ns = {}
    exec('import math\nimport torch\n' + case['builder'], ns)
    out.append([[v.hex() for v in ns['_mmdiff_values'](ns['RECIPE'], i, x['numel'], getattr(torch, x['dtype']))]
                for i, x in enumerate(case['inputs'])])
print(json.dumps(out))
)";
  auto r = e2e::RunShell(e2e::VenvPython() + " " + dir + "/twin.py " + dir + "/cases.json 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto got = nlohmann::json::parse(r.output);
  ASSERT_EQ(got.size(), generated.size());
  int64_t compared = 0;
  for (size_t c = 0; c < generated.size(); ++c) {
    const Program& p = generated[c].program;
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      int64_t n = std::min(Numel(p.inputs[i].shape), kPrefix);
      std::vector<double> want = RecipeValues(generated[c].recipe, i, n, p.inputs[i].dtype);
      ASSERT_EQ(got[c][i].size(), want.size());
      for (size_t k = 0; k < want.size(); ++k, ++compared) {
        double g = std::strtod(got[c][i][k].get<std::string>().c_str(), nullptr);
        std::string where = "seed " + std::to_string(c + 1) + " input " + std::to_string(i) +
                            " element " + std::to_string(k);
        if (std::isnan(want[k])) {
          ASSERT_TRUE(std::isnan(g)) << where;
        } else {
          ASSERT_EQ(Bits(g), Bits(want[k]))
              << where << ": python " << got[c][i][k] << ", C++ " << want[k];
        }
      }
    }
  }
  EXPECT_GT(compared, 10000);
  EXPECT_EQ(kinds_seen.size(), 4u);  // grid16, exact, uniform and normal were all compared
  EXPECT_TRUE(special_seen);
  EXPECT_TRUE(zeroed_seen);
}

}  // namespace
}  // namespace mmdiff
