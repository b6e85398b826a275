// Tests for what a reduction candidate must keep of the original finding.
#include "src/campaign/reduce_finding.h"

#include <gtest/gtest.h>

#include "oracles/case_run_test_cases.h"
#include "oracles/root_cause.h"

namespace mmdiff {
namespace {

TEST(ReduceFinding, ACandidateKeepsTheFindingOnlyWithItsClassification) {
  // The seed bug: inductor accepts what eager rejects, a filable finding.
  CaseRun original = JudgeCase(case_test::Seed(), {"grid16", 1}, case_test::SeedResults());
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

// Eager accepted a cpu/meta mm (the contract's first violation), then rejected the addmm whose
// mixed dtypes TorchScript's decomposition accepts: signed at eager's node. A candidate without
// the mm, where the contract reaches the addmm, keeps that finding (seen on 2.15.0 in the program
// fuzzer: such a finding could not reduce to the catalogued addmm case and was listed as new).
TEST(ReduceFinding, ACandidateWhereTheContractReachesEagersNodeKeepsTheFinding) {
  auto run = [](bool with_meta_mm, OpKind op, DType a = DType::kFloat32) {
    Program p;
    p.inputs = {{"c", {4, 2}, DType::kFloat64}, {"a", {4, 8}, a}, {"b", {8, 2}, DType::kFloat32}};
    p.nodes = {{"v1", op, {"c", "a", "b"}}};
    if (op == OpKind::kMm) p.nodes[0].args.erase(p.nodes[0].args.begin());
    p.outputs = {"v1"};
    if (with_meta_mm) {
      p.inputs.push_back({"m", {4, 8}, DType::kFloat32, Device::kMeta});
      p.nodes.insert(p.nodes.begin(), {"v0", OpKind::kMm, {"m", "b"}});
      p.outputs.push_back("v0");
    }
    PathResult ref{"reference", OutcomeKind::kError}, eager{"eager", OutcomeKind::kError},
        ts{"torchscript", OutcomeKind::kOk};
    ref.error_class = eager.error_class = "RuntimeError";
    eager.node = "v1";
    ts.outputs.push_back({DType::kFloat64, {4, 2}, Device::kCpu, {}, {}});
    if (with_meta_mm) ts.outputs.push_back({DType::kFloat32, {4, 2}, Device::kMeta, {}, {}});
    return JudgeCase(p, {"grid16", 1}, {ref, eager, ts});
  };
  CaseRun original = run(true, OpKind::kAddmm);
  FindingKey lead = CaseFinding(original);
  ASSERT_NE(lead.signature.find("|eager_raises_at_op|op=addmm"), std::string::npos)
      << lead.signature;
  const std::string cls = original.verdict.divergences.at(lead.divergence).classification;
  CaseRun reduced = run(false, OpKind::kAddmm);
  ASSERT_NE(CaseFinding(reduced).signature.find("|rule=same_dtype|op=addmm"), std::string::npos);
  EXPECT_NE(KeptFinding(CaseFindings(reduced), reduced.verdict, lead.signature, cls), nullptr);
  // The contract reaching another op is another finding.
  CaseRun other = run(false, OpKind::kMm, DType::kFloat16);
  ASSERT_NE(CaseFinding(other).signature.find("|rule=same_dtype|op=mm"), std::string::npos);
  EXPECT_EQ(KeptFinding(CaseFindings(other), other.verdict, lead.signature, cls), nullptr);
}

}  // namespace
}  // namespace mmdiff
