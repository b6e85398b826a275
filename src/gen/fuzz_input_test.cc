// Tests for the program fuzzer's input decoding: empty input, case JSON, and generator bytes with
// the reason they were not a case.
#include "src/gen/fuzz_input.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "src/ir/program_json.h"
#include "src/ir/verifier.h"

namespace mmdiff {
namespace {

// An mm of `a` and `second` (naming an undefined value fails the verifier).
Program Mm(const std::string& second = "b") {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat16}, {"b", {3, 2}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", second}}};
  p.outputs = {"v0"};
  return p;
}

TEST(FuzzInput, EmptyInputIsAPlainLegalMm) {
  FuzzInput in = DecodeFuzzInput("", GenPolicy{});
  EXPECT_EQ(in.kind, FuzzInputKind::kEmpty);
  ASSERT_EQ(in.gc.program.nodes.size(), 1u);
  EXPECT_EQ(in.gc.program.nodes[0].op, OpKind::kMm);
  EXPECT_TRUE(Verify(in.gc.program).ok());
}

TEST(FuzzInput, ACaseRoundTripsAndSoDoesARegressionEntry) {
  InputRecipe r{"exact", 42};
  FuzzInput in = DecodeFuzzInput(EncodeFuzzCase(Mm(), r), GenPolicy{});
  EXPECT_EQ(in.kind, FuzzInputKind::kCase);
  EXPECT_EQ(in.gc.program, Mm());
  EXPECT_EQ(in.gc.recipe, r);
  EXPECT_EQ(FuzzInputKindName(in.kind), "case JSON");
  // Whatever else the object holds: a regression entry or a report is a case too.
  nlohmann::json entry = {{"format", "mmdiff.regression"},
                          {"program", ProgramToJson(Mm())},
                          {"inputs", RecipeToJson(r)},
                          {"paths", {"reference"}}};
  EXPECT_EQ(DecodeFuzzInput(entry.dump(), GenPolicy{}).kind, FuzzInputKind::kCase);
  // Without "inputs": the default recipe.
  nlohmann::json bare = {{"program", ProgramToJson(Mm())}};
  FuzzInput b = DecodeFuzzInput(bare.dump(), GenPolicy{});
  EXPECT_EQ(b.kind, FuzzInputKind::kCase);
  EXPECT_EQ(b.gc.recipe, InputRecipe{});
}

TEST(FuzzInput, AnythingElseIsGeneratorBytesWithTheReason) {
  std::string text = EncodeFuzzCase(Mm(), InputRecipe{});
  FuzzInput truncated = DecodeFuzzInput(text.substr(0, text.size() / 2), GenPolicy{});
  EXPECT_EQ(truncated.kind, FuzzInputKind::kChoices);
  EXPECT_EQ(truncated.not_a_case, "not JSON");
  EXPECT_TRUE(Verify(truncated.gc.program).ok());
  EXPECT_EQ(DecodeFuzzInput("[1, 2]", GenPolicy{}).not_a_case, "JSON without a \"program\"");
  FuzzInput unverified =
      DecodeFuzzInput(EncodeFuzzCase(Mm("undefined"), InputRecipe{}), GenPolicy{});
  EXPECT_EQ(unverified.kind, FuzzInputKind::kChoices);
  EXPECT_EQ(unverified.not_a_case.rfind("program: ", 0), 0u) << unverified.not_a_case;
  nlohmann::json bad_recipe = {{"program", ProgramToJson(Mm())}, {"inputs", {{"kind", "nope"}}}};
  EXPECT_EQ(DecodeFuzzInput(bad_recipe.dump(), GenPolicy{}).not_a_case.rfind("inputs: ", 0), 0u);
}

TEST(FuzzInput, GeneratorBytesArePure) {
  const std::string bytes("\x01\x7f\xff\x00\x10 some bytes", 16);  // the NUL inside counts
  FuzzInput a = DecodeFuzzInput(bytes, GenPolicy{}), b = DecodeFuzzInput(bytes, GenPolicy{});
  EXPECT_EQ(a.kind, FuzzInputKind::kChoices);
  EXPECT_EQ(a.gc.program, b.gc.program);
  EXPECT_EQ(a.gc.recipe, b.gc.recipe);
  EXPECT_TRUE(Verify(a.gc.program).ok());
}

}  // namespace
}  // namespace mmdiff
