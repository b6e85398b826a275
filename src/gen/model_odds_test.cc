// Tests for the odds of models: weights (p_module, p_buffer), linear input ranks, epilogues,
// residuals and sibling linears, and self-attention projected by the model's weights, each switched
// off at 0 and, where it can be forced, on at 1, in programs generated over many seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "src/gen/generator.h"
#include "src/gen/odds_test_util.h"
#include "src/ir/static_types.h"
#include "src/ir/verifier.h"

namespace mmdiff {
namespace {

using odds_test::ExpectControls;
using odds_test::Only;
using odds_test::Programs;

// A model (p_module) holds its product's weight operands (at least one), as parameters or, where
// they do not train, buffers (p_buffer); nothing else is ever a weight.
TEST(GeneratorOdds, Models) {
  GenPolicy p;
  auto weighted = [](const Program& prog, const Node&) { return HasWeights(prog); };
  auto function = [](const Program& prog, const Node&) {
    return !HasWeights(prog) && !WeightOperandInputs(prog).empty();
  };
  ExpectControls(p, &GenPolicy::p_module, "p_module", weighted, function);
  p.p_module = 1;
  auto buffer = [](bool yes) {
    return [yes](const Program& prog, const Node&) {
      return std::any_of(prog.inputs.begin(), prog.inputs.end(), [&](const InputSpec& in) {
        return IsWeight(in) && (in.role == InputRole::kBuffer) == yes;
      });
    };
  };
  p.p_train = 0;
  ExpectControls(p, &GenPolicy::p_buffer, "p_buffer", buffer(true), buffer(false));
  p.p_train = 0.5;
  p.p_buffer = 1;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    Program prog = GenerateFromSeed(seed, p);
    ASSERT_TRUE(Verify(prog).ok()) << seed;
    const std::vector<size_t> operands = WeightOperandInputs(prog);
    EXPECT_EQ(HasWeights(prog), !operands.empty()) << seed;
    for (size_t i = 0; i < prog.inputs.size(); ++i) {
      const InputSpec& in = prog.inputs[i];
      if (!IsWeight(in)) continue;
      EXPECT_NE(std::find(operands.begin(), operands.end(), i), operands.end()) << seed;
      // A trained weight is a parameter, whatever p_buffer says.
      EXPECT_EQ(in.role == InputRole::kParameter, in.requires_grad) << seed;
    }
  }
}

// A linear's input rank is in [min_linear_rank, max_linear_rank] (a fresh input's; a chained one is
// the last result), and at its default every rank from 1 to 3 comes.
TEST(GeneratorOdds, LinearInputRanks) {
  GenPolicy p = Only(OpKind::kLinear);
  p.p_chain = p.p_view = 0;
  auto rank = [](size_t r) {
    return [r](const Program& prog, const Node& n) {
      const InputSpec* x = n.op == OpKind::kLinear ? prog.FindInput(n.args[0]) : nullptr;
      return x && x->shape.size() == r;
    };
  };
  for (size_t r = 1; r <= 3; ++r) EXPECT_GT(Programs(p, rank(r)), 0) << r;
  p.min_linear_rank = 2;
  EXPECT_EQ(Programs(p, rank(1)), 0);
  EXPECT_GT(Programs(p, rank(2)), 0);
  p.max_linear_rank = 2;  // min_linear_rank 2 to max_linear_rank 2: 2-D inputs only
  EXPECT_EQ(Programs(p, rank(3)), 0);
  EXPECT_GT(Programs(p, rank(2)), 0);
  p.min_linear_rank = 3;  // a max_linear_rank below min_linear_rank is min_linear_rank
  EXPECT_EQ(Programs(p, rank(2)), 0);
  EXPECT_GT(Programs(p, rank(3)), 0);
}

// A product's epilogue (p_epilogue), drawn by its weights; the product kept as an output too
// (p_product_output); a linear's siblings on the same input (p_linear_siblings).
TEST(GeneratorOdds, Epilogues) {
  GenPolicy p = Only(OpKind::kMm);
  p.p_residual = 0;  // the epilogue on the product itself
  auto epilogue = [](const Program&, const Node& n) { return IsUnaryEpilogue(n.op); };
  auto bare = [](const Program& prog, const Node& n) {
    return n.op == OpKind::kMm &&
           std::none_of(prog.nodes.begin(), prog.nodes.end(), [&](const Node& m) {
             return IsUnaryEpilogue(m.op) && m.args[0] == n.name;
           });
  };
  ExpectControls(p, &GenPolicy::p_epilogue, "p_epilogue", epilogue, bare);
  p.p_epilogue = 1;
  auto kept = [](bool yes) {
    return [yes](const Program& prog, const Node& n) {
      if (!IsUnaryEpilogue(n.op)) return false;
      bool output =
          std::find(prog.outputs.begin(), prog.outputs.end(), n.args[0]) != prog.outputs.end();
      return output == yes;
    };
  };
  p.max_ops = 1;  // a product chained on is consumed anyway
  ExpectControls(p, &GenPolicy::p_product_output, "p_product_output", kept(true), kept(false));
  // Each weight picks its epilogue: with only w_gelu_tanh, every one is gelu's tanh form.
  p.w_relu = p.w_gelu = p.w_silu = p.w_sigmoid = p.w_tanh = p.w_clamp = 0;
  EXPECT_EQ(Programs(p,
                     [](const Program&, const Node& n) {
                       return IsUnaryEpilogue(n.op) && !(n.op == OpKind::kGelu && n.gelu_tanh);
                     }),
            0);
  EXPECT_GT(Programs(p, epilogue), 0);
  // A residual on the product (p_residual), its own input where the shapes allow
  // (p_residual_input): square linears, so that they often do.
  GenPolicy r = Only(OpKind::kLinear);
  r.dims = {4, 5};
  r.p_linear_siblings = r.p_epilogue = r.p_glue = r.p_view = r.p_cast = r.p_mixed_dtype = 0;
  r.p_residual = 1;
  auto residual = [](bool own) {
    return [own](const Program& prog, const Node& n) {
      const Node* src = n.op == OpKind::kAdd ? prog.FindNode(n.args[0]) : nullptr;
      if (!src || src->op != OpKind::kLinear) return false;
      const auto types = InferStaticTypes(prog);
      const StaticType &x = types.at(src->args[0]), &y = types.at(src->name);
      if (!x.shape || x.shape != y.shape || x.dtype != y.dtype) return false;
      return (n.args[1] == src->args[0]) == own;
    };
  };
  ExpectControls(r, &GenPolicy::p_residual_input, "p_residual_input", residual(true),
                 residual(false));
  r.p_residual = 0;
  EXPECT_EQ(Programs(r, [](const Program&, const Node& n) { return n.op == OpKind::kAdd; }), 0);
  GenPolicy l = Only(OpKind::kLinear);
  auto siblings = [](bool yes) {
    return [yes](const Program& prog, const Node& n) {
      if (n.op != OpKind::kLinear) return false;
      const bool shared = std::any_of(prog.nodes.begin(), prog.nodes.end(), [&](const Node& m) {
        return &m != &n && m.op == OpKind::kLinear && m.args[0] == n.args[0];
      });
      return shared == yes;
    };
  };
  l.max_ops = 1;
  ExpectControls(l, &GenPolicy::p_linear_siblings, "p_linear_siblings", siblings(true),
                 siblings(false));
  // Two siblings (three linears on one input) with p_two_siblings, else one.
  l.p_linear_siblings = 1;
  auto linears = [](int count) {
    return [count](const Program& prog, const Node& n) {
      return &n == &prog.nodes.back() &&
             std::count_if(prog.nodes.begin(), prog.nodes.end(),
                           [](const Node& m) { return m.op == OpKind::kLinear; }) == count;
    };
  };
  ExpectControls(l, &GenPolicy::p_two_siblings, "p_two_siblings", linears(3), linears(2));
}

// Self-attention projected from one input (p_attention_projection): q, k and v are linears of
// the same x, reshaped and permuted to heads first, with S = L; else stored (B, S, H, E) inputs
// permuted. In a model, the projections' weights are its parameters.
TEST(GeneratorOdds, AttentionProjections) {
  GenPolicy p = Only(OpKind::kSoftmax);
  p.p_attention_4d = p.p_attention_bshd = 1;
  p.max_ops = 1;
  auto projected = [](const Program& prog, const Node& n) {
    const Node* split = n.op == OpKind::kPermute ? prog.FindNode(n.args[0]) : nullptr;
    const Node* linear =
        split && split->op == OpKind::kReshape ? prog.FindNode(split->args[0]) : nullptr;
    return linear && linear->op == OpKind::kLinear;
  };
  auto stored = [](const Program& prog, const Node& n) {
    return n.op == OpKind::kPermute && n.ints == std::vector<int64_t>{0, 2, 1, 3} &&
           prog.FindNode(n.args[0]) == nullptr;
  };
  ExpectControls(p, &GenPolicy::p_attention_projection, "p_attention_projection", projected,
                 stored);
  p.p_attention_projection = 1;
  p.p_module = p.p_weight = 1;
  p.p_train = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    const Program prog = GenerateFromSeed(seed, p);
    ASSERT_TRUE(Verify(prog).ok()) << seed << ": " << Verify(prog).message();
    std::set<std::string> sources;
    int projections = 0;
    for (const Node& n : prog.nodes) {
      if (!projected(prog, n)) continue;  // the permute of a projection
      ++projections;
      const Node& linear = *prog.FindNode(prog.FindNode(n.args[0])->args[0]);
      const Node* cast = prog.FindNode(linear.args[0]);  // x, or x cast to another dtype
      sources.insert(cast && cast->op == OpKind::kCast ? cast->args[0] : linear.args[0]);
      const InputSpec* w = prog.FindInput(linear.args[1]);
      ASSERT_NE(w, nullptr) << seed;
      EXPECT_TRUE(IsWeight(*w)) << seed << ": a projection's weight is the model's";
    }
    EXPECT_GE(projections, 3) << seed;
    EXPECT_EQ(sources.size(), 1u) << seed << ": q, k and v project one input";
  }
}

}  // namespace
}  // namespace mmdiff
