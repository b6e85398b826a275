// Tests for autocast's op lists, region lookup, lowering, JSON, verifier and emitted Python.
#include "src/ir/autocast.h"

#include <gtest/gtest.h>

#include "src/ir/program_json.h"
#include "src/ir/python_emitter.h"
#include "src/ir/verifier.h"

namespace mmdiff {
namespace {

Node At(Node n, size_t region) {
  n.autocast = region;
  return n;
}

TEST(Autocast, PoliciesFollowTorchsCpuAndCudaLists) {
  for (OpKind k : {OpKind::kMm, OpKind::kBmm, OpKind::kMatmul, OpKind::kAddmm, OpKind::kBaddbmm,
                   OpKind::kAddbmm, OpKind::kLinear, OpKind::kSdpa}) {
    EXPECT_EQ(AutocastPolicyOf(k, Device::kCpu), AutocastPolicy::kLowerPrecision);
    EXPECT_EQ(AutocastPolicyOf(k, Device::kCuda), AutocastPolicy::kLowerPrecision);
    EXPECT_EQ(AutocastPolicyOf(k, Device::kMeta), AutocastPolicy::kNone);
  }
  for (OpKind k : {OpKind::kMv, OpKind::kAddmv}) {
    EXPECT_EQ(AutocastPolicyOf(k, Device::kCpu), AutocastPolicy::kNone);
    EXPECT_EQ(AutocastPolicyOf(k, Device::kCuda), AutocastPolicy::kLowerPrecision);
  }
  EXPECT_EQ(AutocastPolicyOf(OpKind::kSoftmax, Device::kCpu), AutocastPolicy::kNone);
  EXPECT_EQ(AutocastPolicyOf(OpKind::kSoftmax, Device::kCuda), AutocastPolicy::kFloat32OptDtype);
  EXPECT_EQ(AutocastPolicyOf(OpKind::kDot, Device::kCpu), AutocastPolicy::kNone);
  EXPECT_EQ(AutocastPolicyOf(OpKind::kDot, Device::kCuda), AutocastPolicy::kPromote);
  for (OpKind k :
       {OpKind::kCast, OpKind::kAdd, OpKind::kMulScalar, OpKind::kTranspose, OpKind::kToDevice})
    EXPECT_EQ(AutocastPolicyOf(k, Device::kCuda), AutocastPolicy::kNone);
}

TEST(Autocast, TheInnermostRegionOfTheOpsDeviceTypeDecides) {
  Program p;
  p.autocast = {{Device::kCpu, DType::kBFloat16, true, std::nullopt},
                {Device::kCpu, DType::kFloat16, true, 0},
                {Device::kCpu, DType::kBFloat16, false, 1},
                {Device::kCuda, DType::kFloat16, true, 0}};
  Node n;
  EXPECT_FALSE(AutocastDType(p, n, Device::kCpu));  // outside every region
  n.autocast = 0;
  EXPECT_EQ(AutocastDType(p, n, Device::kCpu), DType::kBFloat16);
  EXPECT_FALSE(AutocastDType(p, n, Device::kCuda));
  n.autocast = 1;
  EXPECT_EQ(AutocastDType(p, n, Device::kCpu), DType::kFloat16);
  n.autocast = 2;
  EXPECT_FALSE(AutocastDType(p, n, Device::kCpu));  // disabled inside
  n.autocast = 3;  // a cuda region leaves cpu ops to the cpu one around it
  EXPECT_EQ(AutocastDType(p, n, Device::kCpu), DType::kBFloat16);
  EXPECT_EQ(AutocastDType(p, n, Device::kCuda), DType::kFloat16);
  EXPECT_EQ(RegionPath(p, 2), (std::vector<size_t>{0, 1, 2}));
}

TEST(Autocast, LoweringCastsEligibleArgumentsOnly) {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat32},
              {"b", {3, 4}, DType::kFloat16},
              {"c", {3, 4}, DType::kFloat64},
              {"d", {3, 4}, DType::kInt32},
              {"e", {2, 3}, DType::kBFloat16}};
  p.nodes = {At({"v0", OpKind::kMm, {"a", "b"}}, 0),
             At({"v1", OpKind::kMm, {"a", "c"}}, 0),
             At({"v2", OpKind::kMm, {"e", "d"}}, 0),
             At({"v3", OpKind::kMv, {"a", "a"}}, 0),
             {"v4", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0", "v4"};
  p.autocast = {{Device::kCpu, DType::kBFloat16, true, std::nullopt}};
  EXPECT_TRUE(UsesAutocast(p));
  AutocastLowering l = LowerAutocast(p);
  ASSERT_TRUE(l.error_node.empty());
  std::vector<std::string> names;
  for (const auto& n : l.program.nodes) {
    names.push_back(n.name);
    EXPECT_FALSE(n.autocast) << n.name;
  }
  // float32 and float16 become bfloat16; float64 and int32 are not eligible; bfloat16 already is;
  // mv is not on the CPU list; v4 is outside the region.
  EXPECT_EQ(names,
            (std::vector<std::string>{"v0_ac0", "v0_ac1", "v0", "v1_ac0", "v1", "v2", "v3", "v4"}));
  EXPECT_EQ(l.program.nodes[0].op, OpKind::kCast);
  EXPECT_EQ(l.program.nodes[0].dtype, DType::kBFloat16);
  EXPECT_EQ(l.program.nodes[2].args, (std::vector<std::string>{"v0_ac0", "v0_ac1"}));
  EXPECT_EQ(l.program.nodes[4].args, (std::vector<std::string>{"v1_ac0", "c"}));
  EXPECT_TRUE(l.program.autocast.empty());
  EXPECT_TRUE(Verify(l.program).ok()) << Verify(l.program).message();
}

TEST(Autocast, LoweringOnCudaSetsSoftmaxDtypePromotesDotAndNamesFreshCasts) {
  Program p;
  p.inputs = {{"a", {4}, DType::kFloat16, Device::kCuda},
              {"b", {4}, DType::kFloat32, Device::kCuda},
              {"c", {4}, DType::kBFloat16, Device::kCuda},
              {"v0_ac0", {4}, DType::kFloat64, Device::kCuda}};
  p.nodes = {At({"v0", OpKind::kDot, {"a", "b"}}, 0),
             At({"v1", OpKind::kSoftmax, {"a"}, std::nullopt, 1, 1, {0}}, 0),
             At({"v2", OpKind::kSoftmax, {"a"}, DType::kFloat16, 1, 1, {0}}, 0),
             At({"v3", OpKind::kSoftmax, {"v0_ac0"}, std::nullopt, 1, 1, {0}}, 0)};
  p.autocast = {{Device::kCuda, DType::kFloat16, true, std::nullopt}};
  AutocastLowering l = LowerAutocast(p);
  ASSERT_TRUE(l.error_node.empty()) << l.error;
  ASSERT_EQ(l.program.nodes.size(), 5u);
  EXPECT_EQ(l.program.nodes[0].name, "v0_ac0_");         // "v0_ac0" is taken
  EXPECT_EQ(l.program.nodes[0].dtype, DType::kFloat32);  // float32 wins the promotion
  EXPECT_EQ(l.program.nodes[2].dtype, DType::kFloat32);  // softmax runs in float32
  EXPECT_EQ(l.program.nodes[3].dtype, DType::kFloat16);  // a given dtype is kept
  EXPECT_FALSE(l.program.nodes[4].dtype);                // float64 is not eligible
  // Promotion over float16 and bfloat16 is autocast's own error.
  p.nodes = {At({"v0", OpKind::kDot, {"a", "c"}}, 0)};
  l = LowerAutocast(p);
  EXPECT_EQ(l.error_node, "v0");
  EXPECT_NE(l.error.find("prioritize"), std::string::npos);
  // The same program on cpu: dot is not on the CPU list, and a cpu region ignores cuda ops.
  p.autocast[0].device = Device::kCpu;
  l = LowerAutocast(p);
  EXPECT_TRUE(l.error_node.empty());
  EXPECT_EQ(l.program.nodes.size(), 1u);
}

TEST(Autocast, RegionsRoundTripThroughJsonAndBadOnesAreRejected) {
  Program p;
  p.inputs = {{"a", {2, 2}}};
  p.nodes = {At({"v0", OpKind::kMm, {"a", "a"}}, 1), {"v1", OpKind::kMm, {"v0", "a"}}};
  p.outputs = {"v1"};
  p.autocast = {{Device::kCuda, DType::kFloat16, true, std::nullopt},
                {Device::kCpu, DType::kBFloat16, false, 0}};
  ASSERT_TRUE(Verify(p).ok());
  auto back = ProgramFromJson(ProgramToJson(p));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back.value(), p);
  EXPECT_FALSE(ProgramToJson(Program{}).contains("autocast"));
  auto bad_json = [&](const char* pointer, const nlohmann::json& v) {
    nlohmann::json j = ProgramToJson(p);
    j[nlohmann::json::json_pointer(pointer)] = v;
    return ProgramFromJson(j).ok();
  };
  EXPECT_FALSE(bad_json("/nodes/0/autocast", -1));
  EXPECT_FALSE(bad_json("/nodes/0/autocast", 1e30));
  EXPECT_FALSE(bad_json("/autocast/0/device_type", "tpu"));
  EXPECT_FALSE(bad_json("/autocast/0/enabled", 1));
  EXPECT_FALSE(bad_json("/autocast", "cpu"));
  auto bad = [&](auto change) {
    Program q = p;
    change(q);
    return Verify(q).message();
  };
  EXPECT_NE(bad([](Program& q) { q.autocast[0].device = Device::kMeta; }).find("cpu or cuda"),
            std::string::npos);
  EXPECT_NE(bad([](Program& q) { q.autocast[0].dtype = DType::kFloat32; }).find("bfloat16"),
            std::string::npos);
  EXPECT_NE(bad([](Program& q) { q.autocast[0].parent = 1; }).find("earlier"), std::string::npos);
  EXPECT_NE(bad([](Program& q) { q.nodes[1].autocast = 2; }).find("not defined"),
            std::string::npos);
}

TEST(Autocast, TheEmitterNestsWithBlocks) {
  Program p;
  p.inputs = {{"a", {2, 2}}};
  p.nodes = {At({"v0", OpKind::kMm, {"a", "a"}}, 0),
             At({"v1", OpKind::kMm, {"v0", "a"}}, 1),
             At({"v2", OpKind::kMm, {"v1", "a"}}, 0),
             {"v3", OpKind::kMm, {"v2", "a"}},
             At({"v4", OpKind::kMm, {"v3", "a"}}, 0)};
  p.outputs = {"v4"};
  p.autocast = {{Device::kCpu, DType::kBFloat16, true, std::nullopt},
                {Device::kCpu, DType::kFloat16, false, 0}};
  EXPECT_EQ(EmitFunction(p),
            "def f(a):\n"
            "    with torch.autocast(\"cpu\", dtype=torch.bfloat16):\n"
            "        v0 = torch.mm(a, a)\n"
            "        with torch.autocast(\"cpu\", dtype=torch.float16, enabled=False):\n"
            "            v1 = torch.mm(v0, a)\n"
            "        v2 = torch.mm(v1, a)\n"
            "    v3 = torch.mm(v2, a)\n"
            "    with torch.autocast(\"cpu\", dtype=torch.bfloat16):\n"
            "        v4 = torch.mm(v3, a)\n"
            "    return (v4,)\n");
  // TorchScript has no torch.autocast: its dialects leave the regions out.
  for (FunctionDialect d : {FunctionDialect::kTorchScript, FunctionDialect::kTorchScriptFromPython})
    EXPECT_EQ(EmitFunction(p, "f", d).find("autocast"), std::string::npos);
}

}  // namespace
}  // namespace mmdiff
