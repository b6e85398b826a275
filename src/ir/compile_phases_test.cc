#include "src/ir/compile_phases.h"

#include <gtest/gtest.h>

#include <limits>

namespace mmdiff {
namespace {

TEST(CompilePhases, RoundTripAndSum) {
  CompilePhases a;
  a.dynamo = 0.5;
  a.run = 0.25;
  CompilePhases b;
  b.dynamo = 1;
  b.cpp_compile = 2;
  a += b;
  EXPECT_EQ(a.dynamo, 1.5);
  EXPECT_EQ(a.cpp_compile, 2);
  EXPECT_EQ(a.run, 0.25);
  nlohmann::json j = CompilePhasesToJson(a);
  EXPECT_EQ(j.size(), CompilePhaseFields().size());
  auto back = CompilePhasesFromJson(j);
  ASSERT_TRUE(back.ok()) << back.error();
  for (const CompilePhaseField& f : CompilePhaseFields())
    EXPECT_EQ(back.value().*f.seconds, a.*f.seconds) << f.name;
  // A part left out is zero: an older worker may know fewer.
  EXPECT_EQ(CompilePhasesFromJson({{"dynamo", 1.0}}).value().run, 0);
}

TEST(CompilePhases, HostileValuesAreErrors) {
  for (const nlohmann::json& bad :
       {nlohmann::json::array(), nlohmann::json({{"dynamo", "1"}}), nlohmann::json({{"run", -0.5}}),
        nlohmann::json({{"run", std::numeric_limits<double>::infinity()}}),
        nlohmann::json({{"compile_everything", 1.0}})})
    EXPECT_FALSE(CompilePhasesFromJson(bad).ok()) << bad.dump();
}

}  // namespace
}  // namespace mmdiff
