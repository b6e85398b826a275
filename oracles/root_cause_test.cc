// Tests for root causes: one finding per divergence, signatures that leave operand dtypes and sizes
// out but keep the path at fault, the rule and the op family.
#include "oracles/root_cause.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "oracles/case_run_test_cases.h"
#include "src/ir/recorded_paths.h"
#include "src/ir/test_programs.h"

namespace mmdiff {
namespace {

using case_test::Ok;
using case_test::Raises;
using case_test::Seed;
using case_test::SeedResults;
using case_test::Signatures;

TEST(RootCause, DifferentPathsAtFaultAreDifferentBuckets) {
  std::vector<PathResult> ts = SeedResults();
  ts[2].path = "torchscript";
  CaseRun a = JudgeCase(Seed(), {"grid16", 1}, SeedResults());
  CaseRun b = JudgeCase(Seed(), {"grid16", 1}, ts);
  ASSERT_EQ(Signatures(a).size(), 1u);
  ASSERT_EQ(Signatures(b).size(), 1u);
  EXPECT_NE(Signatures(a), Signatures(b));
  // So are another rule's violation, another op family, and another behaviour of the same path.
  Program flat = Seed({8, 8});
  flat.inputs[1].shape = {8, 64};
  CaseRun f = JudgeCase(flat, {"grid16", 1}, SeedResults());
  EXPECT_NE(Signatures(a), Signatures(f));
  EXPECT_NE(Signatures(f)[0].find("op=mm|"), std::string::npos) << Signatures(f)[0];
}

TEST(RootCause, AFindingAtEagersNodeIsTheContractsFindingThereOnceTheContractReachesIt) {
  const std::string at_eager =
      "error_behaviour|path=torchscript|accepts|eager_raises_at_op|op=addmm|devices=?,cpu,?";
  EXPECT_TRUE(SameCauseAtEagersNode(
      at_eager,
      "error_behaviour|path=torchscript|accepts|rule=same_dtype|op=addmm|devices=cpu,cpu,cpu"));
  // Another op, path or behaviour: another finding.
  EXPECT_FALSE(SameCauseAtEagersNode(
      at_eager, "error_behaviour|path=torchscript|accepts|rule=same_dtype|op=mm|devices=cpu,cpu"));
  EXPECT_FALSE(SameCauseAtEagersNode(
      at_eager,
      "error_behaviour|path=inductor|accepts|rule=same_dtype|op=addmm|devices=cpu,cpu,cpu"));
  EXPECT_FALSE(SameCauseAtEagersNode(at_eager,
                                     "error_behaviour|path=torchscript|raises:IndexError|rule=same_"
                                     "dtype|op=addmm|devices=cpu,cpu,cpu"));
  // Only a finding signed at eager's node is relocated so.
  EXPECT_FALSE(SameCauseAtEagersNode(
      "error_behaviour|path=torchscript|accepts|rule=same_device|op=addmm|devices=cpu,meta,cpu",
      "error_behaviour|path=torchscript|accepts|rule=same_dtype|op=addmm|devices=cpu,cpu,cpu"));
}

// Unblamed divergences (neither side follows the contract) lower along the ladder too: aot_eager
// and inductor returning the same wrong dtype are one finding, at aot_eager.
TEST(RootCause, AnUnblamedDivergenceStartsAtTheLowestStageThatShowsIt) {
  Program p = Seed({8, 8});
  p.inputs[1].shape = {8, 64};
  std::vector<PathResult> rs = {
      Raises("reference", "RuntimeError"), Ok("eager", DType::kFloat16, {8, 64}),
      Ok("aot_eager", DType::kFloat32, {8, 64}), Ok("inductor", DType::kFloat32, {8, 64})};
  CaseRun c = JudgeCase(p, {"grid16", 1}, rs);
  std::vector<std::string> compiled;
  for (const auto& s : Signatures(c))
    if (s.find("aot_eager") != std::string::npos || s.find("inductor") != std::string::npos)
      compiled.push_back(s);
  ASSERT_EQ(compiled.size(), 1u) << ::testing::PrintToString(Signatures(c));
  EXPECT_NE(compiled[0].find("path=?(aot_eager)"), std::string::npos) << compiled[0];
}

// A knob variant that diverges as inductor does shows inductor's fault: one finding, led by
// inductor, naming the variant too. A divergence only the variant has is the variant's own.
TEST(RootCause, AVariantDivergingAsItsBasePathDoesIsThatPathsFinding) {
  std::vector<PathResult> both = SeedResults();  // inductor accepts what eager rejects
  PathResult wrapper = both[2];
  wrapper.path = "inductor_cpp_wrapper";
  wrapper.traits = RecordedPathTraits(wrapper.path);
  both.push_back(wrapper);
  CaseRun c = JudgeCase(Seed(), {"grid16", 1}, both);
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u) << ::testing::PrintToString(Signatures(c));
  EXPECT_NE(findings[0].signature.find("path=inductor|"), std::string::npos)
      << findings[0].signature;
  EXPECT_EQ(c.verdict.divergences[findings[0].divergence].blamed, "inductor");
  EXPECT_EQ(findings[0].also, (std::vector<std::string>{"inductor_cpp_wrapper"}));
  // Without inductor diverging (it agrees with eager), the variant's finding is its own.
  std::vector<PathResult> only = {both[0], both[1], Raises("inductor", "RuntimeError"), wrapper};
  CaseRun v = JudgeCase(Seed(), {"grid16", 1}, only);
  ASSERT_EQ(Signatures(v).size(), 1u);
  EXPECT_NE(Signatures(v)[0].find("path=inductor_cpp_wrapper|"), std::string::npos)
      << Signatures(v)[0];
}

TEST(RootCause, EagerOnMetaOperandsAcceptingOrRaisingAnotherClassIsOneRootCausePerRule) {
  // mm and bmm of a meta and a cpu operand: eager raises IndexError or NotImplementedError, or
  // returns, where the contract expects the device RuntimeError: the device check is missing
  // whatever happens next. The op and the class do not matter, the rule does.
  auto signatures = [](OpKind op, const std::string& cls) {
    bool batched = op == OpKind::kBmm;
    Program p;
    p.inputs = {{"a", batched ? Shape{1, 1, 1} : Shape{1, 1}, DType::kFloat32, Device::kMeta},
                {"b", batched ? Shape{1, 1, 1} : Shape{1, 1}, DType::kFloat32}};
    p.nodes = {{"v0", op, {"a", "b"}}};
    p.outputs = {"v0"};
    PathResult eager = cls.empty() ? Ok("eager", DType::kFloat32,
                                        batched ? Shape{1, 1, 1} : Shape{1, 1}, Device::kMeta)
                                   : Raises("eager", cls);
    return Signatures(JudgeCase(p, {"grid16", 1}, {Raises("reference", "RuntimeError"), eager}));
  };
  auto mm = signatures(OpKind::kMm, "IndexError");
  ASSERT_EQ(mm.size(), 1u);
  EXPECT_EQ(mm[0], "meta|path=eager_meta|skips_check|rule=same_device");
  EXPECT_EQ(mm, signatures(OpKind::kBmm, "IndexError"));
  EXPECT_EQ(mm, signatures(OpKind::kMm, "NotImplementedError"));
  EXPECT_EQ(mm, signatures(OpKind::kMm, ""));  // eager returns
  // A dtype rule broken on meta operands is another root cause.
  Program p;
  p.inputs = {{"a", {1, 1}, DType::kFloat16, Device::kMeta},
              {"b", {1, 1}, DType::kFloat32, Device::kMeta}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  EXPECT_NE(mm, Signatures(JudgeCase(
                    p, {"grid16", 1},
                    {Raises("reference", "RuntimeError"), Raises("eager", "IndexError")})));
}

TEST(RootCause, MetaThatFollowsTheContractRestatesEagersContractFinding) {
  // Eager on cpu accepts the float16 @ float32 bmm; eager_meta raises as the contract says, and so
  // do the compiled paths, which trace through the meta kernels: one finding, eager's.
  std::vector<PathResult> rs = {
      Raises("reference", "RuntimeError"), Ok("eager", DType::kFloat32, {2, 4, 8, 64}),
      Raises("eager_meta", "RuntimeError"), Raises("inductor", "RuntimeError"),
      Raises("compile_eager", "RuntimeError")};
  CaseRun c = JudgeCase(Seed(), {"grid16", 1}, rs);
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u) << VerdictToJson(c.verdict).dump();
  EXPECT_EQ(c.verdict.divergences[findings[0].divergence].kind, DivergenceKind::kContract);
}

TEST(RootCause, ACompiledPathRaisingWhatEagerMetaRaisesFailsInTheMetaKernel) {
  // bool bmm: eager on cpu raises NotImplementedError; eager_meta and Dynamo's fake tensors raise
  // RuntimeError. One finding, eager_meta's, naming the compiled paths.
  Program p = Seed();
  p.inputs[0].dtype = p.inputs[1].dtype = DType::kBool;
  std::vector<PathResult> rs = {
      Raises("reference", "NotImplementedError"), Raises("eager", "NotImplementedError"),
      Raises("eager_meta", "RuntimeError"), Raises("compile_eager", "RuntimeError"),
      Raises("inductor", "RuntimeError")};
  CaseRun c = JudgeCase(p, {"grid16", 1}, rs);
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u) << VerdictToJson(c.verdict).dump();
  EXPECT_EQ(c.verdict.divergences[findings[0].divergence].kind, DivergenceKind::kMeta);
  EXPECT_EQ(findings[0].also, (std::vector<std::string>{"compile_eager", "inductor"}));
}

TEST(RootCause, LinearIsAddmmWithABiasAndMmWithout) {
  Program lin;
  lin.inputs = {{"x", {4, 8}, DType::kFloat16}, {"w", {3, 8}, DType::kFloat32}};
  lin.nodes = {{"v0", OpKind::kLinear, {"x", "w"}}};
  lin.outputs = {"v0"};
  Program mm;
  mm.inputs = {{"a", {4, 8}, DType::kFloat16}, {"b", {8, 3}, DType::kFloat32}};
  mm.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  mm.outputs = {"v0"};
  auto results = [] {
    return std::vector<PathResult>{Raises("reference", "RuntimeError"),
                                   Raises("eager", "RuntimeError"),
                                   Ok("inductor", DType::kFloat32, {4, 3})};
  };
  CaseRun a = JudgeCase(lin, {"grid16", 1}, results()), b = JudgeCase(mm, {"grid16", 1}, results());
  ASSERT_TRUE(a.verdict.diverges() && b.verdict.diverges());
  EXPECT_EQ(Signatures(a), Signatures(b));
}

TEST(RootCause, CpuAndMetaOperandsMixedAreOneRootCauseWhateverTheOpAndOrder) {
  auto signature = [](OpKind op, Device a, Device b) {
    Program p;
    p.inputs = {{"a", {4, 8}, DType::kFloat32, a}, {"b", {8, 3}, DType::kFloat32, b}};
    p.nodes = {{"v0", op, {"a", "b"}}};
    p.outputs = {"v0"};
    CaseRun c = JudgeCase(
        p, {"grid16", 1},
        {Raises("reference", "RuntimeError"), Ok("eager", DType::kFloat32, {4, 3}, Device::kMeta)});
    return Signatures(c);
  };
  auto mm = signature(OpKind::kMm, Device::kCpu, Device::kMeta);
  ASSERT_EQ(mm.size(), 1u);
  EXPECT_EQ(mm[0], "meta|path=eager_meta|skips_check|rule=same_device");
  EXPECT_EQ(mm, signature(OpKind::kMm, Device::kMeta, Device::kCpu));
  EXPECT_EQ(mm, signature(OpKind::kMatmul, Device::kMeta, Device::kCpu));
}

TEST(RootCause, ACompiledPathRaisingAnotherClassIsOneRootCauseWhateverTheOp) {
  // bool mm, bmm, addmm: eager raises NotImplementedError, inductor RuntimeError (from the pattern
  // matcher, before any op is lowered). One bucket; inductor accepting is still per op family.
  auto program = [](OpKind op) {
    Program p;
    bool batched = op == OpKind::kBmm;
    Shape a = batched ? Shape{2, 4, 8} : Shape{4, 8}, b = batched ? Shape{2, 8, 3} : Shape{8, 3};
    p.inputs = {{"a", a, DType::kBool}, {"b", b, DType::kBool}};
    if (op == OpKind::kAddmm) p.inputs.insert(p.inputs.begin(), {"c", {4, 3}, DType::kBool});
    p.nodes = {{"v0", op, {}}};
    for (const auto& in : p.inputs) p.nodes[0].args.push_back(in.name);
    p.outputs = {"v0"};
    return p;
  };
  auto signatures = [&](OpKind op, PathResult inductor) {
    CaseRun c = JudgeCase(program(op), {"grid16", 1},
                          {Raises("reference", "NotImplementedError"),
                           Raises("eager", "NotImplementedError"), std::move(inductor)});
    return Signatures(c);
  };
  auto mm = signatures(OpKind::kMm, Raises("inductor", "RuntimeError"));
  ASSERT_EQ(mm.size(), 1u);
  EXPECT_EQ(mm[0].find("|op"), std::string::npos) << mm[0];
  EXPECT_EQ(mm, signatures(OpKind::kBmm, Raises("inductor", "RuntimeError")));
  EXPECT_EQ(mm, signatures(OpKind::kAddmm, Raises("inductor", "RuntimeError")));
  EXPECT_NE(mm, signatures(OpKind::kMm, Raises("inductor", "TypeError")));
  EXPECT_NE(signatures(OpKind::kMm, Ok("inductor", DType::kBool, {4, 3})),
            signatures(OpKind::kBmm, Ok("inductor", DType::kBool, {2, 4, 3})));
}

// A compiled path's error whose message names a compiler defect (CompilerErrorMark: a graph that
// uses a node before defining it) is one root cause whatever the ops; another message stays the
// ops' own.
TEST(RootCause, ACompilerErrorWithAKnownMarkIsOneRootCauseWhateverTheOps) {
  auto on_meta = [](Program p) {
    for (auto& in : p.inputs) in.device = Device::kMeta;
    return p;
  };
  Program mm_add = on_meta(test_programs::OneOp(
      OpKind::kMm, {{"x0", {2, 3}, DType::kFloat32}, {"x1", {3, 4}, DType::kFloat32}}));
  mm_add.inputs.push_back({"x2", {2, 4}, DType::kFloat32, Device::kMeta});
  mm_add.nodes.push_back({"v1", OpKind::kAdd, {"v0", "x2"}});
  mm_add.outputs = {"v1"};
  Program linear = on_meta(test_programs::OneOp(
      OpKind::kLinear, {{"x0", {2, 3}, DType::kFloat32}, {"x1", {4, 3}, DType::kFloat32}}));
  auto signature = [](const Program& p, const std::string& message) {
    PathResult inductor = Raises("inductor", "RuntimeError");
    inductor.message = message;
    CaseRun c = JudgeCase(p, {"grid16", 1},
                          {Ok("reference", DType::kFloat32, {2, 4}, Device::kMeta),
                           Ok("eager", DType::kFloat32, {2, 4}, Device::kMeta), inductor});
    auto s = Signatures(c);
    return s.size() == 1 ? s[0] : ::testing::PrintToString(s);
  };
  const std::string order =
      "Argument 'empty_strided_default_1' of Node 'neg' was used before it has been defined! "
      "Please check that Nodes in the graph are topologically ordered";
  EXPECT_EQ(CompilerErrorMark(order), "graph_order");
  EXPECT_EQ(CompilerErrorMark("a must be 2D"), "");
  const std::string a = signature(mm_add, order), b = signature(linear, order);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, "error_behaviour|path=inductor|raises:RuntimeError|graph_order|devices=meta");
  // Its devices are where it computes: a cpu input moved to meta is the same root cause (a 2.15.0
  // campaign listed it as new beside the catalogued one).
  Program moved = mm_add;
  moved.inputs[2].device = Device::kCpu;
  Node to_meta{"m", OpKind::kToDevice, {"x2"}};
  to_meta.device = Device::kMeta;
  moved.nodes.insert(moved.nodes.begin(), to_meta);
  moved.nodes.back().args[1] = "m";
  EXPECT_EQ(signature(moved, order), a);
  EXPECT_NE(signature(mm_add, "a must be 2D"), signature(linear, "a must be 2D"));
  EXPECT_TRUE(KnownCompilerErrorMark("graph_order"));
  EXPECT_FALSE(KnownCompilerErrorMark("fused"));
}

TEST(RootCause, ASignatureSplitsIntoItsFieldsAtTheBars) {
  EXPECT_EQ(SignatureFields("value|path=inductor|values|op=mm"),
            (std::vector<std::string>{"value", "path=inductor", "values", "op=mm"}));
  EXPECT_EQ(SignatureFields("crash"), std::vector<std::string>{"crash"});
  EXPECT_EQ(SignatureFields("a||b|"), (std::vector<std::string>{"a", "", "b", ""}));
}

TEST(RootCause, AnEmptyMixedDtypeMmAgreesEveryPathRaises) {
  // mm keeps the rule eager's batched products break: on the same empty operands every path
  // raises RuntimeError ("expected m1 and m2 to have the same dtype"), and the case agrees.
  Program p;
  p.inputs = {{"a", {0, 3}, DType::kFloat64}, {"b", {3, 4}, DType::kInt64}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  std::vector<PathResult> rs;
  for (const char* path :
       {"reference", "eager", "inductor", "aot_eager", "compile_eager", "torchscript"})
    rs.push_back(Raises(path, "RuntimeError"));
  CaseRun c = JudgeCase(p, {"grid16", 1}, rs);
  EXPECT_FALSE(c.verdict.diverges()) << VerdictToJson(c.verdict).dump();
  EXPECT_TRUE(CaseFindings(c).empty());
  // Eager on meta accepts it, as it accepts any mixed-dtype mm on 2.15.0 (torch's meta function
  // for mm does not compare dtypes): the catalogued meta finding, not the empty product's.
  rs.push_back(Ok("eager_meta", DType::kFloat64, {0, 4}, Device::kMeta));
  CaseRun meta = JudgeCase(p, {"grid16", 1}, rs);
  EXPECT_EQ(Signatures(meta),
            std::vector<std::string>{"meta|path=eager_meta|skips_check|rule=same_dtype"});
}

}  // namespace
}  // namespace mmdiff
