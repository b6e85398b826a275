// Tests for Inductor's addmm fusion as a report states it: a bias added to the unrounded product,
// no less accurately than eager, is by design, and its headline says why.
#include <gtest/gtest.h>

#include "oracles/case_run_test_cases.h"
#include "oracles/root_cause.h"
#include "src/report/finding_class.h"
#include "src/report/headline.h"
#include "src/report/report.h"

namespace mmdiff {
namespace {

using case_test::BiasAdd;
using case_test::Classify;
using case_test::kAddmmFused;

TEST(AddmmFusion, TheHeadlineNamesTheFusionAndTheClassIsByDesign) {
  CaseRun c = BiasAdd(0.144531, kAddmmFused);
  Classify(c, 0.1444);
  const std::string signature = CaseFinding(c).signature;
  EXPECT_EQ(ClassOfRootCause(signature), FindingClass::kByDesign);
  EXPECT_EQ(Headline(c).rfind("inductor computes add(bfloat16, bfloat16) beyond the rounding bound "
                              "(got 0.144531, reference 0.140625",
                              0),
            0u)
      << Headline(c);
  EXPECT_NE(Headline(c).find(", fused with its mm into addmm (post_grad.addmm), but no less "
                             "accurately than eager (RMSE "),
            std::string::npos)
      << Headline(c);
  const std::string tag =
      "[by design: addmm adds the bias before rounding the product, no less accurate]";
  EXPECT_EQ(Headline(c).substr(Headline(c).size() - tag.size()), tag) << Headline(c);
  // Read back from its report, it signs the same.
  EXPECT_EQ(MakeReport(c, RunContext{})["bucket"]["signature"], signature);
  // Without the rewrite, neither the class nor the words.
  CaseRun unfused = BiasAdd(0.144531, {});
  Classify(unfused, 0.1444);
  EXPECT_NE(ClassOfRootCause(CaseFinding(unfused).signature), FindingClass::kByDesign);
  EXPECT_EQ(Headline(unfused).find("addmm"), std::string::npos) << Headline(unfused);
}

}  // namespace
}  // namespace mmdiff
