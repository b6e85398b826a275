// Tests for call sequences: a call's program keeps the case's function, the JSON form round-trips
// and rejects what does not fit the case, and reduction carries the calls' sizes to a smaller case.
#include "src/ir/call_sequence.h"

#include <gtest/gtest.h>

#include "src/ir/test_programs.h"

namespace mmdiff {
namespace {

using test_programs::Mm;

TEST(CallSequence, ACallRunsTheCasesFunctionOnItsOwnShapes) {
  Program p = Mm(3, 5, 7);
  PriorCall c = PriorCallOf(Mm(3, 2, 7), {"exact", 9});
  EXPECT_EQ(c.shapes, (std::vector<Shape>{{3, 2}, {2, 7}}));
  auto q = PriorCallProgram(p, c);
  ASSERT_TRUE(q.ok()) << q.error();
  EXPECT_EQ(q.value(), Mm(3, 2, 7));
}

TEST(CallSequence, ShapesThatDoNotFitTheCaseAreErrors) {
  Program p = Mm(3, 5, 7);
  EXPECT_FALSE(PriorCallProgram(p, {{{3, 5}}, {}}).ok());             // one shape for two inputs
  EXPECT_FALSE(PriorCallProgram(p, {{{3, 5, 1}, {5, 7}}, {}}).ok());  // another rank
  auto bad = PriorCallProgram(p, {{{3, -4}, {5, 7}}, {}});            // a negative size
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("with its shapes"), std::string::npos) << bad.error();
}

TEST(CallSequence, JsonRoundTripsAndNamesTheCallThatIsWrong) {
  Program p = Mm(3, 5, 7);
  std::vector<PriorCall> calls = {PriorCallOf(Mm(3, 2, 7), {"exact", 1}),
                                  PriorCallOf(Mm(4, 5, 7), {"uniform", 2})};
  auto back = PriorCallsFromJson(PriorCallsToJson(calls), p);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), calls);
  auto none = PriorCallsFromJson(nlohmann::json(), p);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none.value().empty());

  nlohmann::json j = PriorCallsToJson(calls);
  j[1]["shapes"][0] = {4, 6, 1};
  auto wrong = PriorCallsFromJson(j, p);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().find("calls_before[1]"), std::string::npos) << wrong.error();
  for (const nlohmann::json& hostile :
       {nlohmann::json("x"), nlohmann::json::array({1}),
        nlohmann::json::array({{{"shapes", {{"a"}}}}}),
        nlohmann::json::array({{{"shapes", {{3, 2}, {2, 7}}}, {"inputs", {{"kind", 3}}}}})})
    EXPECT_FALSE(PriorCallsFromJson(hostile, p).ok()) << hostile.dump();
  nlohmann::json many = nlohmann::json::array();
  for (size_t i = 0; i <= kMaxPriorCalls; ++i) many.push_back(PriorCallsToJson(calls)[0]);
  EXPECT_FALSE(PriorCallsFromJson(many, p).ok());
}

TEST(CallSequence, ReductionCarriesTheCallsSizesToASmallerCase) {
  Program original = Mm(3, 5, 7);
  std::vector<PriorCall> before = {PriorCallOf(Mm(3, 2, 7), {"exact", 1})};  // k: 5 -> 2
  // m shrank from 3 to 1: k still maps 5 -> 2, and m = 1 is not in the map (the call had 3).
  auto carried = CarryPriorCalls(original, before, Mm(1, 5, 7));
  ASSERT_TRUE(carried.has_value());
  ASSERT_EQ(carried->size(), 1u);
  EXPECT_EQ((*carried)[0].shapes, (std::vector<Shape>{{1, 2}, {2, 7}}));
  EXPECT_EQ((*carried)[0].recipe, before[0].recipe);
  // No calls carry to no calls.
  ASSERT_TRUE(CarryPriorCalls(original, {}, Mm(1, 1, 1)).has_value());
  // A call whose sizes are no map of the case's (5 becomes 2 in one input, 5 in the other).
  std::vector<PriorCall> incoherent = {{{{3, 2}, {5, 7}}, {}}};
  EXPECT_FALSE(CarryPriorCalls(original, incoherent, Mm(3, 5, 7)).has_value());
  // A carried call must still fit the candidate: here k becomes so large that m x k inputs
  // no longer fit a worker.
  std::vector<PriorCall> huge = {PriorCallOf(Mm(3, 1 << 20, 7), {"exact", 1})};
  ASSERT_TRUE(CarryPriorCalls(original, huge, Mm(3, 5, 7)).has_value());
  EXPECT_FALSE(CarryPriorCalls(original, huge, Mm(5000, 5, 7)).has_value());
}

}  // namespace
}  // namespace mmdiff
