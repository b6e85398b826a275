// Cases shared by the unit tests of root causes (oracles/) and of what a report says of them
// (src/report/): the seed bug (float16 @ float32 matmul of rank 4), where reference and eager raise
// and inductor returns float32; results with their path's traits, as the worker returns them; the
// mitigation knobs' reruns.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "oracles/accuracy.h"
#include "oracles/case_run.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"
#include "src/ir/recorded_paths.h"

namespace mmdiff::case_test {

inline Program Seed(Shape a = {2, 4, 8, 8}) {
  Program p;
  p.inputs = {{"x0", a, DType::kFloat16}, {"x1", {2, 4, 8, 64}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMatmul, {"x0", "x1"}}};
  p.outputs = {"v0"};
  return p;
}

inline std::vector<PathResult> SeedResults() {
  PathResult ref{"reference", OutcomeKind::kError}, eager{"eager", OutcomeKind::kError},
      ind{"inductor", OutcomeKind::kOk};
  ref.error_class = eager.error_class = "RuntimeError";
  ind.outputs.push_back({DType::kFloat32, {2, 4, 8, 64}, Device::kCpu, {}, {}});
  std::vector<PathResult> results = {ref, eager, ind};
  SetRecordedTraits(results);
  return results;
}

// Results as the worker returns them: each with its path's traits.
inline PathResult Ok(const std::string& path, DType d, Shape s, Device dev = Device::kCpu) {
  PathResult r{path, OutcomeKind::kOk};
  r.traits = RecordedPathTraits(path);
  r.outputs.push_back({d, std::move(s), dev, {}, {}});
  return r;
}

inline PathResult Raises(const std::string& path, const std::string& cls) {
  PathResult r{path, OutcomeKind::kError};
  r.traits = RecordedPathTraits(path);
  r.error_class = cls;
  r.message = "expected scalar type Half but found Float";
  return r;
}

inline std::vector<std::string> Signatures(const CaseRun& c) {
  std::vector<std::string> out;
  for (const auto& k : CaseFindings(c)) out.push_back(k.signature);
  return out;
}

// x.to(via).to(float32), as pytorch#185337's reduced case on torch 2.11.0: eager and the
// reference round 0.1 to float16 (0.0999755859375), inductor returns 0.1 (the exact result).
inline CaseRun RoundTrip(DType via = DType::kFloat16, double inductor = 0.1) {
  Program p;
  p.inputs = {{"x1", {1}, DType::kFloat32}};
  p.nodes = {{"v2", OpKind::kCast, {"x1"}, via}, {"v3", OpKind::kCast, {"v2"}, DType::kFloat32}};
  p.outputs = {"v3"};
  const double rounded = 0.0999755859375;
  std::vector<PathResult> rs = {Ok("reference", DType::kFloat32, {1}),
                                Ok("eager", DType::kFloat32, {1}),
                                Ok("inductor", DType::kFloat32, {1})};
  rs[0].outputs[0].data = {rounded};
  rs[0].outputs[0].bound = {0};
  rs[1].outputs[0].data = {rounded};
  rs[2].outputs[0].data = {inductor};
  return JudgeCase(p, {"grid16", 1}, rs);
}

// add(mm(a, b), bias) in bfloat16 (`product`: the add's first operand is the mm, else an input):
// eager and the reference round the product before adding (0.140625), inductor returns `got`;
// `internals` are what its compile reported.
inline CaseRun BiasAdd(double got, const std::vector<std::string>& internals, bool product = true) {
  Program p;
  p.inputs = {{"a", {1, 2}, DType::kBFloat16},
              {"b", {2, 1}, DType::kBFloat16},
              {"bias", {1}, DType::kBFloat16},
              {"c", {1, 1}, DType::kBFloat16}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}},
             {"v1", OpKind::kView, {"v0"}},
             {"v2", OpKind::kAdd, {product ? "v1" : "c", "bias"}}};
  p.nodes[1].ints = {1, 1};
  p.outputs = {"v2"};
  std::vector<PathResult> rs = {Ok("reference", DType::kBFloat16, {1, 1}),
                                Ok("eager", DType::kBFloat16, {1, 1}),
                                Ok("inductor", DType::kBFloat16, {1, 1})};
  rs[0].outputs[0].data = rs[1].outputs[0].data = {0.140625};
  rs[0].outputs[0].bound = {0.00226};
  rs[2].outputs[0].data = {got};
  rs[2].compile.internals = internals;
  return JudgeCase(p, {"grid16", 1}, rs);
}

// What inductor's compile reports where post_grad.addmm fused the add into addmm.
inline const std::vector<std::string> kAddmmFused = {"rewrite:post_grad.addmm", "extern:addmm"};

// Classified against a float64 run whose result is `exact`.
inline void Classify(CaseRun& c, double exact) {
  PathResult fp64 = c.results[0];
  fp64.path = kReferenceFloat64Path;
  fp64.outputs[0].dtype = DType::kFloat64;
  fp64.outputs[0].data = {exact};
  ASSERT_TRUE(ClassifyAgainstFloat64(c.verdict, c.results, fp64));
  c.finding = LeadFinding(c);
}

// The mitigation knobs' reruns, emulate_precision_casts removing the divergence or not.
inline std::vector<Mitigation> Knobs(bool emulate_removes) {
  return {{"torch._inductor.config.emulate_precision_casts = True",
           "inductor_emulate_precision_casts", emulate_removes, ""},
          {"torch._inductor.config.fallback_random = True", "inductor_fallback_random", false, ""}};
}

}  // namespace mmdiff::case_test
