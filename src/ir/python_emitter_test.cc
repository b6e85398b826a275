// Tests for the Python emitter: the function body in each dialect, the input builder, and the
// repro's structure and failure modes (its helpers, calls before, attempts, models and variants:
// python_emitter_repro_test.cc).
// The emitted code is executed against real torch by the end-to-end tests in tests/.
#include "src/ir/python_emitter.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "src/ir/program_json.h"
#include "src/ir/test_programs.h"

namespace mmdiff {
namespace {

TEST(PythonEmitter, FunctionMirrorsTheProgram) {
  std::string f = EmitFunction(test_programs::MatmulCastAddmm(), "g");
  EXPECT_EQ(f,
            "def g(x0, x1, x2):\n"
            "    v0 = torch.matmul(x0, x1)\n"
            "    v1 = v0.to(torch.bfloat16)\n"
            "    v2 = torch.addmm(x2, x2, x2, beta=0.0, alpha=0.5)\n"
            "    return (v1,)\n");
}

TEST(PythonEmitter, InputBuilderCarriesSeedShapeDtypeLayout) {
  std::string s = EmitInputBuilder(test_programs::MatmulCastAddmm(), {"grid16", 99});
  EXPECT_NE(s.find("RECIPE = {'kind': \"grid16\", 'seed': 99,"), std::string::npos) << s;
  EXPECT_NE(s.find("_mmdiff_input(RECIPE, 1, (8, 3), torch.float32, \"cpu\", True),  # x1"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("_mmdiff_input(RECIPE, 2, (3,), torch.float32"), std::string::npos) << s;
}

TEST(PythonEmitter, ReproComparesEagerWithTheChosenBackendAndSetsKnobs) {
  ReproOptions o;
  o.title = "matmul mixed dtypes";
  o.backend = "aot_eager";
  o.knobs["emulate_precision_casts"] = "True";
  o.value_atol = 0.25;
  std::string s = EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o);
  EXPECT_EQ(s.rfind("#!/usr/bin/env python3\n\"\"\"matmul mixed dtypes", 0), 0u);
  EXPECT_NE(s.find("torch.compile(f, backend=\"aot_eager\", fullgraph=True)"), std::string::npos);
  EXPECT_NE(s.find("torch._inductor.config.emulate_precision_casts = True"), std::string::npos);
  EXPECT_NE(s.find("    assert same_outcome(eager, compiled), "), std::string::npos);
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
  EXPECT_NE(f.find("    a = torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=m, "
                   "scale=0.5, "
                   "enable_gqa=True)\n"),
            std::string::npos)
      << f;
  EXPECT_NE(f.find("    p = torch.softmax(q, dim=-1, dtype=torch.float32)\n"), std::string::npos)
      << f;
}

TEST(PythonEmitter, LinearUsesTheFunctionalFormWithOptionalBias) {
  Program p;
  p.inputs = {
      {"x", {2, 3}, DType::kFloat32}, {"w", {4, 3}, DType::kFloat32}, {"b", {4}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kLinear, {"x", "w", "b"}},
             {"v1", OpKind::kBaddbmm, {"x", "w", "b"}, std::nullopt, 2.0, 0.0}};
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
  p.nodes = {{"v0", OpKind::kMulScalar, {"x"}, std::nullopt, 0.125},
             {"v1", OpKind::kAdd, {"v0", "b"}},
             {"v2", OpKind::kDivScalar, {"v1"}, std::nullopt, 8.0}};
  p.outputs = {"v2"};
  std::string f = EmitFunction(p);
  EXPECT_NE(f.find("v0 = torch.mul(x, 0.125)"), std::string::npos) << f;
  EXPECT_NE(f.find("v1 = torch.add(v0, b)"), std::string::npos) << f;
  EXPECT_NE(f.find("v2 = torch.div(v1, 8.0)"), std::string::npos) << f;
  auto back = ProgramFromJson(ProgramToJson(p));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value().nodes[0].alpha, 0.125);
  EXPECT_EQ(back.value().nodes[2].alpha, 8.0);
  Node dropout{"v3", OpKind::kDropout, {"v2"}};
  dropout.dropout_p = 0.25;
  dropout.train = true;
  p.nodes.push_back(dropout);
  p.outputs = {"v3"};
  f = EmitFunction(p);
  EXPECT_NE(f.find("v3 = torch.dropout(v2, 0.25, True)"), std::string::npos) << f;
  back = ProgramFromJson(ProgramToJson(p));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value(), p);
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
  EXPECT_NE(f.find("    a = torch.scaled_dot_product_attention(q, q, q, is_causal=True)\n"),
            std::string::npos)
      << f;
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
  std::string ts = EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o);
  EXPECT_NE(ts.find("TS_SOURCE = \"\"\"\ndef f(x0, x1, x2):\n    v0 = torch.matmul(x0, x1)\n    v1 "
                    "= v0.to(15)\n"),
            std::string::npos)
      << ts;
  EXPECT_NE(ts.find("    compiled_f = torch.jit.CompilationUnit(TS_SOURCE).f\n"), std::string::npos)
      << ts;
  EXPECT_NE(ts.find("compiled = compile_error if compiled_f is None else outcome(compiled_f)\n"),
            std::string::npos);
  EXPECT_NE(ts.find("\"eager and TorchScript disagree (see above)\""), std::string::npos);
  EXPECT_EQ(ts.find("torch.compile(f"), std::string::npos);
  o.backend = "aoti";
  std::string aoti = EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o);
  EXPECT_NE(aoti.find("exported = torch.export.export(module, tuple(args))"), std::string::npos)
      << aoti;
  EXPECT_NE(aoti.find("    loaded = torch._inductor.aoti_load_package(path)\n"), std::string::npos);
  EXPECT_NE(aoti.find("    compiled_f = aoti(f, inputs())\n"), std::string::npos);
  EXPECT_NE(aoti.find("eager and AOTInductor (torch.export"), std::string::npos);
}

TEST(PythonEmitter, TorchScriptFromPythonKeepsTheFunctionalNamesPythonsResolverKnows) {
  Program p;
  p.inputs = {{"x", {2, 3}, DType::kFloat32}, {"w", {4, 3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kLinear, {"x", "w"}}, {"v1", OpKind::kCast, {"v0"}, DType::kFloat64}};
  p.outputs = {"v1"};
  std::string native = EmitFunction(p, "f", FunctionDialect::kTorchScript);
  std::string from_python = EmitFunction(p, "f", FunctionDialect::kTorchScriptFromPython);
  EXPECT_NE(native.find("v0 = torch.linear(x, w)"), std::string::npos) << native;
  EXPECT_NE(from_python.find("v0 = torch.nn.functional.linear(x, w)"), std::string::npos)
      << from_python;
  EXPECT_NE(from_python.find("v1 = v0.to(7)"), std::string::npos)
      << from_python;  // dtypes stay codes
  ReproOptions o;
  o.backend = "torchscript";
  std::string repro = EmitRepro(p, {"grid16", 1}, o);
  EXPECT_NE(repro.find("    v0 = torch.nn.functional.linear(x, w)\n    v1 = v0.to(7)"),
            std::string::npos)
      << repro;
  EXPECT_EQ(repro.find("torch.linear("), std::string::npos) << repro;
}

TEST(PythonEmitter, ATrainingReproMarksItsInputsAndNamesTheGradientItChecks) {
  Program p = test_programs::MatmulCastAddmm();
  p.inputs[1].requires_grad = true;
  ReproOptions o;
  o.check = ReproOptions::Check::kCompiledVsEager;
  o.worst = {1, 5, 1.0, 0.0};  // result 1: the gradient of x1 (after the one output)
  std::string repro = EmitRepro(p, {"grid16", 1}, o);
  EXPECT_NE(repro.find("torch.float32, \"cpu\", True, requires_grad=True),  # x1"),
            std::string::npos)
      << repro;
  EXPECT_NE(repro.find("\nGRAD_INPUTS = [1]\n"), std::string::npos) << repro;
  EXPECT_NE(repro.find("print(\"torch.compile grad(x1) element 5"), std::string::npos) << repro;
  EXPECT_EQ(
      EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o).find("requires_grad=True"),
      std::string::npos);
  EXPECT_NE(
      EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o).find("\nGRAD_INPUTS = []\n"),
      std::string::npos);
}

TEST(PythonEmitter, ReproChecksWhatTheFindingClaims) {
  ReproOptions o;
  o.check = ReproOptions::Check::kMetaVsCpu;
  std::string meta = EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o);
  EXPECT_NE(meta.find("meta = outcome(f, on_meta=True)"), std::string::npos) << meta;
  EXPECT_NE(meta.find("assert predicted(eager) == predicted(meta)"), std::string::npos);
  EXPECT_EQ(meta.find("torch.compile("), std::string::npos);
  o.check = ReproOptions::Check::kEagerVsContract;
  o.contract_rejects = true;
  o.contract_error_class = "RuntimeError";
  std::string rejects = EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o);
  EXPECT_NE(rejects.find("assert eager[:2] == (\"error\", \"RuntimeError\")"), std::string::npos)
      << rejects;
  o.contract_rejects = false;
  o.contract_types = {{DType::kBFloat16, {2, 4, 3}, Device::kCpu}};
  std::string accepts = EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o);
  EXPECT_NE(accepts.find("expected = [(\"torch.bfloat16\", (2, 4, 3), \"cpu\")]"),
            std::string::npos)
      << accepts;
  o.check = ReproOptions::Check::kEagerValue;
  o.worst = {0, 5, std::nan(""), 0.25};
  std::string value = EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o);
  EXPECT_NE(value.find("got = eager[2][0].reshape(-1)[5].double().item()"), std::string::npos)
      << value;
  EXPECT_NE(value.find("expected, allowed = math.nan, 0.25"), std::string::npos) << value;
}

TEST(PythonEmitter, DocstringTextCannotEndTheDocstringOrEscape) {
  // Titles and notes carry torch's error messages and text read from report files.
  ReproOptions o;
  o.title = "inductor raises \"\"\"; import os; os.system('x') #";
  o.notes = {"a \\N{bad} escape and a \"\"\" quote", std::string("control\x01char")};
  std::string repro = EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o);
  size_t doc_start = repro.find("\"\"\"") + 3, doc_end = repro.find("\n\"\"\"\n");
  ASSERT_NE(doc_end, std::string::npos);
  EXPECT_LT(repro.find("Program: "), doc_end) << repro;  // every note is still inside the docstring
  // Inside it, every run of three quotes starts with an escaped one, so none ends it early.
  for (size_t at = repro.find("\"\"\"", doc_start); at < doc_end; at = repro.find("\"\"\"", at + 1))
    EXPECT_EQ(repro[at - 1], '\\') << repro.substr(0, doc_end);
  EXPECT_NE(repro.find("\\\\N{bad}"), std::string::npos) << repro;
  EXPECT_EQ(repro.find('\x01'), std::string::npos);
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// Every op kind and every spelling feature EmitFunction has: casts to every dtype, as .to() and as
// the method where there is one; device moves; every view, with a slice on a leading and one on a
// negative dim and the empty shape; softmax with and without its dtype; sdpa with each keyword;
// linear with and without its bias; alpha and beta. Shapes do not matter to the spelling.
Program EveryOpAndFeature() {
  Program p;
  p.inputs = {{"x", {2, 3}, DType::kFloat32}, {"w", {4, 3}, DType::kFloat32},
              {"b", {4}, DType::kFloat32},    {"q", {1, 2, 3, 4}, DType::kFloat16},
              {"m", {3, 3}, DType::kBool},    {"s", {1}, DType::kFloat32}};
  auto add = [&](Node n) {
    p.outputs.push_back(n.name);
    p.nodes.push_back(std::move(n));
  };
  for (OpKind k :
       {OpKind::kMm, OpKind::kBmm, OpKind::kMatmul, OpKind::kMv, OpKind::kDot, OpKind::kAdd})
    add({"v_" + std::string(GetOpSpec(k).name), k, {"x", "w"}});
  for (OpKind k : {OpKind::kAddmm, OpKind::kAddmv, OpKind::kBaddbmm, OpKind::kAddbmm})
    add({"v_" + std::string(GetOpSpec(k).name), k, {"b", "x", "w"}, std::nullopt, 0.5, -1.5});
  add({"v_linear", OpKind::kLinear, {"x", "w"}});
  add({"v_linear_bias", OpKind::kLinear, {"x", "w", "b"}});
  add({"v_mul", OpKind::kMulScalar, {"x"}, std::nullopt, 0.125});
  add({"v_div", OpKind::kDivScalar, {"x"}, std::nullopt, 8.0});
  Node full{"v_full", OpKind::kFull, {"x"}};  // torch.full([], 2.0, like x)
  full.alpha = 2.0;
  add(full);
  add({"v_full_bool", OpKind::kFull, {"q"}, DType::kBool, 1.0, 1.0, {3, 3}});
  add({"v_mul_t", OpKind::kMul, {"x", "v_full"}});
  add({"v_div_t", OpKind::kDiv, {"x", "s"}});
  add({"v_tril", OpKind::kTril, {"v_full_bool"}, std::nullopt, 1.0, 1.0, {-1}});
  add({"v_eq", OpKind::kEqScalar, {"x"}, std::nullopt, 0.0});
  add({"v_masked_fill",
       OpKind::kMaskedFill,
       {"x", "v_eq"},
       std::nullopt,
       -std::numeric_limits<double>::infinity()});
  add({"v_where", OpKind::kWhere, {"v_eq", "x", "v_full"}});
  Node dropout{"v_dropout", OpKind::kDropout, {"q"}};
  dropout.dropout_p = 0.5;
  dropout.train = true;
  add(dropout);
  add({"v_softmax", OpKind::kSoftmax, {"q"}, std::nullopt, 1.0, 1.0, {-1}});
  add({"v_softmax_dtype", OpKind::kSoftmax, {"q"}, DType::kFloat32, 1.0, 1.0, {3}});
  add({"v_sdpa", OpKind::kSdpa, {"q", "q", "q"}});
  Node sdpa_all{"v_sdpa_mask", OpKind::kSdpa, {"q", "q", "q", "m"}};
  sdpa_all.scale = 0.5;
  sdpa_all.enable_gqa = true;
  add(sdpa_all);
  Node causal{"v_sdpa_causal", OpKind::kSdpa, {"q", "q", "q"}};
  causal.is_causal = true;
  add(causal);
  for (Device d : {Device::kCpu, Device::kMeta, Device::kCuda}) {
    Node move{"v_to_" + std::string(DeviceName(d)), OpKind::kToDevice, {"x"}};
    move.device = d;
    add(move);
  }
  add({"v_transpose", OpKind::kTranspose, {"q"}, std::nullopt, 1.0, 1.0, {0, -1}});
  add({"v_permute", OpKind::kPermute, {"x"}, std::nullopt, 1.0, 1.0, {1, 0}});
  add({"v_reshape", OpKind::kReshape, {"x"}, std::nullopt, 1.0, 1.0, {6}});
  add({"v_reshape_0d", OpKind::kReshape, {"s"}, std::nullopt, 1.0, 1.0, {}});
  add({"v_expand", OpKind::kExpand, {"x"}, std::nullopt, 1.0, 1.0, {5, -1, 3}});
  add({"v_narrow", OpKind::kNarrow, {"x"}, std::nullopt, 1.0, 1.0, {1, 1, 2}});
  add({"v_contiguous", OpKind::kContiguous, {"v_transpose"}});
  add({"v_slice", OpKind::kSlice, {"q"}, std::nullopt, 1.0, 1.0, {1, 0, 2, 1}});
  add({"v_slice_neg", OpKind::kSlice, {"q"}, std::nullopt, 1.0, 1.0, {-2, 0, 3, 2}});
  add({"v_view", OpKind::kView, {"x"}, std::nullopt, 1.0, 1.0, {3, 2}});
  for (OpKind k : {OpKind::kRelu, OpKind::kGelu, OpKind::kSilu, OpKind::kSigmoid, OpKind::kTanh}) {
    Node e{"v_" + std::string(GetOpSpec(k).name), k, {"x"}};
    add(e);
  }
  Node gelu_tanh{"v_gelu_tanh", OpKind::kGelu, {"x"}};
  gelu_tanh.gelu_tanh = true;
  add(gelu_tanh);
  add({"v_clamp", OpKind::kClamp, {"x"}, std::nullopt, -1.0, 6.0});
  for (DType d : AllDTypes()) {
    add({"v_to_" + std::string(DTypeName(d)), OpKind::kCast, {"x"}, d});
    if (!CastMethodName(d)) continue;
    Node method{"v_method_" + std::string(DTypeName(d)), OpKind::kCast, {"x"}, d};
    method.method_spelling = true;
    add(method);
  }
  return p;
}

// The dotted names after "torch." in code, e.g. "torch.nn.functional.linear", each with the
// character that follows it.
std::set<std::string> TorchNames(const std::string& code) {
  std::set<std::string> names;
  for (size_t at = code.find("torch."); at != std::string::npos; at = code.find("torch.", at + 1)) {
    size_t end = at;
    while (end < code.size() && (std::isalnum(static_cast<unsigned char>(code[end])) ||
                                 code[end] == '_' || code[end] == '.'))
      ++end;
    names.insert(code.substr(at, end - at) + (end < code.size() ? std::string(1, code[end]) : ""));
  }
  return names;
}

// Issue 16: repro.py compiled the spelling torch::jit::compile gets from Python, whose resolver
// found no torch.linear ("object has no attribute linear"), and the compile error "agreed" with
// eager's RuntimeError. Each dialect may only name what its compiler resolves; the sets below were
// checked on torch 2.15.0 with torch.jit.CompilationUnit on the emitted functions for this program
// and 400 generated ones: Python's resolver for kTorchScriptFromPython (and eager Python for
// kPython), and for kTorchScript a resolver that maps `torch` to torch.ops.aten, as
// torch::jit::compile's native one maps it to the aten namespace. A new op or spelling fails here
// until it is checked the same way.
TEST(PythonEmitter, EachDialectNamesOnlyWhatItsCompilerResolvesForEveryOpAndFeature) {
  const Program p = EveryOpAndFeature();
  std::set<OpKind> covered;
  for (const auto& n : p.nodes) covered.insert(n.op);
  EXPECT_EQ(covered, std::set<OpKind>(AllOpKinds().begin(), AllOpKinds().end()))
      << "add the new op above";

  const std::set<std::string> aten_calls = {
      "torch.mm(",          "torch.bmm(",   "torch.matmul(",  "torch.addmm(",   "torch.mv(",
      "torch.dot(",         "torch.addmv(", "torch.baddbmm(", "torch.addbmm(",  "torch.add(",
      "torch.mul(",         "torch.div(",   "torch.softmax(", "torch.dropout(", "torch.eq(",
      "torch.masked_fill(", "torch.where(", "torch.tril(",    "torch.full(",    "torch.relu(",
      "torch.sigmoid(",     "torch.tanh(",  "torch.clamp("};
  std::set<std::string> native = aten_calls, from_python = aten_calls;
  native.insert(
      {"torch.linear(", "torch.scaled_dot_product_attention(", "torch.gelu(", "torch.silu("});
  from_python.insert({"torch.nn.functional.linear(",
                      "torch.nn.functional.scaled_dot_product_attention(",
                      "torch.nn.functional.gelu(", "torch.nn.functional.silu("});
  std::set<std::string> python = from_python;
  for (DType d : AllDTypes()) python.insert("torch." + std::string(DTypeName(d)) + ")");
  python.insert("torch.bool,");  // full's dtype=

  for (const auto& [dialect, allowed] :
       {std::pair{FunctionDialect::kTorchScript, native},
        std::pair{FunctionDialect::kTorchScriptFromPython, from_python},
        std::pair{FunctionDialect::kPython, python}}) {
    const std::string f = EmitFunction(p, "f", dialect);
    for (const auto& name : TorchNames(f)) EXPECT_TRUE(allowed.count(name)) << name << " in\n" << f;
    if (dialect == FunctionDialect::kPython) continue;
    // TorchScript has no .bfloat16() and reads dtypes as c10::ScalarType codes.
    EXPECT_EQ(f.find(".bfloat16()"), std::string::npos) << f;
    EXPECT_NE(f.find("    v_method_bfloat16 = x.to(15)\n"), std::string::npos) << f;
    EXPECT_NE(f.find("    v_to_bool = x.to(11)\n"), std::string::npos) << f;
    EXPECT_NE(f.find("    v_method_float16 = x.half()\n"), std::string::npos) << f;
    EXPECT_NE(f.find("    v_softmax_dtype = torch.softmax(q, dim=3, dtype=6)\n"), std::string::npos)
        << f;
    EXPECT_NE(f.find("    v_to_cuda = x.to(\"cuda\")\n"), std::string::npos) << f;
    EXPECT_NE(f.find("    v_reshape_0d = s.reshape(())\n"), std::string::npos) << f;
    EXPECT_NE(f.find("    v_slice = q[:, 0:2:1]\n"), std::string::npos) << f;
    EXPECT_NE(f.find("    v_slice_neg = q[..., 0:3:2, :]\n"), std::string::npos) << f;
    EXPECT_NE(f.find("    v_addbmm = torch.addbmm(b, x, w, beta=-1.5, alpha=0.5)\n"),
              std::string::npos)
        << f;
    EXPECT_NE(
        f.find("scaled_dot_product_attention(q, q, q, attn_mask=m, scale=0.5, enable_gqa=True)\n"),
        std::string::npos)
        << f;
  }
}

// A compile step that fails in repro.py is never f's outcome unless it is the finding: the script
// exits kReproFailedExitCode instead, and says so in its docstring. So are inputs it cannot build.
TEST(PythonEmitter, ReproNeverTakesItsOwnCompileOrInputFailureForTheFinding) {
  const Program p = EveryOpAndFeature();
  ReproOptions o;
  o.backend = "torchscript";
  auto repro = [&](std::optional<bool> is_finding) {
    o.compile_error_is_finding = is_finding;
    return EmitRepro(p, {"grid16", 1}, o);
  };
  // The check is the body of attempt(), indented once.
  const std::string compile_block =
      "    try:\n"
      "        compiled_f = torch.jit.CompilationUnit(TS_SOURCE).f\n"
      "    except Exception as e:\n"
      "        compiled_f, compile_error = None, error_of(e)\n";
  const std::string tail =
      "    compiled = compile_error if compiled_f is None else outcome(compiled_f)\n";

  std::string compiled_path_compiled = repro(false);
  EXPECT_NE(compiled_path_compiled.find(
                compile_block +
                "        reproducer_failed(\"TorchScript could not compile f here, which "
                "mmdiff's path compiled\",\n                          compile_error)\n" +
                tail),
            std::string::npos)
      << compiled_path_compiled;
  EXPECT_NE(compiled_path_compiled.find("REPRODUCER_FAILED = 3\n"), std::string::npos);
  EXPECT_NE(compiled_path_compiled.find("    sys.exit(REPRODUCER_FAILED)\n"), std::string::npos);
  EXPECT_NE(compiled_path_compiled.find("\nimport sys\n"), std::string::npos);
  EXPECT_NE(compiled_path_compiled.find(
                "Exit status 3 (REPRODUCER FAILED): the script itself failed and compared "
                "nothing: its inputs cannot be built here, or TorchScript could not "
                "compile f, which mmdiff's path compiled.\n"),
            std::string::npos);
  EXPECT_EQ(kReproFailedExitCode, 3);
  // The compile is not inside outcome(), whose errors are f's.
  EXPECT_EQ(compiled_path_compiled.find("outcome(lambda *args: torch.jit"), std::string::npos);

  std::string compile_failed = repro(true);
  EXPECT_NE(
      compile_failed.find(
          compile_block +
          "        print(\"TorchScript could not compile f, as in mmdiff's run (the finding)\")\n" +
          tail),
      std::string::npos)
      << compile_failed;
  EXPECT_NE(compile_failed.find("TorchScript failing to compile f is the finding"),
            std::string::npos);

  std::string unknown = repro(std::nullopt);
  EXPECT_NE(unknown.find(
                compile_block +
                "        if eager[0] == \"error\":  # the two errors' classes may match, but say "
                "nothing about f\n"
                "            reproducer_failed(\"TorchScript could not compile f, and eager "
                "raised\", compile_error)\n"
                "        print(\"TorchScript could not compile f\")\n" +
                tail),
            std::string::npos)
      << unknown;
  // eager runs first: the unknown case reads its outcome.
  EXPECT_LT(unknown.find("    eager = outcome(f)\n"), unknown.find(compile_block));

  // Inputs are built outside the try that catches f's errors.
  EXPECT_NE(unknown.find("    args = inputs(make)\n    if on_meta:"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("    try:\n        outs = list(fn(*args))\n"), std::string::npos)
      << unknown;
  EXPECT_NE(
      unknown.find("        reproducer_failed(\"the inputs cannot be built here\", error_of(e))\n"),
      std::string::npos);

  // torch.compile compiles on the first call, as on mmdiff's paths: its errors are the outcome.
  o.backend = "inductor";
  std::string inductor = repro(false);
  EXPECT_NE(
      inductor.find("    compiled_f = torch.compile(f, backend=\"inductor\", fullgraph=True)\n"
                    "    compiled = outcome(compiled_f)\n"),
      std::string::npos)
      << inductor;
  EXPECT_EQ(inductor.find("try:\n        compiled_f"), std::string::npos);
  EXPECT_NE(
      inductor.find(
          "Exit status 3 (REPRODUCER FAILED): the script itself failed and compared nothing: its "
          "inputs cannot be built here.\n"),
      std::string::npos);
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// The epilogues in every dialect: the functional names in Python and from Python's resolver, the
// aten names TorchScript's native resolver knows; clamp's bounds as ints, gelu's approximation.
TEST(PythonEmitter, EpiloguesAreSpelledForEachDialect) {
  Program p = test_programs::Mm(2, 3, 4);
  const char* ops[] = {"relu", "gelu", "gelu", "silu", "sigmoid", "tanh", "clamp"};
  OpKind kinds[] = {OpKind::kRelu,    OpKind::kGelu, OpKind::kGelu, OpKind::kSilu,
                    OpKind::kSigmoid, OpKind::kTanh, OpKind::kClamp};
  std::string last = "v0";
  for (size_t i = 0; i < std::size(kinds); ++i) {
    Node n{"e" + std::to_string(i), kinds[i], {last}};
    n.gelu_tanh = i == 2;
    if (kinds[i] == OpKind::kClamp) std::tie(n.alpha, n.beta) = std::pair{0.0, 6.0};
    p.nodes.push_back(n);
    last = n.name;
    EXPECT_EQ(std::string(GetOpSpec(kinds[i]).name), ops[i]);
  }
  p.outputs = {last};
  const std::string py = EmitFunction(p, "f");
  for (const char* line :
       {"    e0 = torch.relu(v0)\n", "    e1 = torch.nn.functional.gelu(e0)\n",
        "    e2 = torch.nn.functional.gelu(e1, approximate=\"tanh\")\n",
        "    e3 = torch.nn.functional.silu(e2)\n", "    e4 = torch.sigmoid(e3)\n",
        "    e5 = torch.tanh(e4)\n", "    e6 = torch.clamp(e5, 0, 6)\n"})
    EXPECT_NE(py.find(line), std::string::npos) << line << py;
  const std::string ts = EmitFunction(p, "f", FunctionDialect::kTorchScript);
  EXPECT_NE(ts.find("    e2 = torch.gelu(e1, approximate=\"tanh\")\n"), std::string::npos) << ts;
  EXPECT_NE(ts.find("    e3 = torch.silu(e2)\n"), std::string::npos) << ts;
  const std::string from_python = EmitFunction(p, "f", FunctionDialect::kTorchScriptFromPython);
  EXPECT_NE(from_python.find("torch.nn.functional.silu(e2)"), std::string::npos);
  auto back = ProgramFromJson(ProgramToJson(p));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), p);
  EXPECT_EQ(ProgramToJson(p)["nodes"][7]["min"], 0.0);
  EXPECT_EQ(ProgramToJson(p)["nodes"][3]["approximate"], "tanh");
}

}  // namespace
}  // namespace mmdiff
