// Tests for what a reduction candidate must keep of the original finding.
#include "src/campaign/reduce_finding.h"

#include <gtest/gtest.h>

#include "src/report/report_test_cases.h"
#include "src/report/root_cause.h"

namespace mmdiff {
namespace {

TEST(ReduceFinding, ACandidateKeepsTheFindingOnlyWithItsClassification) {
  // The seed bug: inductor accepts what eager rejects, a filable finding.
  CaseRun original = MakeCaseRun(report_test::Seed(), {"grid16", 1}, report_test::SeedResults());
  FindingKey lead = CaseFinding(original);
  const std::string cls = original.verdict.divergences.at(lead.divergence).classification;
  ASSERT_EQ(cls, "filable");
  auto findings = CaseFindings(original);
  const FindingKey* kept = KeptFinding(findings, original.verdict, lead.signature, cls);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->divergence, lead.divergence);
  // The same root cause, classified otherwise: not the same finding.
  Verdict other = original.verdict;
  other.divergences[lead.divergence].classification = "precision-only";
  EXPECT_EQ(KeptFinding(findings, other, lead.signature, cls), nullptr);
  EXPECT_NE(KeptFinding(findings, other, lead.signature, "precision-only"), nullptr);
  // Another root cause: not kept, whatever the classification.
  EXPECT_EQ(KeptFinding(findings, original.verdict,
                        "value|path=inductor|values|op=mm|devices=cpu,cpu", cls),
            nullptr);
}

}  // namespace
}  // namespace mmdiff
