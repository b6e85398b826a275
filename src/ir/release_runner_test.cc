// Tests for the runner `mmdiff releases` generates (its Python runs in the ReleasesE2E tests).
#include "src/ir/release_runner.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

Program Mm() {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat16}, {"b", {3, 2}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  return p;
}

TEST(ReleaseRunner, RunsOnlyThePythonPaths) {
  for (const char* p : {"eager", "eager_meta", "inductor", "aot_eager", "compile_eager",
                        "torchscript", "aoti", "inductor_emulate_precision_casts",
                        "inductor_freezing", "inductor_max_autotune", "inductor_dynamic"})
    EXPECT_TRUE(ReleaseRunnerRuns(p)) << p;
  for (const char* p :
       {"reference", "planted_promote", "planted_variant_drop_bias", "aot_eager_deploy", ""})
    EXPECT_FALSE(ReleaseRunnerRuns(p)) << p;
}

// A knob variant runs as torch.compile with inductor, its settings (the catalogue's literals),
// dynamic=True and torch.no_grad() given in VARIANTS; a case without one has no VARIANTS.
TEST(ReleaseRunner, AKnobVariantCarriesItsSettings) {
  std::string s = EmitReleaseRunner(
      Mm(), {"grid16", 7}, {"eager", "inductor", "inductor_max_autotune", "inductor_dynamic"});
  EXPECT_NE(s.find("(\"inductor_max_autotune\", \"torch_compile\", \"inductor\")"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("VARIANTS = {\"inductor_max_autotune\": ({'max_autotune': True, "
                   "'max_autotune_gemm_backends': 'CPP'"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("}, False, True), \"inductor_dynamic\": ({}, True, False)}\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("def no_template_choice(e, settings):"), std::string::npos);
  EXPECT_EQ(EmitReleaseRunner(Mm(), {"grid16", 7}, {"eager", "inductor"}).find("VARIANTS = "),
            std::string::npos);
}

TEST(ReleaseRunner, TheScriptNamesItsPathsAndCarriesWhatThoseNeed) {
  std::string plain =
      EmitReleaseRunner(Mm(), {"grid16", 7}, {"reference", "eager", "inductor", "planted_promote"});
  EXPECT_NE(plain.find("PATHS = [(\"eager\", \"call\", \"\"), (\"inductor\", \"torch_compile\", "
                       "\"inductor\")]\n"),
            std::string::npos)
      << plain;
  EXPECT_NE(plain.find("def f(a, b):"), std::string::npos);
  EXPECT_NE(plain.find("def make_inputs():"), std::string::npos);
  EXPECT_NE(plain.find("def root_cause(e):"), std::string::npos);
  EXPECT_NE(plain.find("_rr_main(sys.argv[1])"), std::string::npos);
  EXPECT_EQ(plain.find("TS_SOURCE = "), std::string::npos);  // no torchscript asked for
  EXPECT_EQ(plain.find("def aoti("), std::string::npos);
  std::string compiled = EmitReleaseRunner(Mm(), {"grid16", 7}, {"torchscript", "aoti"});
  EXPECT_NE(compiled.find("PATHS = [(\"torchscript\", \"jit_compilation_unit\", \"\"), (\"aoti\", "
                          "\"aoti_package\", \"\")]\n"),
            std::string::npos)
      << compiled;
  // The path Dynamo alone runs is torch.compile with backend "eager", as mmdiff's own path.
  EXPECT_NE(EmitReleaseRunner(Mm(), {"grid16", 7}, {"compile_eager", "eager_meta"})
                .find("PATHS = [(\"compile_eager\", \"torch_compile\", \"eager\"), "
                      "(\"eager_meta\", \"call_on_meta\", \"\")]\n"),
            std::string::npos);
  EXPECT_NE(compiled.find("TS_SOURCE = \"\"\"\ndef f(a, b):"), std::string::npos) << compiled;
  EXPECT_NE(compiled.find("def aoti("), std::string::npos);
  EXPECT_EQ(compiled.find("CALLS_BEFORE = ["), std::string::npos);  // no calls before
}

// A case with calls before: the script defines them, and its paths that keep state make them
// first (release_runner.py's _rr_before).
TEST(ReleaseRunner, ACaseWithCallsBeforeCarriesThem) {
  Program smaller = Mm();
  smaller.inputs[0].shape = {1, 3};
  std::string s = EmitReleaseRunner(Mm(), {"grid16", 7}, {"eager", "inductor"},
                                    {PriorCallOf(smaller, {"exact", 5})});
  EXPECT_NE(s.find("CALLS_BEFORE = [\n    ({'kind': \"exact\", 'seed': 5,"), std::string::npos)
      << s;
  EXPECT_NE(s.find("def make_inputs_before(recipe, shapes):"), std::string::npos);
  EXPECT_NE(s.find("def calls_before(fn, quiet=False):"), std::string::npos);
  EXPECT_LT(s.find("def calls_before("), s.find("def _rr_before(fn):"));
  EXPECT_NE(s.find("_rr_result(_rr_before(torch.compile(f, backend=backend, fullgraph=True)))"),
            std::string::npos);
}

}  // namespace
}  // namespace mmdiff
