// Program generation: the op table and the entry points (the builders are ProgramBuilder's,
// src/gen/program_builder.h).
#include "src/gen/generator.h"

#include "src/gen/program_builder.h"
#include "src/ir/verifier.h"

namespace mmdiff {

const std::vector<GenOp>& GenOps() {
  using B = ProgramBuilder;
  static const std::vector<GenOp> kOps = {
      {OpKind::kMm, &GenPolicy::w_mm, "w_mm", &B::Mm},
      {OpKind::kBmm, &GenPolicy::w_bmm, "w_bmm", &B::Bmm},
      {OpKind::kMatmul, &GenPolicy::w_matmul, "w_matmul", &B::Matmul},
      {OpKind::kAddmm, &GenPolicy::w_addmm, "w_addmm", &B::Addmm},
      {OpKind::kMv, &GenPolicy::w_mv, "w_mv", &B::Mv},
      {OpKind::kDot, &GenPolicy::w_dot, "w_dot", &B::Dot},
      {OpKind::kAddmv, &GenPolicy::w_addmv, "w_addmv", &B::Addmv},
      {OpKind::kBaddbmm, &GenPolicy::w_baddbmm, "w_baddbmm", &B::Baddbmm},
      {OpKind::kAddbmm, &GenPolicy::w_addbmm, "w_addbmm", &B::Addbmm},
      {OpKind::kLinear, &GenPolicy::w_linear, "w_linear", &B::Linear},
      {OpKind::kSdpa, &GenPolicy::w_sdpa, "w_sdpa", &B::Sdpa},
      {OpKind::kSoftmax, &GenPolicy::w_attention, "w_attention", &B::Attention},
  };
  return kOps;
}

InputRecipe GenerateRecipe(ChoiceSource& c, const GenPolicy& p) {
  InputRecipe r;
  r.kind = RecipeKinds()[c.Weighted({p.w_grid16, p.w_exact, p.w_uniform, p.w_normal})];
  r.seed = c.Next();
  if (r.kind == "uniform") {
    static const std::vector<std::pair<double, double>> kRanges = {
        {-1, 1}, {0, 1}, {-100, 100}, {-1e-3, 1e-3}, {-8, 8}};
    std::tie(r.lo, r.hi) = c.Pick(kRanges);
  } else if (r.kind == "normal") {
    static const std::vector<double> kStd = {1, 0.01, 30}, kMean = {0, 0, 1};
    r.std = c.Pick(kStd);
    r.mean = c.Pick(kMean);
  }
  if (r.kind != "grid16" && c.Coin(p.p_special)) r.special = p.special_rate;
  return r;
}

GeneratedCase GenerateCase(ChoiceSource& choices, const GenPolicy& policy) {
  GeneratedCase c = ProgramBuilder(choices, policy).Build();
  // Generation is valid by construction; a failure here is a generator bug, caught by tests.
  Status s = Verify(c.program);
  if (!s.ok()) c.program.outputs = {"__generator_bug__:" + s.message()};
  return c;
}

Program Generate(ChoiceSource& choices, const GenPolicy& policy) {
  return GenerateCase(choices, policy).program;
}

}  // namespace mmdiff
