// The self-test: planted faults and false-alarm checks.
#include "src/campaign/selftest.h"

#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include "oracles/metamorphic.h"
#include "src/gen/generator.h"
#include "src/ir/autocast.h"
#include "src/ir/paths.h"
#include "src/ir/static_types.h"
#include "src/report/report.h"
#include "src/report/run_case.h"

namespace mmdiff {

namespace {

InputSpec In(const std::string& name, Shape shape, DType d) { return {name, std::move(shape), d}; }

Program OneNode(std::vector<InputSpec> inputs, OpKind op) {
  Program p;
  p.inputs = std::move(inputs);
  Node n{"v0", op, {}};
  for (const auto& in : p.inputs) n.args.push_back(in.name);
  p.nodes = {n};
  p.outputs = {"v0"};
  return p;
}

// The program with every input requiring grad: a training program.
Program Training(Program p) {
  for (auto& in : p.inputs) in.requires_grad = true;
  return p;
}

// The program with every node in one cpu float16 autocast region.
Program InAutocast(Program p) {
  p.autocast = {{Device::kCpu, DType::kFloat16, true, std::nullopt}};
  for (auto& n : p.nodes) n.autocast = 0;
  return p;
}

// The program with its addmm-family node's beta set to 0.
Program IgnoringBias(Program p) {
  p.nodes.at(0).beta = 0.0;
  return p;
}

struct Planted {
  std::string path, fault;
  Program program;
  InputRecipe recipe;
};

std::vector<Planted> PlantedFaults() {
  InputRecipe uniform{"uniform", 1};
  InputRecipe normal{"normal", 2};
  InputRecipe nans{"uniform", 3};
  nans.special = 0.5;                      // NaN among other special values: NaN + x is exactly NaN
  InputRecipe zeros_and_infs{"exact", 6};  // small integers, 0 among them, and special values
  zeros_and_infs.special = 0.08;
  InputRecipe column_nan{"uniform", 7};
  column_nan.special = 0.03;
  InputRecipe near_max_product{"uniform", 5};  // c NaN, a and b -1.797e308
  near_max_product.special = 1.0;
  return {
      {paths::kPlantedDropK, "mm leaves out the last k-term",
       OneNode({In("a", {8, 16}, DType::kFloat32), In("b", {16, 8}, DType::kFloat32)}, OpKind::kMm),
       uniform},
      {paths::kPlantedHalfAccumulate, "a float32 matmul computed in float16",
       OneNode({In("a", {8, 64}, DType::kFloat32), In("b", {64, 8}, DType::kFloat32)}, OpKind::kMm),
       normal},
      {paths::kPlantedWrongDtype,
       "a float32 result returned as float64",
       OneNode({In("a", {4, 5}, DType::kFloat32), In("b", {5, 3}, DType::kFloat32)}, OpKind::kMm),
       {"grid16", 4}},
      {paths::kPlantedPromote,
       "a float16 @ float32 batched matmul accepted (pytorch#177630)",
       OneNode({In("a", {2, 4, 8, 8}, DType::kFloat16), In("b", {2, 4, 8, 16}, DType::kFloat32)},
               OpKind::kMatmul),
       {"grid16", 5}},
      {paths::kPlantedNanToNumber, "NaN in a result turned into 0",
       OneNode({In("a", {64}, DType::kFloat32), In("b", {64}, DType::kFloat32)}, OpKind::kAdd),
       nans},
      {paths::kPlantedInfTimesZero, "mm counts inf * 0 as 0 (a zero-skipping kernel)",
       OneNode({In("a", {8, 16}, DType::kFloat32), In("b", {16, 8}, DType::kFloat32)}, OpKind::kMm),
       zeros_and_infs},
      {paths::kPlantedSpreadNan, "mm makes the column after a NaN or an infinity NaN too",
       OneNode({In("a", {8, 16}, DType::kFloat32), In("b", {16, 8}, DType::kFloat32)}, OpKind::kMm),
       column_nan},
      // Seen only by the rerun with the ignored input zeroed: the bias is NaN and the product of
      // two near-max float64 values is beyond float64, so the reference leaves the element
      // unjudged; eager returns inf, the planted path NaN (0 * NaN + inf).
      {paths::kPlantedBiasTimesBeta,
       "addmm with beta = 0 computes 0 * input, so a NaN input spreads",
       IgnoringBias(OneNode({In("c", {1, 1}, DType::kFloat64), In("a", {1, 1}, DType::kFloat64),
                             In("b", {1, 1}, DType::kFloat64)},
                            OpKind::kAddmm)),
       near_max_product},
      {paths::kPlantedDropGradTerm, "mm's backward leaves one term out of each element of dB",
       Training(OneNode({In("a", {8, 16}, DType::kFloat32), In("b", {16, 8}, DType::kFloat32)},
                        OpKind::kMm)),
       uniform},
      {paths::kPlantedIgnoreAutocast, "a float16 autocast region run in float32",
       InAutocast(OneNode({In("a", {8, 16}, DType::kFloat32), In("b", {16, 8}, DType::kFloat32)},
                          OpKind::kMm)),
       uniform},
  };
}

// a and b bit for bit, except where the reference allows a set of specials or anything (an
// overflow may give inf or NaN: eager on one thread and on two do for the same near-max inputs).
bool SameBits(const PathResult& ref, const PathResult& a, const PathResult& b) {
  if (!a.ok() || !b.ok() || a.outputs.size() != b.outputs.size()) return false;
  for (size_t o = 0; o < a.outputs.size(); ++o) {
    const auto &x = a.outputs[o].data, &y = b.outputs[o].data;
    if (x.size() != y.size()) return false;
    const TensorValue* r = ref.ok() && o < ref.outputs.size() ? &ref.outputs[o] : nullptr;
    for (size_t i = 0; i < x.size(); ++i) {
      bool set = r && i < r->data.size() &&
                 ((i < r->bound.size() && std::isinf(r->bound[i])) ||
                  (i < r->also.size() && r->also[i] != 0));
      if (set) continue;
      // NaN payloads and the sign of a zero are not compared: a product does not fix the sign of a
      // zero.
      if (!(std::isnan(x[i]) && std::isnan(y[i])) && !(x[i] == 0 && y[i] == 0) &&
          std::memcmp(&x[i], &y[i], sizeof(double)) != 0)
        return false;
    }
  }
  return true;
}

// Eager's own defect, not the oracle's: an addmm-family op with alpha = 0 in float16 or bfloat16
// may ignore beta or return uninitialised memory (catalogued for bfloat16 as
// corpus/regression/eager-{addmv,baddbmm}-bfloat16-alpha0-ignores-beta.json; float16 too on CPUs
// with AVX512-FP16, seen on 2026-11-26 on a Sapphire Rapids Xeon: baddbmm and addmv). The
// false-alarm checks are about the oracle, so they leave such programs out, as they leave out
// bfloat16 operands.
bool EagersAlphaZeroDefect(const Program& program) {
  // Under autocast, in the dtypes the ops run in.
  const Program p = LowerAutocast(program).program;
  std::map<std::string, StaticType> types = InferStaticTypes(p);
  for (const Node& n : p.nodes) {
    auto t = types.find(n.name);
    if (GetOpSpec(n.op).has_alpha_beta && n.alpha == 0 && t != types.end() &&
        IsHalfFloat(t->second.dtype))
      return true;
  }
  return false;
}

// Runs `programs` valid programs through the reference, eager and `other`, half of them with
// exact values, and fills one check for eager vs reference (when other is eager_1thread) and one
// for eager vs other, per value mode.
void FalseAlarms(Supervisor& sup, const std::string& other, int64_t programs, uint64_t seed,
                 bool special, std::vector<FalseAlarmCheck>& out) {
  GenPolicy policy = SelftestPolicy(special);
  bool with_reference_check = other == paths::kEagerOneThread;
  for (bool exact : {false, true}) {
    std::string values = exact ? "exact" : "random value classes";
    FalseAlarmCheck vs_ref{"eager vs reference", special ? values + " + specials" : values};
    FalseAlarmCheck vs_other{
        "eager vs " + std::string(other == paths::kEagerOneThread ? "eager on 1 thread" : other),
        vs_ref.values};
    for (int64_t i = 0, drawn = 0; i < programs / 2; ++drawn) {
      uint64_t s = seed + static_cast<uint64_t>(drawn) * 2 + (exact ? 1 : 0);
      GeneratedCase c = GenerateCaseFromSeed(s, policy);
      if (EagersAlphaZeroDefect(c.program)) continue;
      ++i;
      if (exact) {
        double rate = c.recipe.special;
        c.recipe = InputRecipe{"exact", c.recipe.seed};
        if (special) c.recipe.special = rate;
      }
      CaseRun run =
          RunAndJudge(sup, c.program, c.recipe, {paths::kReference, paths::kEager, other});
      ++vs_ref.programs;
      ++vs_other.programs;
      if (!run.rerun_zeroed.empty()) {
        ++vs_ref.ignored_input_reruns;
        ++vs_other.ignored_input_reruns;
      }
      for (const auto& d : run.verdict.divergences) {
        if (d.kind != DivergenceKind::kValue && d.kind != DivergenceKind::kIgnoredInput) continue;
        bool against_other = d.kind == DivergenceKind::kValue
                                 ? d.paths.size() == 2 && d.paths[1] == other
                                 : d.blamed == other;
        FalseAlarmCheck& check = against_other ? vs_other : vs_ref;
        ++check.numeric_findings;
        if (check.examples.size() < 5)
          check.examples.push_back("seed " + std::to_string(s) + ": " + d.detail);
      }
      bool simple = c.program.nodes.size() == 1 && IsMatmulFamily(c.program.nodes[0].op);
      const PathResult *e = FindResult(run.results, paths::kEager),
                       *x = FindResult(run.results, other),
                       *ref = FindResult(run.results, paths::kReference);
      if (exact && simple && e && x && ref && e->ok() && x->ok()) {
        ++vs_other.bitwise_compared;
        if (!SameBits(*ref, *e, *x)) {
          ++vs_other.bitwise_different;
          if (vs_other.examples.size() < 5)
            vs_other.examples.push_back("seed " + std::to_string(s) +
                                        ": exact values differ bitwise");
        }
      }
    }
    if (with_reference_check) out.push_back(vs_ref);
    out.push_back(vs_other);
  }
}

// Metamorphic relations on eager: one-op programs of mm, bmm, addmm, addmv and baddbmm in one
// floating dtype, rewritten (transposed product, split scaling, stacked mms) and compared.
RelationCheck Relations(Supervisor& sup, int64_t programs, uint64_t seed) {
  GenPolicy policy = SelftestPolicy();
  policy.max_ops = 1;
  policy.p_cast = policy.p_view = policy.p_glue = policy.p_move = 0;
  // The rewrites (oracles/metamorphic.h) build plain programs: an autocast region would be lost.
  policy.p_autocast = 0;
  policy.p_zero_dim =
      0;  // eager's addmv with a 0-d bias and K = 0 returns a 0-d tensor (a real bug)
  policy.w_matmul = policy.w_mv = policy.w_dot = policy.w_addbmm = policy.w_linear = 0;
  policy.w_sdpa = policy.w_attention = 0;
  policy.w_int8 = policy.w_uint8 = policy.w_int32 = policy.w_int64 = 0;
  policy.p_train = 0;                         // relations between forward results
  policy.p_epilogue = policy.p_residual = 0;  // one op: the relations rewrite the product alone
  RelationCheck check{paths::kEager};
  for (int64_t i = 0, drawn = 0; i < programs; ++drawn) {
    uint64_t s = seed + static_cast<uint64_t>(drawn);
    GeneratedCase c = GenerateCaseFromSeed(s, policy);
    if (EagersAlphaZeroDefect(c.program)) continue;
    ++i;
    for (const auto& v : MetamorphicVariants(c.program)) {
      ++check.programs;
      std::vector<PathResult> a = sup.Run(c.program, c.recipe, {paths::kReference, paths::kEager});
      std::vector<PathResult> b = sup.Run(v.program, c.recipe, {paths::kReference, paths::kEager});
      MetamorphicCheck m = CheckMetamorphic(v.relation, a[1], b[1], a[0], b[0]);
      if (m.holds) continue;
      ++check.violations;
      if (check.examples.size() < 5)
        check.examples.push_back("seed " + std::to_string(s) + ": " + m.detail);
    }
  }
  return check;
}

}  // namespace

GenPolicy SelftestPolicy(bool special) {
  GenPolicy p;
  if (special) {
    p.p_special = 1;
    p.special_rate = kSpecialSelftestRate;
    p.w_grid16 = 0;  // grid16 never carries special values
    p.swarm = false;
  }
  p.p_shape_violation = p.p_mixed_dtype = p.p_device_mismatch = p.p_grad_violation = 0;
  p.w_bool = 0;
  p.p_meta = p.p_cuda = 0;
  p.w_bfloat16 = 0;
  // bfloat16 stays out here too: autocast regions are float16, and nested ones switch it off; the
  // attention builder's 16-bit second product is float16. (oneDNN's AMX bfloat16 product reads a
  // row's K tail from the next row, so an inf there makes the row NaN: a real eager bug on such
  // CPUs, catalogued as corpus/regression/*-amx-nan*.json, that a check of the oracle must not
  // meet.)
  p.p_autocast_bfloat16 = 0;
  p.p_autocast_disabled = 1;
  p.p_half_product_float16 = 1;
  p.p_mask_float32 = 0;
  return p;
}

bool SelftestResult::Passed() const {
  for (const auto& p : planted)
    if (!p.caught || !p.blamed) return false;
  for (const auto& c : checks)
    if (c.numeric_findings > 0 || c.bitwise_different > 0) return false;
  for (const auto& c : relations)
    if (c.violations > 0) return false;
  return true;
}

SelftestResult RunSelftest(Supervisor& sup, const SelftestOptions& o) {
  SelftestResult res;
  for (const Planted& f : PlantedFaults()) {
    PlantedCheck check{f.path, f.fault, f.program.Summary()};
    CaseRun run = RunAndJudge(sup, f.program, f.recipe, {paths::kReference, paths::kEager, f.path});
    for (const auto& d : run.verdict.divergences) {
      bool involves = std::find(d.paths.begin(), d.paths.end(), f.path) != d.paths.end();
      if (!involves) continue;
      check.caught = true;
      check.blamed |= d.blamed == f.path;
      check.detail = std::string(DivergenceKindName(d.kind)) + BlameLabel(d) + ": " + d.detail;
    }
    if (!check.caught)
      check.detail =
          "no divergence involving " + f.path + " (" + VerdictToJson(run.verdict).dump() + ")";
    res.planted.push_back(check);
  }
  FalseAlarms(sup, paths::kEagerOneThread, o.programs, o.seed, o.special, res.checks);
  if (o.compiled_programs > 0) {
    FalseAlarms(sup, paths::kAotEager, o.compiled_programs, o.seed + 1000003, o.special,
                res.checks);
    // The knob variants' machinery on a path that computes what eager does: models, no_grad,
    // config settings, dynamic sizes (the training programs it does not run are skipped).
    FalseAlarms(sup, paths::kAotEagerDeploy, std::max<int64_t>(o.compiled_programs / 2, 2),
                o.seed + 3000017, o.special, res.checks);
  }
  if (o.relation_programs > 0)
    res.relations.push_back(Relations(sup, o.relation_programs, o.seed + 2000003));
  return res;
}

nlohmann::json SelftestToJson(const SelftestResult& r) {
  nlohmann::json j = {{"format", "mmdiff.selftest"}, {"version", 1}, {"passed", r.Passed()}};
  j["planted"] = nlohmann::json::array();
  for (const auto& p : r.planted)
    j["planted"].push_back({{"path", p.path},
                            {"fault", p.fault},
                            {"program", p.program},
                            {"caught", p.caught},
                            {"blamed", p.blamed},
                            {"detail", p.detail}});
  j["false_alarm_checks"] = nlohmann::json::array();
  for (const auto& c : r.checks)
    j["false_alarm_checks"].push_back({{"pair", c.pair},
                                       {"values", c.values},
                                       {"programs", c.programs},
                                       {"numeric_findings", c.numeric_findings},
                                       {"bitwise_compared", c.bitwise_compared},
                                       {"bitwise_different", c.bitwise_different},
                                       {"ignored_input_reruns", c.ignored_input_reruns},
                                       {"examples", c.examples}});
  j["metamorphic_relations"] = nlohmann::json::array();
  for (const auto& c : r.relations)
    j["metamorphic_relations"].push_back({{"path", c.path},
                                          {"programs", c.programs},
                                          {"violations", c.violations},
                                          {"examples", c.examples}});
  return j;
}

std::string SelftestToText(const SelftestResult& r) {
  std::ostringstream o;
  char line[256];
  o << "planted faults (each must be caught and blamed on its own path):\n";
  std::snprintf(line, sizeof line, "  %-24s %-7s %-7s %s\n", "path", "caught", "blamed", "fault");
  o << line;
  for (const auto& p : r.planted) {
    std::snprintf(line, sizeof line, "  %-24s %-7s %-7s %s\n", p.path.c_str(),
                  p.caught ? "yes" : "NO", p.blamed ? "yes" : "NO", p.fault.c_str());
    o << line;
  }
  o << "\nfalse-alarm checks (random valid programs; numeric findings must be 0; reruns: programs\n"
       "rerun with an input the op must ignore (beta = 0) replaced by zeros):\n";
  std::snprintf(line, sizeof line, "  %-28s %-32s %9s %9s %7s %s\n", "pair", "values", "programs",
                "findings", "reruns", "bitwise (exact, one op)");
  o << line;
  for (const auto& c : r.checks) {
    std::string bits = c.bitwise_compared
                           ? std::to_string(c.bitwise_compared - c.bitwise_different) + "/" +
                                 std::to_string(c.bitwise_compared) + " identical"
                           : "-";
    std::snprintf(line, sizeof line, "  %-28s %-32s %9lld %9lld %7lld %s\n", c.pair.c_str(),
                  c.values.c_str(), static_cast<long long>(c.programs),
                  static_cast<long long>(c.numeric_findings),
                  static_cast<long long>(c.ignored_input_reruns), bits.c_str());
    o << line;
    for (const auto& e : c.examples) o << "      " << e << "\n";
  }
  o << "\nmetamorphic relations on one-op programs ((AB)^T = B^T A^T, addmm = beta C + alpha AB, "
       "bmm = stacked mm):\n";
  for (const auto& c : r.relations) {
    std::snprintf(line, sizeof line, "  %-28s %9lld programs %9lld violations\n", c.path.c_str(),
                  static_cast<long long>(c.programs), static_cast<long long>(c.violations));
    o << line;
    for (const auto& e : c.examples) o << "      " << e << "\n";
  }
  o << "\nselftest: " << (r.Passed() ? "PASSED" : "FAILED") << "\n";
  return o.str();
}

}  // namespace mmdiff
