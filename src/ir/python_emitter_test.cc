// Tests for the Python emitter: the function body, the input builder, and the repro's structure.
// The emitted code is executed against real torch by the end-to-end tests in tests/.
#include "src/ir/python_emitter.h"

#include "src/ir/program_json.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

Program Sample() {
  Program p;
  p.inputs = {{"x0", {2, 4, 8}, DType::kFloat16}, {"x1", {8, 3}, DType::kFloat32, Device::kCpu, Layout::kTransposed},
              {"x2", {3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMatmul, {"x0", "x1"}},
             {"v1", OpKind::kCast, {"v0"}, DType::kBFloat16},
             {"v2", OpKind::kAddmm, {"x2", "x2", "x2"}, std::nullopt, 0.5, 0.0}};
  p.outputs = {"v1"};
  return p;
}

TEST(PythonEmitter, FunctionMirrorsTheProgram) {
  std::string f = EmitFunction(Sample(), "g");
  EXPECT_EQ(f,
            "def g(x0, x1, x2):\n"
            "    v0 = torch.matmul(x0, x1)\n"
            "    v1 = v0.to(torch.bfloat16)\n"
            "    v2 = torch.addmm(x2, x2, x2, beta=0.0, alpha=0.5)\n"
            "    return (v1,)\n");
}

TEST(PythonEmitter, InputBuilderCarriesSeedShapeDtypeLayout) {
  std::string s = EmitInputBuilder(Sample(), {"grid16", 99});
  EXPECT_NE(s.find("RECIPE = {'kind': \"grid16\", 'seed': 99,"), std::string::npos) << s;
  EXPECT_NE(s.find("_mmdiff_input(RECIPE, 1, (8, 3), torch.float32, \"cpu\", True),  # x1"), std::string::npos) << s;
  EXPECT_NE(s.find("_mmdiff_input(RECIPE, 2, (3,), torch.float32"), std::string::npos) << s;
}

TEST(PythonEmitter, ReproComparesEagerWithTheChosenBackendAndSetsKnobs) {
  ReproOptions o;
  o.title = "matmul mixed dtypes";
  o.backend = "aot_eager";
  o.knobs["emulate_precision_casts"] = "True";
  o.value_atol = 0.25;
  std::string s = EmitRepro(Sample(), {"grid16", 1}, o);
  EXPECT_EQ(s.rfind("#!/usr/bin/env python3\n\"\"\"matmul mixed dtypes", 0), 0u);
  EXPECT_NE(s.find("torch.compile(f, backend=\"aot_eager\", fullgraph=True)"), std::string::npos);
  EXPECT_NE(s.find("torch._inductor.config.emulate_precision_casts = True"), std::string::npos);
  EXPECT_NE(s.find("assert eager[:2] == compiled[:2]"), std::string::npos);
  EXPECT_NE(s.find("assert diff <= 0.25"), std::string::npos);
  EXPECT_NE(s.find("torch.__version__"), std::string::npos);
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(PythonEmitter, CastsAttentionMovesAndSlices) {
  Program p;
  p.inputs = {{"q", {1, 2, 3, 4}, DType::kFloat16}, {"m", {3, 3}, DType::kBool}};
  Node half{"c", OpKind::kCast, {"q"}, DType::kFloat32};
  half.method_spelling = true;
  Node to{"d", OpKind::kCast, {"q"}, DType::kInt8};
  Node move{"e", OpKind::kToDevice, {"q"}};
  move.device = Device::kMeta;
  Node slice{"s", OpKind::kSlice, {"q"}};
  slice.ints = {-2, 0, 3, 2};
  Node sdpa{"a", OpKind::kSdpa, {"q", "q", "q", "m"}};
  sdpa.scale = 0.5;
  sdpa.enable_gqa = true;
  Node soft{"p", OpKind::kSoftmax, {"q"}, DType::kFloat32};
  soft.ints = {-1};
  p.nodes = {half, to, move, slice, sdpa, soft};
  p.outputs = {"a"};
  std::string f = EmitFunction(p, "g");
  EXPECT_NE(f.find("    c = q.float()\n"), std::string::npos) << f;
  EXPECT_NE(f.find("    d = q.to(torch.int8)\n"), std::string::npos) << f;
  EXPECT_NE(f.find("    e = q.to(\"meta\")\n"), std::string::npos) << f;
  EXPECT_NE(f.find("    s = q[..., 0:3:2, :]\n"), std::string::npos) << f;
  EXPECT_NE(f.find("    a = torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=m, scale=0.5, "
                   "enable_gqa=True)\n"),
            std::string::npos)
      << f;
  EXPECT_NE(f.find("    p = torch.softmax(q, dim=-1, dtype=torch.float32)\n"), std::string::npos) << f;
}

TEST(PythonEmitter, LinearUsesTheFunctionalFormWithOptionalBias) {
  Program p;
  p.inputs = {{"x", {2, 3}, DType::kFloat32}, {"w", {4, 3}, DType::kFloat32}, {"b", {4}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kLinear, {"x", "w", "b"}}, {"v1", OpKind::kBaddbmm, {"x", "w", "b"}, std::nullopt, 2.0, 0.0}};
  p.outputs = {"v0"};
  std::string f = EmitFunction(p);
  EXPECT_NE(f.find("v0 = torch.nn.functional.linear(x, w, b)"), std::string::npos) << f;
  EXPECT_NE(f.find("v1 = torch.baddbmm(x, w, b, beta=0.0, alpha=2.0)"), std::string::npos) << f;
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(PythonEmitter, ViewsAreMethodCalls) {
  Program p;
  p.inputs = {{"x", {2, 3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kTranspose, {"x"}, std::nullopt, 1.0, 1.0, {0, -1}},
             {"v1", OpKind::kReshape, {"v0"}, std::nullopt, 1.0, 1.0, {6}},
             {"v2", OpKind::kNarrow, {"v1"}, std::nullopt, 1.0, 1.0, {0, 1, 2}},
             {"v3", OpKind::kContiguous, {"v2"}}};
  p.outputs = {"v3"};
  std::string f = EmitFunction(p);
  EXPECT_NE(f.find("v0 = x.transpose(0, -1)"), std::string::npos) << f;
  EXPECT_NE(f.find("v1 = v0.reshape((6,))"), std::string::npos) << f;
  EXPECT_NE(f.find("v2 = v1.narrow(0, 1, 2)"), std::string::npos) << f;
  EXPECT_NE(f.find("v3 = v2.contiguous()"), std::string::npos) << f;
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(PythonEmitter, GlueOps) {
  Program p;
  p.inputs = {{"x", {2, 3}, DType::kFloat32}, {"b", {3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMulScalar, {"x"}, std::nullopt, 0.125}, {"v1", OpKind::kAdd, {"v0", "b"}}};
  p.outputs = {"v1"};
  std::string f = EmitFunction(p);
  EXPECT_NE(f.find("v0 = torch.mul(x, 0.125)"), std::string::npos) << f;
  EXPECT_NE(f.find("v1 = torch.add(v0, b)"), std::string::npos) << f;
  auto back = ProgramFromJson(ProgramToJson(p));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value().nodes[0].alpha, 0.125);
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// The TorchScript spelling: only torch.<aten op> names, dtypes as ScalarType codes, no .bfloat16().
// That torch::jit::compile accepts it and computes what eager does is checked on real LibTorch by
// tests/torchscript_aoti_e2e_test.cc.
TEST(PythonEmitter, TorchScriptDialectAvoidsWhatTheNativeResolverCannotFind) {
  Program p;
  p.inputs = {{"q", {1, 2, 3, 4}, DType::kFloat16}, {"w", {4, 4}, DType::kFloat16}};
  Node half{"c", OpKind::kCast, {"q"}, DType::kFloat32};
  half.method_spelling = true;
  Node bf{"b", OpKind::kCast, {"q"}, DType::kBFloat16};
  bf.method_spelling = true;
  Node to{"d", OpKind::kCast, {"q"}, DType::kInt8};
  Node soft{"p", OpKind::kSoftmax, {"q"}, DType::kFloat64};
  soft.ints = {-1};
  Node sdpa{"a", OpKind::kSdpa, {"q", "q", "q"}};
  sdpa.is_causal = true;
  p.nodes = {half, bf, to, soft, sdpa, {"l", OpKind::kLinear, {"q", "w"}}};
  p.outputs = {"a", "l"};
  std::string f = EmitFunction(p, "f", FunctionDialect::kTorchScript);
  EXPECT_NE(f.find("    c = q.float()\n"), std::string::npos) << f;
  EXPECT_NE(f.find("    b = q.to(15)\n"), std::string::npos) << f;
  EXPECT_NE(f.find("    d = q.to(1)\n"), std::string::npos) << f;
  EXPECT_NE(f.find("    p = torch.softmax(q, dim=-1, dtype=7)\n"), std::string::npos) << f;
  EXPECT_NE(f.find("    a = torch.scaled_dot_product_attention(q, q, q, is_causal=True)\n"), std::string::npos) << f;
  EXPECT_NE(f.find("    l = torch.linear(q, w)\n"), std::string::npos) << f;
  EXPECT_EQ(f.find("torch.nn"), std::string::npos) << f;
  // The Python spelling is unchanged.
  EXPECT_NE(EmitFunction(p).find("b = q.bfloat16()"), std::string::npos);
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(PythonEmitter, ReprosForTorchScriptAndAotiCompileFTheWayThosePathsDo) {
  ReproOptions o;
  o.backend = "torchscript";
  std::string ts = EmitRepro(Sample(), {"grid16", 1}, o);
  EXPECT_NE(ts.find("TS_SOURCE = \"\"\"\ndef f(x0, x1, x2):\n    v0 = torch.matmul(x0, x1)\n    v1 = v0.to(15)\n"),
            std::string::npos) << ts;
  EXPECT_NE(ts.find("compiled = outcome(lambda *args: torch.jit.CompilationUnit(TS_SOURCE).f(*args))"), std::string::npos);
  EXPECT_NE(ts.find("\"eager and TorchScript disagree (see above)\""), std::string::npos);
  EXPECT_EQ(ts.find("torch.compile(f"), std::string::npos);
  o.backend = "aoti";
  std::string aoti = EmitRepro(Sample(), {"grid16", 1}, o);
  EXPECT_NE(aoti.find("exported = torch.export.export(Program(), tuple(args))"), std::string::npos) << aoti;
  EXPECT_NE(aoti.find("return torch._inductor.aoti_load_package(path)(*args)"), std::string::npos);
  EXPECT_NE(aoti.find("compiled = outcome(aoti(f))"), std::string::npos);
  EXPECT_NE(aoti.find("eager and AOTInductor (torch.export"), std::string::npos);
}

}  // namespace
}  // namespace mmdiff
