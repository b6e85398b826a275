// Tests for the repro.py the Python emitter writes: the embedded helpers each check holds, the
// calls before a case, the attempts, a model's weights and a knob variant's settings. The scripts
// run against real torch in the end-to-end tests in tests/.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "mmdiff/python/planted_backends.h"
#include "mmdiff/python/repro_aoti.h"
#include "mmdiff/python/repro_calls_before.h"
#include "mmdiff/python/repro_ignored_input.h"
#include "mmdiff/python/repro_inputs.h"
#include "mmdiff/python/repro_meta.h"
#include "mmdiff/python/repro_module.h"
#include "mmdiff/python/repro_outcome.h"
#include "mmdiff/python/root_cause.h"
#include "src/ir/python_emitter.h"
#include "src/ir/test_programs.h"

namespace mmdiff {
namespace {

size_t Count(const std::string& s, std::string_view part) {
  size_t n = 0;
  for (size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

// The fixed helpers are the Python sources in src/ir/python, below their marker lines (their
// functions are tested by the *_test.py files there): each repro.py holds the ones its check uses,
// once, without what is above the marker, and the root-cause rule is the one the worker runs.
TEST(PythonEmitter, ReprosHoldTheEmbeddedHelpersTheirChecksUse) {
  using Check = ReproOptions::Check;
  for (const auto& text :
       {embedded::kRootCausePy, embedded::kReproInputsPy, embedded::kReproOutcomePy,
        embedded::kReproAotiPy, embedded::kReproMetaPy, embedded::kReproIgnoredInputPy,
        embedded::kReproCallsBeforePy, embedded::kPlantedBackendsPy}) {
    EXPECT_EQ(text.find("embed_python.cmake"), std::string_view::npos) << text;
    EXPECT_EQ(text.back(), '\n') << text;
    EXPECT_NE(text.front(), '\n') << text;
  }
  EXPECT_EQ(embedded::kRootCausePy.rfind("def root_cause(e):\n", 0), 0u);
  for (Check check : {Check::kCompiledVsEager, Check::kMetaVsCpu, Check::kEagerVsContract,
                      Check::kEagerValue, Check::kIgnoredInput}) {
    for (std::string backend : {"inductor", "torchscript", "aoti"}) {
      ReproOptions o;
      o.check = check;
      o.backend = backend;
      o.zeroed = {1};
      const std::string s = EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o);
      SCOPED_TRACE(s);
      EXPECT_EQ(Count(s, embedded::kRootCausePy), 1u);
      EXPECT_EQ(Count(s, embedded::kReproInputsPy), 1u);
      EXPECT_EQ(Count(s, embedded::kReproOutcomePy), 1u);
      // repro.py names an error as the worker does: by root_cause(), defined before its user.
      EXPECT_EQ(Count(s, "def root_cause(e):"), 1u);
      EXPECT_LT(s.find("def root_cause(e):"), s.find("def error_of(e):"));
      EXPECT_NE(s.find("    name, _, message = root_cause(e)\n"), std::string::npos);
      EXPECT_LT(s.find("REPRODUCER_FAILED = 3\n"), s.find("def reproducer_failed("));
      EXPECT_LT(s.find("RECIPE = {"), s.find(embedded::kReproInputsPy));
      EXPECT_LT(s.find(embedded::kReproInputsPy), s.find("def make_inputs():"));
      const bool aoti =
          backend == "aoti" && (check == Check::kCompiledVsEager || check == Check::kIgnoredInput);
      EXPECT_EQ(Count(s, embedded::kReproAotiPy), aoti ? 1u : 0u);
      EXPECT_EQ(Count(s, embedded::kReproMetaPy), check == Check::kMetaVsCpu ? 1u : 0u);
      EXPECT_EQ(Count(s, embedded::kReproIgnoredInputPy), check == Check::kIgnoredInput ? 1u : 0u);
      // Standalone: it imports torch and the standard library only, nothing of mmdiff's.
      std::set<std::string> imported;
      std::istringstream lines(s);
      for (std::string line; std::getline(lines, line);) {
        size_t at = line.find_first_not_of(' ');
        if (at == std::string::npos) continue;
        std::string_view code = std::string_view(line).substr(at);
        for (std::string_view kw : {"import ", "from "})
          if (code.substr(0, kw.size()) == kw) {
            code.remove_prefix(kw.size());
            imported.insert(std::string(code.substr(0, code.find(' '))));
          }
      }
      std::set<std::string> allowed = {"math", "platform", "sys", "torch", "os", "tempfile"};
      for (const auto& module : imported)
        EXPECT_TRUE(allowed.count(module.substr(0, module.find('.')))) << module;
    }
  }
}

// A case with calls before it: the compared path that keeps state is called on them first, once per
// attempt, after a fresh start; paths without state (aoti) and eager's own checks have none.
TEST(PythonEmitter, ReproMakesTheCallsBeforeTheCaseOnAPathThatKeepsState) {
  Program p = test_programs::MatmulCastAddmm();
  Program smaller = p;
  for (auto& in : smaller.inputs)
    for (auto& d : in.shape)
      if (d == 8) d = 5;
  ReproOptions o;
  o.backend = "inductor";
  o.before = {PriorCallOf(smaller, {"exact", 7})};
  const std::string s = EmitRepro(p, {"grid16", 1}, o);
  SCOPED_TRACE(s);
  EXPECT_NE(s.find("CALLS_BEFORE = [\n    ({'kind': \"exact\", 'seed': 7,"), std::string::npos);
  EXPECT_NE(s.find("def make_inputs_before(recipe, shapes):\n    return [\n"
                   "        _mmdiff_input(recipe, 0, shapes[0], "),
            std::string::npos);
  EXPECT_NE(s.find(embedded::kReproCallsBeforePy), std::string::npos);
  const size_t reset = s.find("    torch._dynamo.reset()\n    compiled_f = torch.compile(f"),
               before = s.find("    calls_before(compiled_f)\n"),
               run = s.find("    compiled = outcome(compiled_f)\n");
  ASSERT_NE(reset, std::string::npos);
  EXPECT_LT(reset, before);
  EXPECT_LT(before, run);
  // The shapes of each call, in input order.
  EXPECT_NE(s.find("[(2, 4, 5), (5, 3), (3,)]"), std::string::npos);

  for (auto [backend, check] :
       {std::pair{std::string("aoti"), ReproOptions::Check::kCompiledVsEager},
        std::pair{std::string("inductor"), ReproOptions::Check::kEagerValue},
        std::pair{std::string("inductor"), ReproOptions::Check::kMetaVsCpu}}) {
    o.backend = backend;
    o.check = check;
    const std::string none = EmitRepro(p, {"grid16", 1}, o);
    EXPECT_EQ(none.find("CALLS_BEFORE"), std::string::npos) << none;
    EXPECT_EQ(none.find("calls_before("), std::string::npos) << none;
  }
}

// The check runs up to ATTEMPTS times: its body is attempt(), which conclude() runs.
TEST(PythonEmitter, ReproRunsItsCheckUpToItsAttempts) {
  ReproOptions o;
  o.attempts = 5;
  const std::string s = EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o);
  EXPECT_NE(s.find("ATTEMPTS = 5  # "), std::string::npos) << s;
  EXPECT_NE(s.find("\n\ndef attempt():\n    eager = outcome(f)\n"), std::string::npos) << s;
  EXPECT_TRUE(s.ends_with("\n\nconclude(attempt, ATTEMPTS)\n")) << s;
  // A backward error is not a forward error: the outcomes are compared with same_outcome().
  EXPECT_NE(s.find("assert same_outcome(eager, compiled)"), std::string::npos);
  EXPECT_EQ(s.find("eager[:2] == compiled[:2]"), std::string::npos);
}

// A program with weights is a model: Model holds them, forward takes the rest, and both eager and
// the compiled path run through it (module_call), as mmdiff's worker does.
TEST(PythonEmitter, AProgramWithWeightsRunsAsItsModelInRepro) {
  const Program p = test_programs::LinearModel();
  const std::string module = EmitModule(p);
  EXPECT_NE(module.find("class Model(torch.nn.Module):\n"), std::string::npos) << module;
  EXPECT_NE(module.find("    def __init__(self, w, b):\n        super().__init__()\n"
                        "        self.w = w  # a torch.nn.Parameter\n"
                        "        self.register_buffer(\"b\", b)\n"),
            std::string::npos)
      << module;
  EXPECT_NE(module.find("    def forward(self, x):\n        return f(x, self.w, self.b)\n"),
            std::string::npos)
      << module;
  EXPECT_NE(module.find("WEIGHTS = [1, 2]"), std::string::npos);
  EXPECT_NE(module.find("PARAMETERS = [1]"), std::string::npos);
  EXPECT_NE(module.find("FORWARD = [0]"), std::string::npos);
  EXPECT_EQ(EmitModule(test_programs::Mm(2, 3, 4)), "");  // no weights, no model
  InputRecipe r{"normal", 5};
  r.weights = {InputRecipe{"exact", 2}};
  const std::string builder = EmitInputBuilder(p, r);
  EXPECT_NE(builder.find("'weights': {'kind': \"exact\", 'seed': 2"), std::string::npos) << builder;
  EXPECT_NE(builder.find("_mmdiff_input(RECIPE, 0, (4, 8)"), std::string::npos) << builder;
  EXPECT_NE(builder.find("_mmdiff_input(_mmdiff_weights_recipe(RECIPE), 1, (16, 8)"),
            std::string::npos)
      << builder;
  ReproOptions o;
  const std::string s = EmitRepro(p, r, o);
  EXPECT_EQ(Count(s, embedded::kReproModulePy), 1u);
  EXPECT_LT(s.find("def f("), s.find("class Model("));
  EXPECT_NE(s.find("    eager = outcome(module_call())\n"), std::string::npos) << s;
  EXPECT_NE(s.find("compiled_f = module_call(lambda model: torch.compile(model, "
                   "backend=\"inductor\", fullgraph=True))"),
            std::string::npos)
      << s;
  // A program without weights is a function, as before.
  const std::string plain = EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o);
  EXPECT_EQ(Count(plain, embedded::kReproModulePy), 0u);
  EXPECT_NE(plain.find("    eager = outcome(f)\n"), std::string::npos);
}

// A knob variant's finding compiles the way the variant did: its settings at the top, dynamic=True
// for the dynamic one, under torch.no_grad() for those that compile for inference.
TEST(PythonEmitter, AVariantsReproSetsItsKnobsAndCompilesAsTheVariantDoes) {
  ReproOptions o;
  o.backend = "inductor_max_autotune";
  const std::string s = EmitRepro(test_programs::LinearModel(), {"grid16", 1}, o);
  EXPECT_NE(s.find("torch._inductor.config.freezing = True\n"), std::string::npos) << s;
  EXPECT_NE(s.find("torch._inductor.config.max_autotune = True\n"), std::string::npos);
  EXPECT_NE(s.find("torch._inductor.config.max_autotune_gemm_backends = 'CPP'\n"),
            std::string::npos);
  EXPECT_NE(s.find("compiled_f = torch.no_grad()(module_call(lambda model: torch.compile(model, "
                   "backend=\"inductor\", fullgraph=True)))"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("exits non-zero while eager and torch.compile(Model(...), backend='inductor') "
                   "with torch._inductor.config.max_autotune = True; "),
            std::string::npos)
      << s;
  o.backend = "inductor_dynamic";
  const std::string d = EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o);
  EXPECT_NE(d.find("torch.compile(f, backend=\"inductor\", fullgraph=True, dynamic=True)"),
            std::string::npos)
      << d;
  EXPECT_EQ(d.find("torch.no_grad()"), std::string::npos);
  EXPECT_EQ(d.find("torch._inductor.config."), std::string::npos);
  // The knobs are the compared path's: a check of eager alone sets none of them.
  o.backend = "inductor_freezing";
  o.check = ReproOptions::Check::kEagerValue;
  EXPECT_EQ(EmitRepro(test_programs::MatmulCastAddmm(), {"grid16", 1}, o)
                .find("torch._inductor.config.freezing"),
            std::string::npos);
}

}  // namespace
}  // namespace mmdiff
