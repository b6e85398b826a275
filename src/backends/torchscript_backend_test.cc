// The torchscript path on real LibTorch, below the worker: every dtype code of the TorchScript
// spelling is the dtype it stands for, and a spelling TorchScript rejects is an error outcome.
#include "src/backends/torchscript_backend.h"

#include <gtest/gtest.h>

#include "src/ir/python_emitter.h"

namespace mmdiff {
namespace {

struct NoStages : StageReporter {
  void Stage(const std::string&) override {}
};

TEST(TorchScriptBackend, IsAvailableWithTheInstalledLibTorch) {
  EXPECT_EQ(MakeTorchScriptBackend()->Unavailable(), "");
}

TEST(TorchScriptBackend, EveryCastLandsOnItsDType) {
  Program p;
  p.inputs = {{"x", {2, 3}, DType::kFloat32}};
  for (DType d : AllDTypes()) {
    Node to{"to_" + std::string(DTypeName(d)), OpKind::kCast, {"x"}, d};
    p.nodes.push_back(to);
    p.outputs.push_back(to.name);
    if (CastMethodName(d)) {  // .float(), .half(), .double(), and .bfloat16() spelled .to(15)
      Node method{"m_" + std::string(DTypeName(d)), OpKind::kCast, {"x"}, d};
      method.method_spelling = true;
      p.nodes.push_back(method);
      p.outputs.push_back(method.name);
    }
  }
  NoStages stages;
  PathResult r = MakeTorchScriptBackend()->Run(p, {"grid16", 1}, stages);
  ASSERT_EQ(r.kind, OutcomeKind::kOk) << r.error_class << ": " << r.message << "\n"
                                      << EmitFunction(p, "f", FunctionDialect::kTorchScript);
  ASSERT_EQ(r.outputs.size(), p.outputs.size());
  for (size_t i = 0; i < r.outputs.size(); ++i)
    EXPECT_EQ(r.outputs[i].dtype, *p.FindNode(p.outputs[i])->dtype) << p.outputs[i];
}

TEST(TorchScriptBackend, ASpellingTorchScriptRejectsIsARuntimeErrorWithTheCompilersReason) {
  Program p;
  p.inputs = {{"x", {2, 3}, DType::kFloat32}, {"w", {4, 3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kLinear, {"x", "w"}}};
  p.outputs = {"v0"};
  // The Python spelling says torch.nn.functional.linear, which TorchScript without Python cannot
  // find.
  PathResult rejected = RunTorchScriptSource(EmitFunction(p), p, {"grid16", 1});
  EXPECT_EQ(rejected.kind, OutcomeKind::kError);
  EXPECT_EQ(rejected.error_class, "RuntimeError");
  EXPECT_EQ(rejected.error_type, "torch::jit::ErrorReport");
  EXPECT_EQ(rejected.message, "attribute lookup is not defined on builtin:");
  EXPECT_TRUE(rejected.compile.compiled);
  PathResult ok =
      RunTorchScriptSource(EmitFunction(p, "f", FunctionDialect::kTorchScript), p, {"grid16", 1});
  EXPECT_EQ(ok.kind, OutcomeKind::kOk) << ok.message;
  EXPECT_TRUE(ok.compile.present && ok.compile.compiled && !ok.compile.reused);
}

TEST(TorchScriptBackend, ErrorsKeepTheClassTheInterpreterGivesAndTheOperatorsMessage) {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kBool}, {"b", {3, 4}, DType::kBool}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  NoStages stages;
  PathResult r = MakeTorchScriptBackend()->Run(p, {"grid16", 1}, stages);
  EXPECT_EQ(r.kind, OutcomeKind::kError);
  EXPECT_EQ(r.error_class, "NotImplementedError");  // the one class the interpreter keeps
  EXPECT_EQ(r.message, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
}

}  // namespace
}  // namespace mmdiff
