// Tests of the structural edits the reducer builds its candidates from.
#include "src/reduce/program_edits.h"

#include <gtest/gtest.h>

#include "src/ir/verifier.h"
#include "src/reduce/reduce_session.h"
#include "src/reduce/reduce_test_programs.h"
#include "src/reduce/shrink_dims.h"

namespace mmdiff {
namespace {

// a, b: float32 [4, 4]; c = a + b; d = c.half(); e = d @ d; g = a @ b (dead unless an output).
Program Chain() {
  Program p;
  p.inputs = {
      {"a", {4, 4}, DType::kFloat32}, {"b", {4, 4}, DType::kFloat32}, {"u", {2}, DType::kFloat32}};
  p.nodes = {reduce_test::MakeNode("c", OpKind::kAdd, {"a", "b"}),
             reduce_test::MakeNode("d", OpKind::kCast, {"c"}),
             reduce_test::MakeNode("e", OpKind::kMm, {"d", "d"}),
             reduce_test::MakeNode("g", OpKind::kMm, {"a", "b"})};
  p.nodes[1].dtype = DType::kFloat16;
  p.outputs = {"e"};
  return p;
}

std::vector<std::string> NodeNames(const Program& p) {
  std::vector<std::string> out;
  for (const auto& n : p.nodes) out.push_back(n.name);
  return out;
}

TEST(ProgramEdits, TidyDropsDeadNodesAndUnusedInputs) {
  Program t = Tidy(Chain());
  EXPECT_EQ(NodeNames(t), (std::vector<std::string>{"c", "d", "e"}));
  ASSERT_EQ(t.inputs.size(), 2u);
  EXPECT_EQ(t.inputs[0].name, "a");
  EXPECT_EQ(t.inputs[1].name, "b");
  EXPECT_TRUE(Verify(t).ok());
}

TEST(ProgramEdits, SubstitutesPutSameTypedArgumentsFirst) {
  Program p = Chain();
  auto types = InferStaticTypes(p);
  // c: float32 [4, 4]: its arguments a and b have its type; d (float16) has none.
  EXPECT_EQ(Substitutes(p, types, "c"), (std::vector<std::string>{"a", "b"}));
  // d: float16 [4, 4]: no value of its type, so only its argument (of another dtype).
  EXPECT_EQ(Substitutes(p, types, "d"), (std::vector<std::string>{"c"}));
  EXPECT_TRUE(Substitutes(p, types, "nope").empty());
}

TEST(ProgramEdits, RemoveNodesReroutesThroughSameTypedArgumentsOrCascades) {
  Program p = Chain();
  auto types = InferStaticTypes(p);
  // Removing c reroutes d to a.
  Program r = RemoveNodes(p, types, {"c"});
  EXPECT_EQ(NodeNames(r), (std::vector<std::string>{"d", "e"}));
  EXPECT_EQ(r.nodes[0].args, (std::vector<std::string>{"a"}));
  EXPECT_TRUE(Verify(r).ok());
  // Removing d has no same-typed substitute: e goes with it, the output falls back to the last node
  // left (g), and c, which g does not read, goes too.
  Program cascade = RemoveNodes(p, types, {"d"});
  EXPECT_EQ(NodeNames(cascade), (std::vector<std::string>{"g"}));
  EXPECT_EQ(cascade.outputs, (std::vector<std::string>{"g"}));
  EXPECT_TRUE(Verify(cascade).ok()) << Verify(cascade).message();
}

TEST(ProgramEdits, BypassAndKeepOnlyOutput) {
  Program p = Chain();
  Program b = Bypass(p, "d", "c");
  EXPECT_EQ(NodeNames(b), (std::vector<std::string>{"c", "e"}));
  EXPECT_EQ(b.nodes[1].args, (std::vector<std::string>{"c", "c"}));
  Program k = KeepOnlyOutput(p, "c");
  EXPECT_EQ(NodeNames(k), (std::vector<std::string>{"c"}));
  EXPECT_EQ(k.outputs, (std::vector<std::string>{"c"}));
}

TEST(ProgramEdits, ReplaceSizeChangesInputsAndSizeAttributes) {
  Program p;
  p.inputs = {{"a", {6, 3}, DType::kFloat32}};
  p.nodes = {reduce_test::MakeNode("r", OpKind::kReshape, {"a"}),
             reduce_test::MakeNode("n", OpKind::kNarrow, {"a"}),
             reduce_test::MakeNode("f", OpKind::kFull, {"a"})};  // a causal mask's ones
  p.nodes[0].ints = {3, 6};
  p.nodes[1].ints = {0, 0, 6};
  p.nodes[2].ints = {6, 6};
  p.outputs = {"r", "n", "f"};
  Program q = ReplaceSize(p, 6, 2);
  EXPECT_EQ(q.inputs[0].shape, (Shape{2, 3}));
  EXPECT_EQ(q.nodes[0].ints, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(q.nodes[1].ints, (std::vector<int64_t>{0, 0, 2}));  // the dim index 0 is not a size
  EXPECT_EQ(q.nodes[2].ints, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(ShapeValidNodes(q), ShapeValidNodes(p));
}

TEST(ProgramEdits, ComplexityOrdersDTypesAndNeedsAStrictImprovement) {
  EXPECT_LT(DTypeRank(DType::kFloat32), DTypeRank(DType::kFloat64));
  EXPECT_LT(DTypeRank(DType::kFloat64), DTypeRank(DType::kFloat16));
  EXPECT_LT(DTypeRank(DType::kBFloat16), DTypeRank(DType::kInt64));
  EXPECT_LT(DTypeRank(DType::kUInt8), DTypeRank(DType::kBool));
  Program p = Chain();
  Complexity c = MeasureComplexity(p, {});
  EXPECT_FALSE(SimplerThan(c, c));
  Program smaller = Tidy(p);
  EXPECT_TRUE(SimplerThan(MeasureComplexity(smaller, {}), c));
  // Fewer nodes but a larger input is not simpler.
  smaller.inputs[0].shape = {4, 5};
  EXPECT_FALSE(SimplerThan(MeasureComplexity(smaller, {}), c));
}

}  // namespace
}  // namespace mmdiff
