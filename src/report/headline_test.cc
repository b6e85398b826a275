// Tests for what a report says of a root cause: its headline, which leads with the path at fault
// and shows the example's dtypes, and its bucket, read back from the report as written.
#include "src/report/headline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "oracles/case_run_test_cases.h"
#include "oracles/root_cause.h"
#include "src/ir/recorded_paths.h"
#include "src/report/finding_class.h"
#include "src/report/regression_entry.h"
#include "src/report/report.h"
#include "src/support/hash.h"

namespace mmdiff {
namespace {

using case_test::Seed;
using case_test::SeedResults;

using case_test::Ok;
using case_test::Raises;
using case_test::Signatures;

TEST(RootCause, ACaseWithTwoDivergencesGivesTwoFindingsInTwoBuckets) {
  // The seed bug seen by inductor, and eager on meta accepting what eager on cpu rejects.
  std::vector<PathResult> rs = SeedResults();
  rs.push_back(Ok("eager_meta", DType::kFloat16, {2, 4, 8, 64}, Device::kMeta));
  CaseRun c = JudgeCase(Seed(), {"grid16", 1}, rs);
  ASSERT_EQ(c.verdict.divergences.size(), 2u);
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_NE(findings[0].signature, findings[1].signature);
  // The compiled path's finding leads, and each report is about its own finding.
  EXPECT_EQ(findings[0].signature,
            "error_behaviour|path=inductor|accepts|rule=same_dtype|op=bmm|devices=cpu,cpu");
  EXPECT_EQ(findings[1].signature, "meta|path=eager_meta|skips_check|rule=same_dtype");
  RunContext ctx;
  nlohmann::json a = MakeReport(WithFinding(c, findings[0]), ctx),
                 b = MakeReport(WithFinding(c, findings[1]), ctx);
  EXPECT_EQ(a["bucket"]["hash"], HashHex(findings[0].signature));
  EXPECT_EQ(b["bucket"]["hash"], HashHex(findings[1].signature));
  EXPECT_EQ(a["finding"]["divergence"], findings[0].divergence);
  EXPECT_EQ(b["finding"]["divergence"], findings[1].divergence);
  EXPECT_EQ(
      a["headline"],
      "inductor accepts matmul[bmm](float16, float32) that eager rejects (same_dtype) [filable]");
  EXPECT_EQ(b["headline"],
            "eager_meta accepts matmul[bmm](float16, float32) that eager on cpu rejects "
            "(same_dtype) [error class or meta]");
  EXPECT_EQ(a["version"], kReportFormatVersion);
}

TEST(RootCause, OperandDtypesAndSizesAreExampleDataNotTheKey) {
  CaseRun a = JudgeCase(Seed(), {"grid16", 1}, SeedResults());
  Program other = Seed({3, 5, 2, 8});
  other.inputs[0].dtype = DType::kBFloat16;
  other.inputs[1] = {"x1", {3, 5, 8, 16}, DType::kFloat64};
  CaseRun b = JudgeCase(other, {"grid16", 2}, SeedResults());
  ASSERT_TRUE(b.verdict.diverges());
  EXPECT_EQ(Signatures(a), Signatures(b));
  // The headline still shows the example's dtypes.
  EXPECT_NE(Headline(b).find("bfloat16, float64"), std::string::npos) << Headline(b);
}

// Eager may raise at another node than the contract's first violation (it accepts what the contract
// rejects there, then fails later): the finding is about the node eager raised at, which eager's
// result names. Unused, it is dead-code elimination (seen on 2.15.0: TorchScript accepting programs
// whose addmm of cpu and meta operands eager accepted before it raised at an unused bmm).
TEST(RootCause, TheNodeEagerRaisedAtNamesTheFindingWhereItIsNotTheContracts) {
  Program p;
  p.inputs = {{"x0", {4, 8}, DType::kFloat16},
              {"x1", {8, 2}, DType::kFloat32},
              {"x2", {4, 8}, DType::kFloat32},
              {"x3", {8, 2}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"x0", "x1"}}, {"v1", OpKind::kBmm, {"x2", "x3"}}};
  p.outputs = {"v0"};
  std::vector<PathResult> rs = {Raises("reference", "RuntimeError"),
                                Raises("eager", "RuntimeError"),
                                Ok("torchscript", DType::kFloat32, {4, 2})};
  rs[1].node = "v1";  // eager passed the mm and raised at the unused bmm
  CaseRun dead = JudgeCase(p, {"grid16", 1}, rs);
  ASSERT_EQ(Signatures(dead).size(), 1u);
  EXPECT_EQ(Signatures(dead)[0], "error_behaviour|path=torchscript|unused_op");
  EXPECT_EQ(Headline(dead),
            "torchscript accepts bmm(float32, float32) that eager rejects with RuntimeError, whose "
            "result is unused (dead code eliminated with its error) [filable]");
  // Raised at the contract's own node: the contract's rule and op, as before.
  rs[1].node = "v0";
  CaseRun same = JudgeCase(p, {"grid16", 1}, rs);
  ASSERT_EQ(Signatures(same).size(), 1u);
  EXPECT_EQ(Signatures(same)[0],
            "error_behaviour|path=torchscript|accepts|rule=same_dtype|op=mm|devices=cpu,cpu");
  // Raised at a used node other than the contract's: that node's op, not the contract's rule.
  p.outputs = {"v0", "v1"};
  rs[1].node = "v1";
  rs[2].outputs.push_back(rs[2].outputs[0]);
  CaseRun live = JudgeCase(p, {"grid16", 1}, rs);
  ASSERT_EQ(Signatures(live).size(), 1u);
  EXPECT_EQ(Signatures(live)[0],
            "error_behaviour|path=torchscript|accepts|eager_raises_at_op|op=bmm|devices=cpu,cpu");
}

// Past the contract's violation the contract types nothing: a finding at eager's later node would
// be named "matmul(?, ?)" (seen on 2.11.0: eager's addmv accepted a float32 bias with bfloat16
// matrices, its matmul with a float32 operand raised, inductor promoted through both). It names
// the violation, and where eager raised.
TEST(RootCause, AFindingPastTheViolationNamesTheViolationAndWhereEagerRaised) {
  Program p;
  p.inputs = {{"x0", {2}, DType::kFloat32},
              {"x1", {2, 3}, DType::kBFloat16},
              {"x2", {3}, DType::kBFloat16},
              {"x3", {2, 4}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kAddmv, {"x0", "x1", "x2"}}, {"v1", OpKind::kMatmul, {"v0", "x3"}}};
  p.outputs = {"v1"};
  std::vector<PathResult> rs = {Raises("reference", "RuntimeError"),
                                Raises("eager", "RuntimeError"),
                                Ok("inductor", DType::kFloat32, {4})};
  rs[1].node = "v1";
  CaseRun c = JudgeCase(p, {"grid16", 1}, rs);
  ASSERT_EQ(Signatures(c).size(), 1u);
  EXPECT_EQ(
      Signatures(c)[0],
      "error_behaviour|path=inductor|accepts|eager_raises_at_op|op=addmv|devices=cpu,cpu,cpu");
  EXPECT_EQ(Headline(c),
            "inductor accepts addmv(float32, bfloat16, bfloat16) that eager rejects with "
            "RuntimeError, at matmul [filable]");
}

// Eager accepting the contract's violation and raising at a later node is the contract finding
// of accepting it, whatever it raised later (seen on 2.15.0 in the program fuzzer, then with an
// empty mixed-dtype matmul that the contract wrongly rejected: an IndexError from a later op was
// signed apart from the same matmul accepted alone).
TEST(RootCause, EagerPassingTheViolationAndRaisingLaterAcceptsTheViolation) {
  Program p;
  p.inputs = {{"a", {1, 1, 2}, DType::kFloat64}, {"b", {1, 2, 3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMatmul, {"a", "b"}}};
  p.outputs = {"v0"};
  CaseRun alone =
      JudgeCase(p, {"grid16", 1},
                {Raises("reference", "RuntimeError"), Ok("eager", DType::kFloat64, {1, 1, 3})});
  Program later = p;
  later.nodes.push_back({"v1", OpKind::kTranspose, {"v0"}});
  later.nodes.back().ints = {0, 5};
  later.outputs = {"v1"};
  std::vector<PathResult> rs = {Raises("reference", "RuntimeError"), Raises("eager", "IndexError")};
  rs[1].node = "v1";
  CaseRun raised = JudgeCase(later, {"grid16", 1}, rs);
  ASSERT_EQ(Signatures(alone).size(), 1u);
  EXPECT_EQ(Signatures(alone)[0],
            "contract|path=eager|accepts|rule=same_dtype|op=bmm|devices=cpu,cpu");
  EXPECT_EQ(Signatures(raised), Signatures(alone));
  EXPECT_EQ(
      Headline(raised),
      "eager accepts matmul[bmm](float64, float32) that the contract rejects (same_dtype), then "
      "raises IndexError at transpose [filable]");
  // Raising at the violation itself is another behaviour.
  rs[1].node = "v0";
  EXPECT_NE(Signatures(JudgeCase(later, {"grid16", 1}, rs)), Signatures(alone));
}

// TorchScript eliminates an op whose result is unused, and with it the op's error: one root cause
// per path whatever the op, the kind and the blame, and not the finding of an op whose result is
// used.
TEST(RootCause, AcceptingAProgramWhoseRejectedOpIsUnusedIsOneRootCause) {
  auto dead = [](OpKind op, Shape a, Shape b) {
    Program p;
    p.inputs = {{"x0", a, DType::kFloat16},
                {"x1", b, DType::kFloat32},
                {"x2", {4, 8}, DType::kFloat32},
                {"x3", {8, 2}, DType::kFloat32}};
    p.nodes = {{"v0", op, {"x0", "x1"}}, {"v1", OpKind::kMm, {"x2", "x3"}}};
    p.outputs = {"v1"};
    return p;
  };
  std::vector<PathResult> rs = {Raises("reference", "RuntimeError"),
                                Raises("eager", "RuntimeError"),
                                Ok("torchscript", DType::kFloat32, {4, 2})};
  CaseRun mm = JudgeCase(dead(OpKind::kMm, {4, 8}, {8, 2}), {"grid16", 1}, rs);
  CaseRun bmm = JudgeCase(dead(OpKind::kBmm, {2, 4, 8}, {2, 8, 2}), {"grid16", 1}, rs);
  ASSERT_EQ(Signatures(mm).size(), 1u);
  EXPECT_EQ(Signatures(mm)[0], "error_behaviour|path=torchscript|unused_op");
  EXPECT_EQ(Signatures(mm), Signatures(bmm));
  EXPECT_EQ(
      Headline(bmm),
      "torchscript accepts bmm(float16, float32) that eager rejects (same_dtype), whose result is "
      "unused (dead code eliminated with its error) [filable]");
  // Where TorchScript raises another class at a later op, it skipped the same dead op.
  std::vector<PathResult> later = rs;
  later[2] = Raises("torchscript", "NotImplementedError");
  CaseRun elsewhere = JudgeCase(dead(OpKind::kMm, {4, 8}, {8, 2}), {"grid16", 1}, later);
  ASSERT_EQ(Signatures(elsewhere).size(), 1u);
  EXPECT_EQ(Signatures(elsewhere)[0], "error_behaviour|path=torchscript|unused_op");
  EXPECT_EQ(Headline(elsewhere),
            "torchscript raises NotImplementedError where eager raises RuntimeError on "
            "mm(float16, float32), whose result is unused (dead code eliminated with its error) "
            "[filable]");
  // Where eager raises another class than the contract's, nobody is blamed: the same dead op.
  std::vector<PathResult> unblamed = rs;
  unblamed[1] = Raises("eager", "IndexError");
  CaseRun wrong_class = JudgeCase(dead(OpKind::kMm, {4, 8}, {8, 2}), {"grid16", 1}, unblamed);
  std::vector<std::string> sigs = Signatures(wrong_class);
  EXPECT_NE(std::find(sigs.begin(), sigs.end(), "error_behaviour|path=torchscript|unused_op"),
            sigs.end())
      << ::testing::PrintToString(sigs);
  // The same op with its result used is that op's finding.
  Program live = dead(OpKind::kMm, {4, 8}, {8, 2});
  live.outputs = {"v0", "v1"};
  EXPECT_TRUE(UnusedNode(dead(OpKind::kMm, {4, 8}, {8, 2}), "v0"));
  EXPECT_FALSE(UnusedNode(live, "v0"));
  std::vector<PathResult> both = rs;
  both[2].outputs.insert(both[2].outputs.begin(), both[2].outputs[0]);
  CaseRun used = JudgeCase(live, {"grid16", 1}, both);
  ASSERT_EQ(Signatures(used).size(), 1u);
  EXPECT_EQ(Signatures(used)[0],
            "error_behaviour|path=torchscript|accepts|rule=same_dtype|op=mm|devices=cpu,cpu");
}

TEST(RootCause, TheLowestStageOfTheCompileLadderIsThePathAtFault) {
  // Dynamo alone already accepts: aot_eager and inductor only inherit it. One finding, led by
  // compile_eager, naming the others.
  std::vector<PathResult> rs = SeedResults();
  rs.push_back(Ok("aot_eager", DType::kFloat32, {2, 4, 8, 64}));
  rs.push_back(Ok("compile_eager", DType::kFloat32, {2, 4, 8, 64}));
  CaseRun c = JudgeCase(Seed(), {"grid16", 1}, rs);
  ASSERT_EQ(c.verdict.divergences.size(), 3u);
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(c.verdict.divergences[findings[0].divergence].blamed, "compile_eager");
  EXPECT_EQ(findings[0].also, (std::vector<std::string>{"aot_eager", "inductor"}));
  EXPECT_NE(findings[0].signature.find("path=compile_eager"), std::string::npos);
  EXPECT_EQ(Headline(WithFinding(c, findings[0])),
            "compile_eager accepts matmul[bmm](float16, float32) that eager rejects (same_dtype) "
            "(also: aot_eager, "
            "inductor) [filable]");
  // Where aot_eager raises like eager, inductor is at fault.
  rs[3] = Raises("aot_eager", "RuntimeError");
  rs[4] = Raises("compile_eager", "RuntimeError");
  CaseRun d = JudgeCase(Seed(), {"grid16", 1}, rs);
  ASSERT_EQ(CaseFindings(d).size(), 1u);
  EXPECT_NE(CaseFindings(d)[0].signature.find("path=inductor"), std::string::npos);
}

TEST(RootCause, ADisagreementBlamedOnEagerIsFoldedIntoEagersContractFinding) {
  // Eager returns the float16 @ float32 product the contract rejects; inductor raises as the
  // contract says: one root cause (eager's), not two.
  std::vector<PathResult> rs = {Raises("reference", "RuntimeError"),
                                Ok("eager", DType::kFloat32, {2, 4, 8, 64}),
                                Raises("inductor", "RuntimeError")};
  CaseRun c = JudgeCase(Seed(), {"grid16", 1}, rs);
  ASSERT_EQ(c.verdict.divergences.size(), 2u);  // error_behaviour blamed on eager, contract
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(c.verdict.divergences[findings[0].divergence].kind, DivergenceKind::kContract);
  EXPECT_TRUE(findings[0].also.empty());  // inductor follows the contract: not at fault
  EXPECT_EQ(findings[0].signature,
            "contract|path=eager|accepts|rule=same_dtype|op=bmm|devices=cpu,cpu");
  EXPECT_EQ(Headline(WithFinding(c, findings[0])),
            "eager accepts matmul[bmm](float16, float32) that the contract rejects (same_dtype) "
            "[filable]");
}

TEST(RootCause, MatmulsMvPathAndMvAreOneOpFamily) {
  // float16[3, 7, 16] @ float32[16] reaches mv: inductor promoting it is inductor's mv, as for mv
  // itself.
  Program via_matmul;
  via_matmul.inputs = {{"a", {7, 16}, DType::kFloat16}, {"b", {16}, DType::kFloat32}};
  via_matmul.nodes = {{"v0", OpKind::kMatmul, {"a", "b"}}};
  via_matmul.outputs = {"v0"};
  Program direct = via_matmul;
  direct.nodes[0].op = OpKind::kMv;
  auto results = [] {
    return std::vector<PathResult>{Raises("reference", "RuntimeError"),
                                   Raises("eager", "RuntimeError"),
                                   Ok("inductor", DType::kFloat32, {7})};
  };
  CaseRun a = JudgeCase(via_matmul, {"grid16", 1}, results()),
          b = JudgeCase(direct, {"grid16", 1}, results());
  ASSERT_TRUE(a.verdict.diverges());
  EXPECT_EQ(Signatures(a), Signatures(b));
  EXPECT_NE(Headline(a).find("matmul[mv](float16, float32)"), std::string::npos) << Headline(a);
}

TEST(RootCause, EagerOnMetaSkippingDtypeChecksIsOneRootCauseWhateverTheOpOrPath) {
  // The eager_meta path on a cpu program, and eager itself on a meta program, accepting float16
  // with float32 in mm or in bmm: torch's meta registrations skip the family's dtype checks.
  std::vector<PathResult> meta_path = SeedResults();
  meta_path.pop_back();
  meta_path.push_back(Ok("eager_meta", DType::kFloat16, {2, 4, 8, 64}, Device::kMeta));
  CaseRun a = JudgeCase(Seed(), {"grid16", 1}, meta_path);
  Program on_meta = Seed({8, 8});
  on_meta.inputs[1].shape = {8, 64};
  for (auto& in : on_meta.inputs) in.device = Device::kMeta;
  on_meta.nodes[0].op = OpKind::kMm;
  std::vector<PathResult> eager_on_meta = {Raises("reference", "RuntimeError"),
                                           Ok("eager", DType::kFloat16, {8, 64}, Device::kMeta)};
  CaseRun b = JudgeCase(on_meta, {"grid16", 1}, eager_on_meta);
  ASSERT_EQ(Signatures(a).size(), 1u);
  EXPECT_EQ(Signatures(a), Signatures(b));
  EXPECT_EQ(Headline(b),
            "eager on meta accepts mm(float16, float32) that the contract rejects (same_dtype) "
            "[error class or meta]");
  // A wrong-device operand on meta is another rule: another root cause.
  Program bias = on_meta;
  bias.inputs[0].device = Device::kCpu;
  CaseRun c = JudgeCase(bias, {"grid16", 1}, eager_on_meta);
  ASSERT_FALSE(Signatures(c).empty());
  EXPECT_NE(Signatures(c), Signatures(b));
}

TEST(RootCause, MetaPassingTheNodeEagerRejectsIsNamedWithTheNodeItFailsAt) {
  // bool mm: eager on cpu raises NotImplementedError at v0; eager on meta has no such check, gets
  // past it and raises at v1, a float16 @ float32 mm. The headline says both, in that order.
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kBool},
              {"b", {3, 4}, DType::kBool},
              {"c", {2, 3}, DType::kFloat16},
              {"d", {3, 4}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}, {"v1", OpKind::kMm, {"c", "d"}}};
  p.outputs = {"v0", "v1"};
  auto at = [](PathResult r, const std::string& node) {
    r.node = node;
    return r;
  };
  std::vector<PathResult> rs = {at(Raises("reference", "NotImplementedError"), "v0"),
                                at(Raises("eager", "NotImplementedError"), "v0"),
                                at(Raises("eager_meta", "RuntimeError"), "v1")};
  CaseRun c = JudgeCase(p, {"grid16", 1}, rs);
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u) << VerdictToJson(c.verdict).dump();
  ASSERT_EQ(c.verdict.divergences[findings[0].divergence].kind, DivergenceKind::kMeta);
  EXPECT_EQ(MakeReport(WithFinding(c, findings[0]), RunContext())["headline"],
            "eager_meta accepts mm(bool, bool) where eager on cpu raises NotImplementedError, then "
            "raises RuntimeError at mm [error class or meta]");
  // Failing at the same node, the headline is as before.
  rs[2].node = "v0";
  c = JudgeCase(p, {"grid16", 1}, rs);
  findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(MakeReport(WithFinding(c, findings[0]), RunContext())["headline"],
            "eager_meta raises RuntimeError on mm(bool, bool) where eager on cpu raises "
            "NotImplementedError [error class or meta]");
}

TEST(RootCause, WhetherThePathAtFaultCompilesIsItsTraitNotItsName) {
  // The same bool mm and results; only what the worker says about the path at fault differs. A
  // path that compiles raising another class is one root cause whatever the op, and its headline
  // carries PyTorch's classification; a path that does not compile, whatever its name, neither.
  Program p;
  p.inputs = {{"a", {4, 8}, DType::kBool}, {"b", {8, 3}, DType::kBool}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  auto run = [&](const std::string& path, bool compiled) {
    PathResult other = Raises(path, "RuntimeError");
    other.traits = PathTraits{.compiled = compiled};
    return JudgeCase(p, {"grid16", 1},
                     {Raises("reference", "NotImplementedError"),
                      Raises("eager", "NotImplementedError"), other});
  };
  CaseRun compiled = run("some_compiler", true), not_compiled = run("inductor", false);
  EXPECT_EQ(Signatures(compiled),
            std::vector<std::string>{
                "error_class|path=some_compiler|raises:RuntimeError|rule=supported_dtype"});
  EXPECT_EQ(Signatures(not_compiled),
            std::vector<std::string>{"error_class|path=inductor|raises:RuntimeError|rule=supported_"
                                     "dtype|op=mm|devices=cpu,cpu"});
  // Both raise, with another error class: neither is filable as a compiler bug.
  EXPECT_NE(Headline(compiled).find("[error class or meta]"), std::string::npos)
      << Headline(compiled);
  // A regression entry names its blamed path only: the caller says what it is.
  RootCauseFacts expected = ExpectedFacts(compiled.contract, DivergenceKind::kErrorClass,
                                          "some_compiler", PathTraits{.compiled = true});
  EXPECT_TRUE(expected.compiled);
  EXPECT_EQ(RootCausePrefix(RootCauseSignature(p, compiled.contract, expected)),
            "error_class|path=some_compiler|raises:?|rule=supported_dtype");
  EXPECT_FALSE(
      ExpectedFacts(compiled.contract, DivergenceKind::kErrorClass, "inductor", PathTraits{})
          .compiled);
}

TEST(RootCause, ACompiledPathsFindingUnderAutocastIsARootCauseOfItsOwnAndEagersIsNot) {
  // mm(float32, float32) in a cpu bfloat16 region: eager and the reference give bfloat16.
  Program p;
  p.inputs = {{"a", {4, 8}, DType::kFloat32}, {"b", {8, 3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.nodes[0].autocast = 0;
  p.outputs = {"v0"};
  p.autocast = {{Device::kCpu, DType::kBFloat16, true, std::nullopt}};
  auto run = [&](const std::string& path, bool compiled) {
    PathResult other = Ok(path, DType::kFloat32, {4, 3});
    other.traits = PathTraits{.compiled = compiled};
    return JudgeCase(
        p, {"grid16", 1},
        {Ok("reference", DType::kBFloat16, {4, 3}), Ok("eager", DType::kBFloat16, {4, 3}), other});
  };
  CaseRun compiled = run("inductor", true), plain = run("planted", false);
  ASSERT_EQ(Signatures(compiled).size(), 1u);
  EXPECT_NE(Signatures(compiled)[0].find("|autocast|op=mm"), std::string::npos)
      << Signatures(compiled)[0];
  ASSERT_EQ(Signatures(plain).size(), 1u);
  EXPECT_EQ(Signatures(plain)[0].find("autocast"), std::string::npos) << Signatures(plain)[0];
  // Either way the headline says where the dtype came from.
  EXPECT_NE(Headline(compiled).find("mm(float32, float32) under autocast(cpu, bfloat16)"),
            std::string::npos)
      << Headline(compiled);
}

TEST(RootCause, AnAcceptedProgramIsLocatedAtTheOpBehindItsDivergingOutput) {
  // mm, then a cast: inductor's float16 result where eager's is float32 is the mm's.
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat32}, {"b", {3, 4}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}, {"v1", OpKind::kTranspose, {"v0"}}};
  p.nodes[1].ints = {0, 1};
  p.outputs = {"v1"};
  std::vector<PathResult> rs = {Ok("reference", DType::kFloat32, {4, 2}),
                                Ok("eager", DType::kFloat32, {4, 2}),
                                Ok("inductor", DType::kFloat16, {4, 2})};
  CaseRun c = JudgeCase(p, {"grid16", 1}, rs);
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].signature, "dtype|path=inductor|returns|op=mm|devices=cpu,cpu");
  EXPECT_EQ(Headline(WithFinding(c, findings[0])),
            "inductor returns float16[4, 2]@cpu for mm(float32, float32) where eager returns "
            "float32[4, 2]@cpu [filable]");
}

TEST(RootCause, ARegressionEntrysExpectationSignsLikeTheCaseItDescribes) {
  // What the catalogue computes from an entry (program + expected kind and blame) must equal what a
  // campaign computes from the run, or known behaviours would be reported as new.
  CaseRun seed = JudgeCase(Seed(), {"grid16", 1}, SeedResults());
  EXPECT_EQ(RootCauseSignature(seed.program, seed.contract,
                               ExpectedFacts(seed.contract, DivergenceKind::kErrorBehaviour,
                                             "inductor", RecordedPathTraits("inductor"))),
            Signatures(seed)[0]);
  std::vector<PathResult> rs = SeedResults();
  rs.pop_back();
  rs.push_back(Ok("eager_meta", DType::kFloat16, {2, 4, 8, 64}, Device::kMeta));
  CaseRun meta = JudgeCase(Seed(), {"grid16", 1}, rs);
  EXPECT_EQ(RootCauseSignature(meta.program, meta.contract,
                               ExpectedFacts(meta.contract, DivergenceKind::kMeta, "eager_meta",
                                             RecordedPathTraits("eager_meta"))),
            Signatures(meta)[0]);
}

TEST(RootCause, ACrashIsLocatedByPathAndStageAndItsHeadlineIsOneLine) {
  PathResult crash{"inductor", OutcomeKind::kCrash};
  crash.stage = "compile";
  crash.message =
      "worker killed by signal 6 (Aborted)\n--- worker stderr (tail) ---\n  what():  "
      "std::bad_alloc\n";
  std::vector<PathResult> rs = SeedResults();
  rs[2] = crash;
  CaseRun c = JudgeCase(Seed(), {"grid16", 1}, rs);
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].signature,
            "crash|path=inductor|stage:compile|rule=same_dtype|op=bmm|devices=cpu,cpu");
  EXPECT_EQ(
      Headline(c),
      "inductor crashes in stage \"compile\" on matmul[bmm](float16, float32): worker killed by "
      "signal 6 (Aborted) ... what():  std::bad_alloc [filable]");
}

TEST(RootCause, AReportReadBackSignsItsFindingAgain) {
  std::vector<PathResult> rs = SeedResults();
  rs.push_back(Ok("eager_meta", DType::kFloat16, {2, 4, 8, 64}, Device::kMeta));
  CaseRun c = JudgeCase(Seed(), {"grid16", 1}, rs);
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 2u);
  nlohmann::json report = MakeReport(WithFinding(c, findings[1]), RunContext{});
  auto judged = ReadJudgedCase(report);
  ASSERT_TRUE(judged.ok()) << judged.error();
  EXPECT_EQ(ReportRootCauses(judged.value()), std::vector<std::string>{findings[1].signature});
  // A version 1 report (one bucket for the whole case) is still read: every finding of its case.
  report["version"] = 1;
  report.erase("finding");
  judged = ReadJudgedCase(report);
  ASSERT_TRUE(judged.ok()) << judged.error();
  EXPECT_EQ(ReportRootCauses(judged.value()),
            (std::vector<std::string>{findings[0].signature, findings[1].signature}));
  report["version"] = 3;
  EXPECT_FALSE(ReadJudgedCase(report).ok());
}

}  // namespace
}  // namespace mmdiff
